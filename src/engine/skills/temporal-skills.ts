import { isFullScope } from "../scope";
import { parsePointInTime, queryAtDate } from "../temporal";
import type { HistoryEntry } from "../protocols";
import type { PartialScope, PropValue, Props } from "../types";
import { resolveLabelOrThrow } from "../write/sanitise";
import { findNode, type NodeName } from "./find-node";
import type { SkillDeps } from "./skill-deps";
import { nodeRef, type NodeRefView } from "./node-refs";

export interface HistoryEntryView {
	readonly at: string;
	readonly prop: string;
	readonly before: PropValue;
	readonly after: PropValue;
	readonly source: string | null;
}

export interface HistoryView {
	readonly node: NodeRefView;
	readonly created_at: string;
	readonly updated_at: string;
	/** Oldest first. */
	readonly changes: readonly HistoryEntryView[];
}

function entryView(e: HistoryEntry): HistoryEntryView {
	return { at: e.at, prop: e.prop, before: e.before, after: e.after, source: e.source };
}

/** A node's recorded property changes (every write through the pipeline records them). */
export async function nodeHistory(deps: SkillDeps, scope: PartialScope, ref: NodeName, limit = 200): Promise<HistoryView> {
	const node = await findNode(deps, scope, ref);
	const entries = await deps.memory.graph.nodeHistory(scope, node.id, { limit: Math.max(1, Math.min(limit, 10_000)) });
	return { node: nodeRef(node), created_at: node.createdAt, updated_at: node.updatedAt, changes: entries.map(entryView) };
}

export interface AtDateNodeView extends NodeRefView {
	readonly valid_from: PropValue;
	readonly valid_to: PropValue;
	/** The props as they were at `at` (later changes undone from history). */
	readonly props: Props;
}

export interface AtDateView {
	readonly at: string;
	readonly nodes: readonly AtDateNodeView[];
}

/** query_at_date: what the memory held as valid at a point in time. */
export async function atDate(
	deps: SkillDeps,
	scope: PartialScope,
	options: { at: string; label?: string; limit?: number },
): Promise<AtDateView> {
	const at = parsePointInTime(options.at);
	if (!isFullScope(scope)) return { at, nodes: [] };
	const label = options.label ? resolveLabelOrThrow(deps.memory.profile, options.label).label : undefined;
	const nodes = await queryAtDate(deps.memory.graph, scope, { at, label, limit: Math.max(1, Math.min(options.limit ?? 100, 1000)) });
	return {
		at,
		nodes: nodes.map((n) => ({
			...nodeRef(n),
			// The status at `at`, not today's.
			status: typeof n.props.status === "string" ? n.props.status : "active",
			valid_from: n.props.valid_from ?? n.createdAt,
			valid_to: n.props.valid_to ?? null,
			props: n.props,
		})),
	};
}
