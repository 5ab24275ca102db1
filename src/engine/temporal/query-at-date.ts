import type { NameHistoryStore, Reads } from "../protocols";
import type { NodeRecord, PartialScope } from "../types";
import { propsAsOf } from "./history";

export interface AtDateQuery {
	/** ISO time (see parsePointInTime). */
	readonly at: string;
	readonly label?: string;
	readonly limit?: number;
}

/** How many history entries per node are read to rebuild its props at a date. */
const HISTORY_WINDOW = 1000;

/**
 * query_at_date: the nodes valid at `at` (valid_from ≤ at, valid_to null or ≥ at, not yet
 * archived), each with its props rolled back to what they were at `at` from node history.
 */
export async function queryAtDate(graph: Reads<NameHistoryStore>, scope: PartialScope, query: AtDateQuery): Promise<NodeRecord[]> {
	const nodes = await graph.nodesValidAt(scope, { at: query.at, label: query.label, limit: query.limit ?? 100 });
	const out: NodeRecord[] = [];
	for (const node of nodes) {
		const later = await graph.nodeHistory(scope, node.id, { since: query.at, limit: HISTORY_WINDOW });
		out.push(later.length === 0 ? node : { ...node, props: propsAsOf(node.props, later, query.at) });
	}
	return out;
}
