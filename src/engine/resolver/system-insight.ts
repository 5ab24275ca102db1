import type { NodeRecord } from "../types";

/**
 * An Insight carrying `source_query` was written by reflect and follows the review
 * cycle; any other Insight was written by hand and is an ordinary domain node (resolver,
 * detectors, structural metrics). The one place that tells them apart, on every backend.
 */
export function isSystemInsight(node: Pick<NodeRecord, "label" | "props">): boolean {
	const query = node.props.source_query;
	return node.label === "Insight" && typeof query === "string" && query.trim().length > 0;
}
