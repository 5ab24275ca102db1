import type {
	CompactReport,
	Adjacency,
	FulltextQuery,
	GraphCapabilities,
	GraphStore,
	HealthReport,
	HistoryEntry,
	IntegrityCheck,
	IntegrityCheckId,
	ListNodesQuery,
	MergeEdgeInput,
	MergeNodeInput,
	MergeNodesOptions,
	MergeNodeResult,
	NameCandidatesQuery,
	NodeFields,
	NodeHistoryQuery,
	PassageChange,
	PassageHit,
	PassageInput,
	PassageToEmbed,
	ReflectDetectorId,
	ReflectParams,
	ReflectRowMap,
	RekeyNodeInput,
	ScopeFootprint,
	ScopeForgetReport,
	StoredPassage,
	ValidAtQuery,
} from "../../engine/protocols";
import type { Direction, FulltextHit, NeighbourEdge, Neighbourhood, NodeRecord, PartialScope, Props, Scope } from "../../engine/types";
import * as admin from "./admin";
import * as bulkSync from "./bulk-sync";
import { SqliteStoreContext } from "./context";
import * as edges from "./edges";
import * as fulltext from "./fulltext";
import * as namesHistory from "./names-history";
import * as nodes from "./nodes";
import * as passages from "./passages";
import { repairAfterPython } from "./python-file";
import { sqliteReflectRows } from "./reflect-queries";
import { migrate, ownSchemaVersion } from "./schema";
import type { SqliteConnection } from "./wasm/sqlite-connection";

/** Edge rows a migration rewrites from which it compacts the file right after (smaller files gain little). */
const COMPACT_AFTER_REWRITING = 1000;
/** Nodes per unit when an open finishes an interrupted bulk load's indexes (the read-back grows faster than linearly past a few thousand). */
const DEFERRED_INDEX_SLICE = 2000;

/**
 * The default graph backend: nodes, edges and FTS5 in one SQLite database (WASM, or native in Node).
 * All statements are parameterised; only constant SQL fragments are interpolated. Each role of
 * GraphStore lives in its own module (nodes.ts, edges.ts, fulltext.ts, names-history.ts,
 * bulk-sync.ts, admin.ts, reflect-queries.ts) over one shared SqliteStoreContext (context.ts).
 */
export class SqliteGraphStore implements GraphStore {
	readonly name = "sqlite";
	readonly capabilities: GraphCapabilities;
	private closed = false;
	private readonly ctx: SqliteStoreContext;

	/** Which SQLite engine runs (for health), e.g. "native SQLite 3.50.4 (…)". */
	readonly engine: string;

	constructor(
		private readonly conn: SqliteConnection,
		options: { engine?: string } = {},
	) {
		this.engine = options.engine ?? "WASM SQLite";
		this.capabilities = { atomicTransactions: true, durable: conn.path !== ":memory:" };
		this.ctx = new SqliteStoreContext(conn);
	}

	async init(): Promise<void> {
		this.conn.exec("PRAGMA foreign_keys = ON");
		// Temp tables and sorts in memory, not in temp files through the VFS (reflect's snapshot uses them).
		this.conn.exec("PRAGMA temp_store = MEMORY");
		// Deleted and overwritten content is zeroed, not left in the file's free space: a hard delete
		// or a GDPR forget must not stay readable with a hex editor.
		this.conn.exec("PRAGMA secure_delete = ON");
		const rewritten = migrate(this.conn);
		repairAfterPython(this.conn);
		// A bulk load that stopped before its fulltext and name index were built (crash, kill).
		while (bulkSync.buildDeferredIndexes(this.ctx, DEFERRED_INDEX_SLICE));
		namesHistory.backfillNameIndex(this.ctx);
		// A migration that rewrote the edges leaves the file bigger than before (half-empty pages):
		// compacted once, now (10k notes: ≈2.5 s CPU, 51 → 37 MB). The migration is committed
		// already, so a failed VACUUM (disk full) only leaves the file as big as it was.
		if (rewritten >= COMPACT_AFTER_REWRITING) {
			try {
				await admin.compact(this.ctx);
			} catch (error) {
				console.error("Engrama: compacting the memory file after its upgrade failed; `engrama compact` retries", error);
			}
		}
	}

	async close(): Promise<void> {
		if (this.closed) return;
		this.closed = true;
		// Snapshot mode: the last snapshot is written before close resolves, so a new instance that
		// opens right after (a plugin reload on mobile) reads it. Files: nothing to wait for.
		try {
			await this.conn.flush();
		} catch (error) {
			console.error("Engrama: writing the last snapshot failed; closing anyway", error);
		}
		this.conn.close();
	}

	/** The connection, for the vector store that shares the same file. */
	connection(): SqliteConnection {
		return this.conn;
	}

	async health(): Promise<HealthReport> {
		try {
			const nodes = this.conn.get<{ n: number }>("SELECT count(*) AS n FROM nodes")?.n ?? 0;
			const edges = this.conn.get<{ n: number }>("SELECT count(*) AS n FROM edges")?.n ?? 0;
			const schemaVersion = ownSchemaVersion(this.conn);
			return { ok: true, backend: this.name, nodes: Number(nodes), edges: Number(edges), schemaVersion, detail: this.conn.path, engine: this.engine };
		} catch (error) {
			return { ok: false, backend: this.name, detail: error instanceof Error ? error.message : String(error) };
		}
	}

	transaction<T>(fn: () => Promise<T>): Promise<T> {
		return this.ctx.transaction(fn);
	}

	/** Internal row ids of the given engrama ids (for the vector store on the same file). */
	rowIds(scope: Scope, ids: readonly string[]): Map<string, number> {
		return this.ctx.rowIds(scope, ids);
	}

	// nodes.ts
	mergeNode(scope: Scope, input: MergeNodeInput): Promise<MergeNodeResult> {
		return nodes.mergeNode(this.ctx, scope, input);
	}

	getNode(scope: PartialScope, label: string, key: string): Promise<NodeRecord | null> {
		return nodes.getNode(this.ctx, scope, label, key);
	}

	getNodeById(scope: PartialScope, id: string): Promise<NodeRecord | null> {
		return nodes.getNodeById(this.ctx, scope, id);
	}

	idsOutsideScope(scope: Scope, ids: readonly string[]): Promise<ReadonlySet<string>> {
		return nodes.idsOutsideScope(this.ctx, scope, ids);
	}

	findByKey(scope: PartialScope, key: string): Promise<readonly NodeRecord[]> {
		return nodes.findByKey(this.ctx, scope, key);
	}

	updateNode(scope: Scope, id: string, set: Props, unset: readonly string[], now: string): Promise<NodeRecord | null> {
		return nodes.updateNode(this.ctx, scope, id, set, unset, now);
	}

	deleteNode(scope: Scope, id: string): Promise<boolean> {
		return nodes.deleteNode(this.ctx, scope, id);
	}

	listNodes(scope: PartialScope, query: ListNodesQuery): Promise<readonly NodeRecord[]> {
		return nodes.listNodes(this.ctx, scope, query);
	}

	labelCounts(scope: PartialScope): Promise<Readonly<Record<string, number>>> {
		return nodes.labelCounts(this.ctx, scope);
	}

	counts(scope: PartialScope): Promise<{ readonly nodes: number; readonly edges: number }> {
		return nodes.counts(this.ctx, scope);
	}

	// edges.ts
	mergeEdge(scope: Scope, input: MergeEdgeInput): Promise<{ readonly created: boolean }> {
		return edges.mergeEdge(this.ctx, scope, input);
	}

	deleteEdge(scope: Scope, fromId: string, type: string, toId: string): Promise<boolean> {
		return edges.deleteEdge(this.ctx, scope, fromId, type, toId);
	}

	edgesOf(scope: PartialScope, id: string, direction: Direction, types?: readonly string[]): Promise<readonly NeighbourEdge[]> {
		return edges.edgesOf(this.ctx, scope, id, direction, types);
	}

	neighbourhood(scope: PartialScope, id: string, hops: number, fanOutCap: number): Promise<Neighbourhood | null> {
		return edges.neighbourhood(this.ctx, scope, id, hops, fanOutCap);
	}

	adjacency(scope: PartialScope, ids: readonly string[], cap: number): Promise<ReadonlyMap<string, Adjacency>> {
		return edges.adjacency(this.ctx, scope, ids, cap);
	}

	// passages.ts
	async writePassages(scope: Scope, nodeId: string, input: readonly PassageInput[]): Promise<PassageChange> {
		return passages.writePassages(this.ctx, scope, nodeId, input);
	}

	async hasPassages(scope: PartialScope): Promise<boolean> {
		return passages.hasPassages(this.ctx, scope);
	}

	async passagesOf(scope: PartialScope, nodeId: string): Promise<readonly StoredPassage[]> {
		return passages.passagesOf(this.ctx, scope, nodeId);
	}

	async searchPassages(scope: PartialScope, query: FulltextQuery): Promise<readonly PassageHit[]> {
		return passages.searchPassages(this.ctx, scope, query);
	}

	async upsertPassageVectors(_scope: Scope, vectors: readonly { readonly passageId: string; readonly vector: Float32Array }[]): Promise<void> {
		passages.upsertPassageVectors(this.ctx, vectors);
	}

	async passageKnn(scope: PartialScope, vector: Float32Array, k: number): Promise<readonly PassageHit[]> {
		return passages.passageKnn(this.ctx, scope, vector, k);
	}

	async passagesWithoutVectors(scope: Scope, limit: number): Promise<readonly PassageToEmbed[]> {
		return passages.passagesWithoutVectors(this.ctx, scope, limit);
	}

	async countPassagesWithoutVectors(scope: Scope): Promise<number> {
		return passages.countPassagesWithoutVectors(this.ctx, scope);
	}

	// fulltext.ts
	fulltext(scope: PartialScope, query: FulltextQuery): Promise<readonly FulltextHit[]> {
		return fulltext.fulltext(this.ctx, scope, query);
	}

	// names-history.ts
	nameCandidates(scope: PartialScope, query: NameCandidatesQuery): Promise<readonly NodeRecord[]> {
		return namesHistory.nameCandidates(this.ctx, scope, query);
	}

	recordHistory(scope: Scope, entries: readonly HistoryEntry[]): Promise<void> {
		return namesHistory.recordHistory(this.ctx, scope, entries);
	}

	nodeHistory(scope: PartialScope, nodeId: string, query: NodeHistoryQuery): Promise<readonly HistoryEntry[]> {
		return namesHistory.nodeHistory(this.ctx, scope, nodeId, query);
	}

	nodesValidAt(scope: PartialScope, query: ValidAtQuery): Promise<readonly NodeRecord[]> {
		return namesHistory.nodesValidAt(this.ctx, scope, query);
	}

	// bulk-sync.ts
	rekeyNode(scope: Scope, id: string, input: RekeyNodeInput): Promise<NodeRecord | null> {
		return bulkSync.rekeyNode(this.ctx, scope, id, input);
	}

	mergeNodes(scope: Scope, inputs: readonly MergeNodeInput[], options?: MergeNodesOptions): Promise<readonly MergeNodeResult[]> {
		return bulkSync.mergeNodes(this.ctx, scope, inputs, options);
	}

	async buildDeferredIndexes(limit: number): Promise<boolean> {
		return bulkSync.buildDeferredIndexes(this.ctx, limit);
	}

	mergeEdges(scope: Scope, inputs: readonly MergeEdgeInput[]): Promise<{ readonly created: number }> {
		return bulkSync.mergeEdges(this.ctx, scope, inputs);
	}

	listNodeFields(scope: PartialScope, query: ListNodesQuery & { readonly fields: readonly string[] }): Promise<readonly NodeFields[]> {
		return bulkSync.listNodeFields(this.ctx, scope, query);
	}

	// admin.ts
	checkIntegrity(): Promise<readonly IntegrityCheck[]> {
		return admin.checkIntegrity(this.ctx);
	}

	repairIntegrity(): Promise<Partial<Record<IntegrityCheckId, number>>> {
		return admin.repairIntegrity(this.ctx);
	}

	forgetScope(scope: Scope): Promise<ScopeForgetReport> {
		return admin.forgetScope(this.ctx, scope);
	}

	scopeFootprint(scope: PartialScope): Promise<ScopeFootprint> {
		return admin.scopeFootprint(this.ctx, scope);
	}

	getMeta(key: string): Promise<string | null> {
		return admin.getMeta(this.ctx, key);
	}

	setMeta(key: string, value: string): Promise<void> {
		return admin.setMeta(this.ctx, key, value);
	}

	deleteMeta(key: string): Promise<void> {
		return admin.deleteMeta(this.ctx, key);
	}

	listScopes(): Promise<readonly Scope[]> {
		return admin.listScopes(this.ctx);
	}

	listMeta(): Promise<readonly (readonly [string, string])[]> {
		return admin.listMeta(this.ctx);
	}

	purgeDeleted(): Promise<void> {
		return admin.purgeDeleted(this.ctx);
	}

	compact(): Promise<CompactReport> {
		return admin.compact(this.ctx);
	}

	// reflect-queries.ts
	async reflectRows<D extends ReflectDetectorId>(scope: PartialScope, detector: D, params: ReflectParams): Promise<readonly ReflectRowMap[D][]> {
		return sqliteReflectRows(this.conn, scope, detector, params);
	}
}
