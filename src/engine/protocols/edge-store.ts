import type { Direction, NeighbourEdge, Neighbourhood, PartialScope, Props, Scope } from "../types";

export interface MergeEdgeInput {
	readonly fromId: string;
	readonly type: string;
	readonly toId: string;
	readonly props?: Props;
	readonly now: string;
}

/** Relations between nodes and the walks over them. */
export interface EdgeStore {
	/** Idempotent. Throws NotFoundError when an endpoint is missing in the scope. */
	mergeEdge(scope: Scope, input: MergeEdgeInput): Promise<{ readonly created: boolean }>;
	deleteEdge(scope: Scope, fromId: string, type: string, toId: string): Promise<boolean>;
	edgesOf(scope: PartialScope, id: string, direction: Direction, types?: readonly string[]): Promise<readonly NeighbourEdge[]>;
	neighbourhood(scope: PartialScope, id: string, hops: number, fanOutCap: number): Promise<Neighbourhood | null>;

	/**
	 * The live neighbours of many nodes in one call, for the graph rerank of hybrid search: ids,
	 * labels and keys only, each with its relation count (counted up to `cap + 1`). A node with
	 * more than `cap` relations is a hub: its `degree` is `cap + 1` and its list may be cut.
	 * Unknown or out-of-scope ids are absent; a partial scope gives an empty map. Optional:
	 * without it the rerank walks `neighbourhood` node by node (same result, more round trips).
	 */
	adjacency?(scope: PartialScope, ids: readonly string[], cap: number): Promise<ReadonlyMap<string, Adjacency>>;
}

/** One node's neighbours as the graph rerank needs them. */
export interface Adjacency {
	/** Relations of the node, counted up to cap + 1. */
	readonly degree: number;
	readonly neighbours: readonly AdjacentNode[];
}

export interface AdjacentNode {
	readonly id: string;
	readonly label: string;
	readonly key: string;
	/** Relations of this neighbour, counted up to cap + 1. */
	readonly degree: number;
}
