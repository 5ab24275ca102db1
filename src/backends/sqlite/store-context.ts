import type { Adjacency, AdjacentNode } from "../../engine/backend-kit";
import type { PropValue, Scope } from "../../engine/types";
import { DEFAULT_FULLTEXT_TUNING, type FtsTable, SqliteFulltext } from "./fulltext";
import { NODE_COLS, SCOPE_WHERE, missingEndpoint, scopeParams } from "./rows";
import { ID_EXPR, type NodeRow } from "./schema";
import type { SqliteConnection } from "./sqlite-connection";

/** The passages' FTS table (schema 11): one column, the passage's indexed text. */
export const PASSAGES_FTS: FtsTable = {
	fts: "passages_fts",
	vocab: "passages_fts_vocab",
	bm25: "bm25(passages_fts)",
	count: "SELECT count(*) AS n FROM note_passages",
};

/** Ids of rows without an engrama_id (a Python-made node): `sqlite-<row id>`. */
const LEGACY_ID = /^sqlite-(\d+)$/;

// Entries of the engrama_id → row id cache (a few MB at most).
export const ROW_ID_CACHE_SIZE = 200_000;

/**
 * What the SQLite store's role modules share: the connection, the savepoint depth and the caches
 * every write must keep true (row ids, the graph rerank's neighbour lists), and the row lookups.
 */
export class SqliteStoreContext {
	depth = 0;

	/**
	 * engrama_id → row id (and scope) of nodes this store created or looked up, so bulk edge writes
	 * do not look up the same endpoints batch after batch. Only this store changes nodes in this
	 * file (the lock file keeps other writers out); it forgets an id when the node is deleted or
	 * re-identified, and everything on a rollback, on forgetScope or past a size bound.
	 */
	readonly knownRows = new Map<string, { readonly rowId: number; readonly orgId: string; readonly userId: string }>();

	readonly fulltextIndex: SqliteFulltext;

	/** The same planner over the passages of notes (passages.ts). */
	readonly passageIndex: SqliteFulltext;

	/**
	 * The graph rerank's reads, kept between searches: neighbour lists by scope and node, and
	 * neighbours' names and degrees by row id. Every write starts with a savepoint, which empties
	 * both (as does a rollback), so they never outlive the rows they were read from.
	 */
	readonly adjacencyCache = new Map<string, Adjacency>();

	readonly neighbourCache = new Map<string, AdjacentNode>();

	/**
	 * Savepoints through the connection's cached statements: `exec` would prepare and finalise
	 * SAVEPOINT/RELEASE on every call (≈0.1–0.2 ms a pair in WASM, paid by every write).
	 */
	savepoint(): string {
		this.forgetAdjacency();
		const name = `sp${this.depth}`;
		this.conn.run(`SAVEPOINT ${name}`);
		this.depth++;
		return name;
	}

	release(name: string): void {
		// Only once it succeeded: a failed outermost RELEASE (the commit: disk full, a write
		// refused) leaves the savepoint open for the caller's rollbackTo().
		this.conn.run(`RELEASE ${name}`);
		this.depth--;
	}

	rollbackTo(name: string): void {
		// Rows inserted since the savepoint vanish and their row ids may be given out again.
		this.knownRows.clear();
		this.forgetAdjacency();
		this.depth--;
		this.conn.run(`ROLLBACK TO ${name}`);
		this.conn.run(`RELEASE ${name}`);
	}

	/** Runs sync work atomically: a savepoint nests inside an open transaction, or starts one. */
	atomic<T>(work: () => T): T {
		const name = this.savepoint();
		try {
			const result = work();
			this.release(name);
			return result;
		} catch (error) {
			this.rollbackTo(name);
			throw error;
		}
	}

	async transaction<T>(fn: () => Promise<T>): Promise<T> {
		const name = this.savepoint();
		try {
			const result = await fn();
			this.release(name);
			return result;
		} catch (error) {
			this.rollbackTo(name);
			throw error;
		}
	}

	rowById(scope: Scope, id: string): NodeRow | undefined {
		const legacy = LEGACY_ID.exec(id);
		if (legacy) {
			return this.conn.get<NodeRow>(`SELECT ${NODE_COLS} FROM nodes WHERE id = ? AND ${SCOPE_WHERE}`, [
				Number(legacy[1]),
				...scopeParams(scope),
			]);
		}
		return this.conn.get<NodeRow>(`SELECT ${NODE_COLS} FROM nodes WHERE ${ID_EXPR} = ? AND ${SCOPE_WHERE}`, [
			id,
			...scopeParams(scope),
		]);
	}

	rowByKey(scope: Scope, label: string, key: string): NodeRow | undefined {
		return this.conn.get<NodeRow>(
			`SELECT ${NODE_COLS} FROM nodes WHERE label = ? AND key_value = ? AND ${SCOPE_WHERE}`,
			[label, key, ...scopeParams(scope)],
		);
	}

	requireRow(scope: Scope, id: string, role: string): NodeRow {
		const row = this.rowById(scope, id);
		if (!row) throw missingEndpoint(role, id);
		return row;
	}

	rememberRowId(scope: Scope, id: PropValue | undefined, rowId: number): void {
		if (typeof id !== "string") return;
		if (this.knownRows.size >= ROW_ID_CACHE_SIZE) this.knownRows.clear();
		this.knownRows.set(id, { rowId, orgId: scope.orgId, userId: scope.userId });
	}

	forgetRowId(id: PropValue | undefined): void {
		if (typeof id === "string") this.knownRows.delete(id);
	}

	forgetAdjacency(): void {
		this.adjacencyCache.clear();
		this.neighbourCache.clear();
	}

	/**
	 * Internal row ids of the given engrama ids in the scope, in the order given (for the vector
	 * store on the same file, and the graph rerank's neighbour lists: a search's window of 20–60
	 * ids read in one statement rather than one each).
	 */
	rowIds(scope: Scope, ids: readonly string[]): Map<string, number> {
		const plain = ids.length > 1 ? [...new Set(ids.filter((id) => !LEGACY_ID.test(id)))] : [];
		const found = new Map<string, number>();
		if (plain.length > 0) {
			const rows = this.conn.all<{ eid: string; id: number }>(
				`SELECT ${ID_EXPR} AS eid, nodes.id AS id FROM json_each(?) j CROSS JOIN nodes ON ${ID_EXPR} = j.value WHERE ${SCOPE_WHERE}`,
				[JSON.stringify(plain), ...scopeParams(scope)],
			);
			for (const row of rows) found.set(row.eid, row.id);
		}
		const out = new Map<string, number>();
		for (const id of ids) {
			const rowId = plain.length > 0 && !LEGACY_ID.test(id) ? found.get(id) : this.rowById(scope, id)?.id;
			if (rowId !== undefined) out.set(id, rowId);
		}
		return out;
	}

	constructor(readonly conn: SqliteConnection) {
		this.fulltextIndex = new SqliteFulltext(conn);
		this.passageIndex = new SqliteFulltext(conn, DEFAULT_FULLTEXT_TUNING, PASSAGES_FTS);
	}
}
