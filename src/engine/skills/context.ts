import { FAN_OUT_CAP, nodeView, type NodeView } from "../memory";
import { isFullScope } from "../scope";
import type { PartialScope } from "../types";
import { findNode, type NodeName } from "./find-node";
import type { SkillDeps } from "./skill-deps";

export interface ContextRelationView {
	readonly from: string;
	readonly from_id: string;
	readonly from_label: string;
	readonly type: string;
	readonly to: string;
	readonly to_id: string;
	readonly to_label: string;
	/** Seen from the centre: "out" (centre → node), "in" (node → centre), "between" two neighbours. */
	readonly direction: "out" | "in" | "between";
}

/** Memory.context's shape, with ids, labels and direction on every relation. */
export interface ContextSkillView {
	readonly node: NodeView;
	/** `path`: the neighbour's note (vault-relative), when it has one. */
	readonly neighbours: readonly { node_id: string; label: string; name: string; depth: number; status: string; path?: string }[];
	readonly relations: readonly ContextRelationView[];
	readonly truncated: boolean;
	/** How many neighbours the walk found, when `limit` showed fewer. */
	readonly neighbour_count?: number;
}

export const MAX_CONTEXT_HOPS = 4;

/** Neighbours a context answer shows unless asked for more (every surface alike): a hub's 62 ran to 63 kB. */
export const CONTEXT_LIMIT = 25;

/**
 * A node's neighbourhood up to `hops` (1–4), archived neighbours left out, fan-out capped; with
 * `limit`, the nearest `limit` neighbours only (and the relations among what is shown), `truncated`
 * saying more exist and `neighbour_count` how many.
 */
export async function context(deps: SkillDeps, scope: PartialScope, ref: NodeName, hops = 2, limit?: number): Promise<ContextSkillView | null> {
	if (!isFullScope(scope)) return null;
	const centre = await findNode(deps, scope, ref).catch((error: unknown) => {
		if (error instanceof Error && "code" in error && error.code === "not_found") return null;
		throw error;
	});
	if (!centre) return null;
	const hood = await deps.memory.graph.neighbourhood(scope, centre.id, Math.max(1, Math.min(hops, MAX_CONTEXT_HOPS)), FAN_OUT_CAP);
	if (!hood) return null;
	const shown = limit !== undefined && hood.nodes.length > limit ? [...hood.nodes].sort((a, b) => a.depth - b.depth).slice(0, Math.max(0, limit)) : hood.nodes;
	const nodes = new Map([[hood.center.id, hood.center], ...shown.map((n) => [n.node.id, n.node] as const)]);
	const edges = shown === hood.nodes ? hood.edges : hood.edges.filter((e) => nodes.has(e.fromId) && nodes.has(e.toId));
	return {
		node: nodeView(hood.center),
		neighbours: shown.map((n) => ({
			node_id: n.node.id,
			label: n.node.label,
			name: n.node.key,
			depth: n.depth,
			status: typeof n.node.props.status === "string" ? n.node.props.status : "active",
			...(typeof n.node.props.obsidian_path === "string" && n.node.props.obsidian_path ? { path: n.node.props.obsidian_path } : {}),
		})),
		relations: edges.map((e) => {
			const from = nodes.get(e.fromId);
			const to = nodes.get(e.toId);
			return {
				from: from?.key ?? e.fromId,
				from_id: e.fromId,
				from_label: from?.label ?? "",
				type: e.type,
				to: to?.key ?? e.toId,
				to_id: e.toId,
				to_label: to?.label ?? "",
				direction: e.fromId === hood.center.id ? "out" : e.toId === hood.center.id ? "in" : "between",
			};
		}),
		truncated: hood.truncated || shown !== hood.nodes,
		...(shown !== hood.nodes ? { neighbour_count: hood.nodes.length } : {}),
	};
}
