import type { KeyField, NodeRecord, PartialScope, Props, Scope } from "../types";

export interface MergeNodeInput {
	readonly label: string;
	readonly keyField: KeyField;
	readonly key: string;
	/** Merged over the stored props (props not named here are kept). */
	readonly set: Props;
	/** Only written when the node is created (engrama_id, created_at, ...). */
	readonly setOnCreate: Props;
	/** Props to remove. */
	readonly unset?: readonly string[];
	readonly now: string;
	/**
	 * The node's embedding, for a store that keeps vectors on its nodes to write in the node's own
	 * statement (one round trip less per remember). Only sent after `VectorStore.acceptsNodeVector`
	 * said yes; `MergeNodeResult.vectorWritten` says whether it was written.
	 */
	readonly vector?: Float32Array;
	/**
	 * The input was prepared for a new node without reading the stored one: when the node is
	 * stored, write nothing and return it as `MergeNodeResult.stored` (locked for the rest of the
	 * transaction) for the caller to prepare again. Only where `GraphCapabilities.mergeTellsStored`.
	 */
	readonly onlyIfNew?: boolean;
}

export interface MergeNodeResult {
	readonly node: NodeRecord;
	readonly created: boolean;
	/** The props as they were before this write (undefined when created). */
	readonly previous?: Props;
	/** The input's `vector` was stored with the node. */
	readonly vectorWritten?: boolean;
	/** With `onlyIfNew`: the node was already stored, as it is (nothing was written). */
	readonly stored?: NodeRecord;
}

export interface ListNodesQuery {
	readonly label?: string;
	readonly status?: readonly string[];
	/** Archived nodes are excluded unless asked for. */
	readonly includeArchived?: boolean;
	readonly limit?: number;
	readonly offset?: number;
	/** Only nodes whose props[field] equals value (string props). */
	readonly where?: Readonly<Record<string, string>>;
}

/** Nodes one at a time: create/merge, read, update, delete, list and count. */
export interface NodeStore {
	mergeNode(scope: Scope, input: MergeNodeInput): Promise<MergeNodeResult>;
	getNode(scope: PartialScope, label: string, key: string): Promise<NodeRecord | null>;
	getNodeById(scope: PartialScope, id: string): Promise<NodeRecord | null>;
	/**
	 * `getNodeById` for many ids in one read (one statement on a server: search reads dozens of
	 * nodes it only knows by id, and one round trip each was most of its time on Neo4j). Ids not
	 * found in the scope are absent; a partial scope gives an empty map.
	 */
	getNodesByIds(scope: PartialScope, ids: readonly string[]): Promise<ReadonlyMap<string, NodeRecord>>;
	/**
	 * The engrama_ids among `ids` held by nodes of other scopes. An id is unique per database, so
	 * a note carrying one of these (a vault two users of one database both sync) cannot give it to
	 * a node of its own scope.
	 */
	idsOutsideScope(scope: Scope, ids: readonly string[]): Promise<ReadonlySet<string>>;
	/** Nodes of any label whose key equals `key` exactly (archived included). */
	findByKey(scope: PartialScope, key: string): Promise<readonly NodeRecord[]>;
	updateNode(scope: Scope, id: string, set: Props, unset: readonly string[], now: string): Promise<NodeRecord | null>;
	/** Hard delete: the node, its edges and its fulltext entry. */
	deleteNode(scope: Scope, id: string): Promise<boolean>;
	listNodes(scope: PartialScope, query: ListNodesQuery): Promise<readonly NodeRecord[]>;
	/** Live (not archived) nodes per label, Insights excluded. */
	labelCounts(scope: PartialScope): Promise<Readonly<Record<string, number>>>;
	counts(scope: PartialScope): Promise<{ readonly nodes: number; readonly edges: number }>;
}
