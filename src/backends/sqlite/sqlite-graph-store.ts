import type { GraphCapabilities, GraphStore, HealthReport, ReflectDetectorId, ReflectParams, ReflectRowMap } from "../../engine/backend-kit";
import type { PartialScope, Scope } from "../../engine/types";
import * as admin from "./admin";
import * as bulkSync from "./bulk-sync";
import { roleFacade } from "../role-facade";
import { SqliteStoreContext } from "./store-context";
import * as edges from "./edges";
import * as fulltext from "./fulltext";
import * as namesHistory from "./names-history";
import * as nodes from "./nodes";
import * as passages from "./passages";
import { repairAfterPython } from "./python-file";
import { sqliteReflectRows } from "./reflect-queries";
import { migrate, ownSchemaVersion } from "./schema";
import type { SqliteConnection } from "./sqlite-connection";

/** Rows (edges, passages) a migration rewrites from which it compacts the file right after (smaller files gain little). */
const COMPACT_AFTER_REWRITING = 1000;
/** Nodes per unit when an open finishes an interrupted bulk load's indexes (the read-back grows faster than linearly past a few thousand). */
const DEFERRED_INDEX_SLICE = 2000;

/**
 * The default graph backend: nodes, edges and FTS5 in one SQLite database (WASM, or native in Node).
 * All statements are parameterised; only constant SQL fragments are interpolated. Each role of
 * GraphStore lives in its own module (nodes.ts, edges.ts, fulltext.ts, names-history.ts,
 * bulk-sync.ts, passages.ts, admin.ts, reflect-queries.ts) over one shared SqliteStoreContext
 * (context.ts); the role methods forward to them through `roleFacade` (ROLE_METHODS).
 */
/** The role modules the facade forwards to (ROLE_METHODS picks the methods out of them). */
const ROLES = { ...nodes, ...edges, ...passages, ...fulltext, ...namesHistory, ...bulkSync, ...admin };

export class SqliteGraphStore extends roleFacade<SqliteStoreContext, typeof ROLES>(ROLES) implements GraphStore {
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
		const ctx = new SqliteStoreContext(conn);
		super(ctx);
		this.ctx = ctx;
		this.engine = options.engine ?? "WASM SQLite";
		this.capabilities = { atomicTransactions: true, durable: conn.path !== ":memory:" };
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
		// Passages of nodes another program deleted since the last open still have their words indexed.
		this.ctx.atomic(() => passages.unindexGone(this.ctx));
		// A bulk load that stopped before its fulltext and name index were built (crash, kill).
		while (bulkSync.buildDeferredIndexes(this.ctx, DEFERRED_INDEX_SLICE));
		namesHistory.backfillNameIndex(this.ctx);
		// A migration that rewrote the edges or moved the passage text (v13) leaves the file bigger
		// than before (half-empty pages): compacted once, now (10k notes: ≈2.5 s CPU, 51 → 37 MB;
		// 2,000 notes' passages: 16.9 → 11.1 MB). The migration is committed
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

	// reflect-queries.ts
	async reflectRows<D extends ReflectDetectorId>(scope: PartialScope, detector: D, params: ReflectParams): Promise<readonly ReflectRowMap[D][]> {
		return sqliteReflectRows(this.conn, scope, detector, params);
	}
}
