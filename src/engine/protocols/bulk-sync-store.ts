import type { KeyField, NodeRecord, PartialScope, PropValue, Scope } from "../types";
import type { MergeEdgeInput } from "./edge-store";
import type { ListNodesQuery, MergeNodeInput, MergeNodeResult } from "./node-store";

/** What a vault sync needs beyond one-at-a-time writes (issue 3): re-identify, many writes in one unit, narrow reads. */
export interface BulkSyncStore {
	/**
	 * Changes a node's identity in place: its label, key field and key (a renamed note, an edited
	 * title), and optionally its engrama_id (a note's frontmatter id adopting a stub). Props, edges,
	 * created_at and vectors stay with the node; `props[keyField]` follows the key. Throws
	 * ValidationError when another node of the scope already holds the label + key or the id.
	 * Returns null when the node does not exist in the scope.
	 */
	rekeyNode(scope: Scope, id: string, input: RekeyNodeInput): Promise<NodeRecord | null>;
	/**
	 * `mergeEdge` for many edges as one unit (a full vault sync writes tens of thousands): same
	 * idempotent semantics per edge, endpoints looked up once per call, atomic where the backend
	 * is. Returns how many edges were new. Throws NotFoundError (nothing written) when an endpoint
	 * is missing in the scope. Optional: without it, sync calls `mergeEdge` once per edge.
	 */
	mergeEdges?(scope: Scope, inputs: readonly MergeEdgeInput[]): Promise<{ readonly created: number }>;
	/**
	 * `mergeNode` for many nodes as one unit (a full vault sync creates thousands): the same
	 * results, in input order, as calling `mergeNode` for each input in turn, fulltext and name
	 * index included; atomic where the backend is (on an error nothing is written). Optional:
	 * without it, the write pipeline merges node by node.
	 */
	mergeNodes?(scope: Scope, inputs: readonly MergeNodeInput[], options?: MergeNodesOptions): Promise<readonly MergeNodeResult[]>;
	/**
	 * The nodes stored under each label + key, in input order (null where none), in one read: what
	 * a batch of writes looks up before it merges. Optional: without it, one `getNode` each.
	 */
	getNodes?(scope: Scope, refs: readonly { readonly label: string; readonly key: string }[]): Promise<readonly (NodeRecord | null)[]>;
	/**
	 * Builds what `mergeNodes` with `deferIndexes` left out (fulltext rows, name index) for at most
	 * `limit` nodes, as one unit; true while some remain. The store also finishes it when it opens,
	 * so a load interrupted in between (a crash, a kill) is indexed all the same. Optional.
	 */
	buildDeferredIndexes?(limit: number): Promise<boolean>;
	/**
	 * `listNodes` reading only the named props (plus id, label, key): what sync needs to know about
	 * every note-backed node without decoding whole nodes. Scalars come back as stored; a list or
	 * map may come back as JSON text. Same filters and order as `listNodes` (`where` included).
	 * Optional: without it, sync uses `listNodes`.
	 */
	listNodeFields?(scope: PartialScope, query: ListNodesQuery & { readonly fields: readonly string[] }): Promise<readonly NodeFields[]>;
}

export interface MergeNodesOptions {
	/**
	 * New nodes' fulltext rows and name index may be left to `buildDeferredIndexes` (a first sync:
	 * built in one pass after the load). Until then search and fuzzy name matching miss them;
	 * lookups by label + key or id do not. A store without deferral ignores it.
	 */
	readonly deferIndexes?: boolean;
}

export interface NodeFields {
	readonly id: string;
	readonly label: string;
	readonly key: string;
	/** The requested props; absent ones are undefined. */
	readonly fields: Readonly<Record<string, PropValue | undefined>>;
}

export interface RekeyNodeInput {
	readonly label: string;
	readonly keyField: KeyField;
	readonly key: string;
	readonly newId?: string;
	readonly now: string;
}
