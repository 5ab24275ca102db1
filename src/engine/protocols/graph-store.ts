import type {
	Direction,
	FulltextHit,
	KeyField,
	Neighbourhood,
	NeighbourEdge,
	NodeRecord,
	PartialScope,
	PropValue,
	Props,
	Scope,
} from "../types";
import type { ReflectDetectorId, ReflectParams, ReflectRowMap } from "./reflect-rows";

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
}

export interface MergeNodeResult {
	readonly node: NodeRecord;
	readonly created: boolean;
	/** The props as they were before this write (undefined when created). */
	readonly previous?: Props;
}

export interface MergeEdgeInput {
	readonly fromId: string;
	readonly type: string;
	readonly toId: string;
	readonly props?: Props;
	readonly now: string;
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

export interface FulltextQuery {
	/** Plain words; the backend escapes its own syntax. */
	readonly text: string;
	readonly limit: number;
	readonly labels?: readonly string[];
	/**
	 * Words of 4 or more characters also match longer words that start with them (search sends
	 * stems: "research" finds "researching"). A backend without prefix matching ignores it.
	 */
	readonly prefix?: boolean;
}

export interface HealthReport {
	readonly ok: boolean;
	readonly backend: string;
	readonly detail?: string;
	readonly nodes?: number;
	readonly edges?: number;
	/** The stored layout's version where the backend records one (SQLite: engrama_meta.schema_version). */
	readonly schemaVersion?: number;
}

/** What `engrama verify` checks; each backend reports the ones that can go wrong in it. */
export type IntegrityCheckId =
	/** The storage engine's own check (SQLite PRAGMA integrity_check; Neo4j: its indexes online). */
	| "storage"
	/** Live nodes with no fulltext entry (search cannot find them by words). */
	| "fulltext_missing"
	/** Fulltext entries of nodes that no longer exist. */
	| "fulltext_orphans"
	/** Relations whose endpoint node is missing. */
	| "dangling_edges"
	/** Relations whose scope (org/user) differs from their endpoints'. */
	| "edge_scope"
	/** Vectors of nodes that no longer exist. */
	| "vector_orphans"
	/** Vectors whose length differs from the memory's dimension. */
	| "vector_dimensions";

export interface IntegrityCheck {
	readonly check: IntegrityCheckId;
	/** 0 when clean. */
	readonly problems: number;
	/** A few examples (node ids, row ids or messages), at most 5. */
	readonly samples: readonly string[];
}

/** Abilities that differ between backends, declared instead of discovered by instanceof. */
export interface GraphCapabilities {
	/** `transaction()` is atomic (otherwise it only serialises). */
	readonly atomicTransactions: boolean;
	/** The store persists to disk/server (false for null and :memory:). */
	readonly durable: boolean;
	/**
	 * True when a nested `transaction()` that fails keeps the writes it made before failing (the
	 * outer transaction still commits or rolls back as a whole): Neo4j has no savepoints. Absent or
	 * false: a failed nested transaction is rolled back on its own (SQLite savepoints).
	 */
	readonly noSavepoints?: boolean;
}

export interface ScopeForgetReport {
	readonly nodes: number;
	readonly edges: number;
	/** Fulltext rows removed (one per node on SQLite; 0 where the index follows the nodes). */
	readonly fulltext?: number;
	/** node_history entries removed. */
	readonly history?: number;
	/** Name-index rows removed (names and fragments). */
	readonly nameIndex?: number;
}

/**
 * A query for the entity resolver's name index. `normalised` and `fragments` come from
 * `normaliseName` / `queryFragments` in src/engine/resolver/normalise.ts; backends index the
 * same forms with `indexedNames` + `nameFragments` at write time.
 */
export interface NameCandidatesQuery {
	readonly normalised: string;
	readonly fragments: readonly string[];
	/** At most this many nodes (the resolver asks for ≤ 200). */
	readonly limit: number;
}

/** One recorded property change of a node. */
export interface HistoryEntry {
	/** The node's engrama_id. */
	readonly nodeId: string;
	/** ISO time of the write that changed the property. */
	readonly at: string;
	readonly prop: string;
	/** Value before the change; null when the property was absent. */
	readonly before: PropValue;
	/** Value after the change; null when the property was removed. */
	readonly after: PropValue;
	/** Provenance of the write (sync|mcp|cli|sdk), null when unknown. */
	readonly source: string | null;
}

export interface NodeHistoryQuery {
	/** Only entries with `at` strictly after this ISO time. */
	readonly since?: string;
	/** The newest `limit` entries (returned oldest first). */
	readonly limit: number;
}

export interface ValidAtQuery {
	/** ISO time. */
	readonly at: string;
	readonly label?: string;
	readonly limit: number;
}

/** Every row a scope owns in the graph store, for a GDPR dry run. */
export interface ScopeFootprint {
	readonly nodes: number;
	readonly edges: number;
	readonly fulltext: number;
	readonly history: number;
	readonly nameIndex: number;
}

/**
 * The graph half of a backend. Every read takes the caller's scope and must return nothing
 * for a partial scope; every write takes a full Scope. No query text leaves the backend.
 */
export interface GraphStore {
	readonly name: string;
	readonly capabilities: GraphCapabilities;
	init(): Promise<void>;
	close(): Promise<void>;
	health(): Promise<HealthReport>;

	mergeNode(scope: Scope, input: MergeNodeInput): Promise<MergeNodeResult>;
	getNode(scope: PartialScope, label: string, key: string): Promise<NodeRecord | null>;
	getNodeById(scope: PartialScope, id: string): Promise<NodeRecord | null>;
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

	/** Idempotent. Throws NotFoundError when an endpoint is missing in the scope. */
	mergeEdge(scope: Scope, input: MergeEdgeInput): Promise<{ readonly created: boolean }>;
	deleteEdge(scope: Scope, fromId: string, type: string, toId: string): Promise<boolean>;
	edgesOf(scope: PartialScope, id: string, direction: Direction, types?: readonly string[]): Promise<readonly NeighbourEdge[]>;
	neighbourhood(scope: PartialScope, id: string, hops: number, fanOutCap: number): Promise<Neighbourhood | null>;

	fulltext(scope: PartialScope, query: FulltextQuery): Promise<readonly FulltextHit[]>;
	listNodes(scope: PartialScope, query: ListNodesQuery): Promise<readonly NodeRecord[]>;
	/** Live (not archived) nodes per label, Insights excluded. */
	labelCounts(scope: PartialScope): Promise<Readonly<Record<string, number>>>;
	counts(scope: PartialScope): Promise<{ readonly nodes: number; readonly edges: number }>;

	/** Removes every node and edge of the scope (GDPR). */
	forgetScope(scope: Scope): Promise<ScopeForgetReport>;

	/** Small persistent settings of the memory itself (standalone identity, counters). */
	getMeta(key: string): Promise<string | null>;
	setMeta(key: string, value: string): Promise<void>;
	/** Removes a setting (a GDPR forget removes the caller's counters). */
	deleteMeta(key: string): Promise<void>;
	/**
	 * Whole-memory reads for `engrama export` and `engrama migrate`, every tenant: the scopes that
	 * hold nodes (ordered by org, then user) and every setting (ordered by key). Never a query path.
	 */
	listScopes?(): Promise<readonly Scope[]>;
	listMeta?(): Promise<readonly (readonly [string, string])[]>;
	/**
	 * Makes what was deleted unrecoverable from the backend's files where it can (after a GDPR
	 * forget, outside any transaction): SQLite checkpoints and empties its write-ahead log.
	 */
	purgeDeleted?(): Promise<void>;

	/**
	 * Read-only consistency checks over the whole memory (every scope: a dangling row belongs to
	 * no one). Never writes. Optional: a backend without it has nothing to check (null).
	 */
	checkIntegrity?(): Promise<readonly IntegrityCheck[]>;
	/**
	 * `engrama verify --fix`: removes only rows that belong to no node (fulltext rows, relations
	 * whose endpoint is gone) and indexes live nodes missing from the fulltext index. Never changes
	 * a node. Returns how many rows each check's repair touched.
	 */
	repairIntegrity?(): Promise<Partial<Record<IntegrityCheckId, number>>>;

	/** Runs `fn` as one unit (atomic where capabilities.atomicTransactions). */
	transaction<T>(fn: () => Promise<T>): Promise<T>;

	// --- Entity resolver and temporal reasoning (issue 5). Policy lives in the engine; these only fetch. ---

	/**
	 * Bounded name candidates for the entity resolver, scope-filtered, archived nodes included
	 * (the resolver reports them as revive_candidate). Must return every node whose indexed name
	 * (`indexedNames(key, props)`: the key and its `aliases`, normalised) equals `normalised`,
	 * first; then nodes whose indexed names share fragments with `fragments`, more shared
	 * fragments first, then closer name length. May read a bounded number of postings per
	 * fragment (the cost must not grow linearly with the graph). At most `limit` nodes.
	 * Implementations keep the index in step with key_value and props.aliases on every write.
	 */
	nameCandidates(scope: PartialScope, query: NameCandidatesQuery): Promise<readonly NodeRecord[]>;
	/** Appends property changes (the write pipeline computes them). */
	recordHistory(scope: Scope, entries: readonly HistoryEntry[]): Promise<void>;
	/** A node's recorded changes, oldest first; [] for a partial scope or unknown node. */
	nodeHistory(scope: PartialScope, nodeId: string, query: NodeHistoryQuery): Promise<readonly HistoryEntry[]>;
	/**
	 * Nodes valid at `at`: COALESCE(valid_from, created_at) <= at AND (valid_to IS NULL OR
	 * valid_to >= at), minus nodes archived at or before `at` (archived_at, else updated_at).
	 * Ordered by label, then key.
	 */
	nodesValidAt(scope: PartialScope, query: ValidAtQuery): Promise<readonly NodeRecord[]>;
	/** Counts of everything `forgetScope` would remove for this scope. */
	scopeFootprint(scope: PartialScope): Promise<ScopeFootprint>;

	// --- Vault sync (issue 3) ---

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
	mergeNodes?(scope: Scope, inputs: readonly MergeNodeInput[]): Promise<readonly MergeNodeResult[]>;
	/**
	 * `listNodes` reading only the named props (plus id, label, key): what sync needs to know about
	 * every note-backed node without decoding whole nodes. Scalars come back as stored; a list or
	 * map may come back as JSON text. Same filters and order as `listNodes` (`where` included).
	 * Optional: without it, sync uses `listNodes`.
	 */
	listNodeFields?(scope: PartialScope, query: ListNodesQuery & { readonly fields: readonly string[] }): Promise<readonly NodeFields[]>;

	// --- Reflect (issue 6) ---

	/**
	 * The rows of one reflect detector, exactly as src/engine/protocols/reflect-rows.ts defines
	 * them (semantics, order, list caps); [] for a partial scope. Read-only.
	 */
	reflectRows<D extends ReflectDetectorId>(scope: PartialScope, detector: D, params: ReflectParams): Promise<readonly ReflectRowMap[D][]>;

	// --- Search (issue 4) ---

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
