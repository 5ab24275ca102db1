import type { PartialScope, Scope } from "../types";

export interface HealthReport {
	readonly ok: boolean;
	readonly backend: string;
	readonly detail?: string;
	readonly nodes?: number;
	readonly edges?: number;
	/** The stored layout's version where the backend records one (SQLite: engrama_meta.schema_version). */
	readonly schemaVersion?: number;
	/** The engine beneath, where a backend has more than one (SQLite: native or WASM, and its version). */
	readonly engine?: string;
}

/** The file's bytes before and after a compact. */
export interface CompactReport {
	readonly bytesBefore: number;
	readonly bytesAfter: number;
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
	/**
	 * mergeNode honours `MergeNodeInput.onlyIfNew`: its MERGE tells whether the node is stored, so
	 * a write need not read it first (a round trip on Neo4j, where a read costs one).
	 */
	readonly mergeTellsStored?: boolean;
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
	/** Passages of notes removed, with their words and vectors (0 or absent where the store keeps none). */
	readonly passages?: number;
}

/** Every row a scope owns in the graph store, for a GDPR dry run. */
export interface ScopeFootprint {
	readonly nodes: number;
	readonly edges: number;
	readonly fulltext: number;
	readonly history: number;
	readonly nameIndex: number;
	/** Passages of notes (absent where the store keeps none). */
	readonly passages?: number;
}

/** The store as a whole: lifecycle, transactions, settings, GDPR forget and integrity checks. */
export interface StoreAdmin {
	readonly name: string;
	readonly capabilities: GraphCapabilities;
	init(): Promise<void>;
	close(): Promise<void>;
	health(): Promise<HealthReport>;

	/** Runs `fn` as one unit (atomic where capabilities.atomicTransactions). */
	transaction<T>(fn: () => Promise<T>): Promise<T>;

	/** Removes every node and edge of the scope (GDPR). */
	forgetScope(scope: Scope): Promise<ScopeForgetReport>;

	/** Small persistent settings of the memory itself (standalone identity, counters). */
	getMeta(key: string): Promise<string | null>;
	setMeta(key: string, value: string): Promise<void>;
	/** Removes a setting (a GDPR forget removes the caller's counters). */
	deleteMeta(key: string): Promise<void>;
	/**
	 * Whole-memory reads for `engrama export` and `engrama migrate`, every tenant: the scopes that
	 * hold nodes (ordered by org, then user) and every setting of the memory (ordered by key; not
	 * the store's own, such as a SQLite file's schema version). Never a query path.
	 */
	listScopes?(): Promise<readonly Scope[]>;
	listMeta?(): Promise<readonly (readonly [string, string])[]>;
	/**
	 * Makes what was deleted unrecoverable from the backend's files where it can (after an erase:
	 * GDPR forget, hard forget, TTL expiry; outside any transaction): SQLite merges its fulltext
	 * segments (a deleted row's terms stay in them until merged), then checkpoints and empties its
	 * write-ahead log.
	 */
	purgeDeleted?(): Promise<void>;
	/**
	 * Rewrites the backend's files without their free space (SQLite: VACUUM, then an empty
	 * write-ahead log), outside any transaction; nothing stored changes. Optional: Neo4j manages its
	 * own store files, so it has none.
	 */
	compact?(): Promise<CompactReport>;

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
	/** Counts of everything `forgetScope` would remove for this scope. */
	scopeFootprint(scope: PartialScope): Promise<ScopeFootprint>;
}
