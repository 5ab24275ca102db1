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
	 * With `along`, the lists of the nodes its walk reaches come in the same call (see ChainWalk).
	 */
	adjacency?(scope: PartialScope, ids: readonly string[], cap: number, along?: ChainWalk): Promise<ReadonlyMap<string, Adjacency>>;
}

/**
 * The walk of search's neighbour words, for `adjacency` to read ahead (on a server, one statement
 * instead of one per hop, each waiting for the one before): from each of `ids` (its list read as
 * well), `hops` steps to the neighbours of the node's own label in its list as `adjacency` gives
 * it (never itself); a step after the first only from a node that is not a hub (more than `cap`
 * relations) and has at most two neighbours of its label (one link of a chain, as a
 * conversation's turns are). The result holds the list of every node reached that `adjacency`
 * would answer for.
 */
export interface ChainWalk {
	readonly ids: readonly string[];
	readonly hops: number;
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
