// SqliteConnection over an open sqlite3.oo1.DB: statement cache, parameter binding, transactions.
import type { Sqlite3Db, Sqlite3Exports, Sqlite3Static, Sqlite3Stmt } from "./sqlite3-api";
import type { RunResult, SqlParams, SqliteConnection, SqlValue } from "../sqlite-connection";
import { SqliteError } from "./errors";
import { Savepoints } from "../savepoints";

/** Where the connection's owner (file, memory or snapshot mode) plugs in. */
export interface ConnectionHooks {
	/** After a statement that may have written. */
	afterWrite?(): void;
	/** Extra detail for I/O errors, e.g. the file system error behind SQLITE_IOERR. */
	describeIoError?(): string | undefined;
	beforeClose?(): void;
	/** `clean`: the database closed without error and no statement met a damaged page or an I/O error. */
	afterClose?(clean: boolean): void;
	flush?(): Promise<void>;
}

interface CachedStatement {
	readonly stmt: Sqlite3Stmt;
	readonly columns: readonly string[];
	readonly writes: boolean;
	readonly paramNames: Map<string, string>;
}

// Dynamic SQL (e.g. `IN (?, ?, ?)` of varying length) must not grow the cache without bound.
const STATEMENT_CACHE_SIZE = 256;
const PARAM_PREFIXES = [":", "@", "$"] as const;

export class Oo1Connection implements SqliteConnection {
	private readonly statements = new Map<string, CachedStatement>();
	private readonly savepoints = new Savepoints({ control: (sql) => this.control(sql), inTransaction: () => this.inTransaction() });
	private closed = false;
	/** A statement failed with SQLITE_CORRUPT, SQLITE_NOTADB or SQLITE_IOERR: the file may be damaged. */
	private metDamage = false;
	private readonly readRow: (stmt: Sqlite3Stmt, columns: readonly string[]) => Record<string, SqlValue>;

	constructor(
		private readonly sqlite3: Sqlite3Static,
		private readonly db: Sqlite3Db,
		readonly path: string,
		private readonly hooks: ConnectionHooks = {},
	) {
		this.readRow = rowReader(sqlite3);
	}

	exec(sql: string): void {
		this.guard(sql, () => this.db.exec(sql));
		this.hooks.afterWrite?.();
	}

	run(sql: string, params?: SqlParams): RunResult {
		return this.withStatement(sql, params, (stmt) => {
			while (stmt.step()) {
				// Drain rows (e.g. RETURNING) so the statement completes.
			}
			const rowid = this.sqlite3.capi.sqlite3_last_insert_rowid(this.db);
			return { changes: Number(this.db.changes()), lastInsertRowid: Number(rowid) };
		});
	}

	all<T = Record<string, SqlValue>>(sql: string, params?: SqlParams): T[] {
		return this.withStatement(sql, params, (stmt, columns) => {
			const rows: T[] = [];
			while (stmt.step()) rows.push(this.readRow(stmt, columns) as T);
			return rows;
		});
	}

	get<T = Record<string, SqlValue>>(sql: string, params?: SqlParams): T | undefined {
		return this.withStatement(sql, params, (stmt, columns) =>
			stmt.step() ? (this.readRow(stmt, columns) as T) : undefined,
		);
	}

	transaction<T>(fn: () => T): T {
		this.assertOpen("transaction()");
		return this.savepoints.run(fn);
	}

	flush(): Promise<void> {
		return this.hooks.flush?.() ?? Promise.resolve();
	}

	close(): void {
		if (this.closed) return;
		try {
			this.hooks.beforeClose?.();
		} finally {
			this.closed = true;
			for (const { stmt } of this.statements.values()) stmt.finalize();
			this.statements.clear();
			let clean = false;
			try {
				this.db.close();
				clean = !this.metDamage;
			} finally {
				this.hooks.afterClose?.(clean);
			}
		}
	}

	/** For the owner (snapshot export): did a statement meet a damaged page or an I/O error? */
	damageMet(): boolean {
		return this.metDamage;
	}

	/** For the owner (snapshot export): is a transaction open right now? */
	inTransaction(): boolean {
		return !this.closed && this.sqlite3.capi.sqlite3_get_autocommit(this.db) === 0;
	}

	private withStatement<R>(sql: string, params: SqlParams | undefined, use: (stmt: Sqlite3Stmt, columns: readonly string[]) => R): R {
		this.assertOpen(sql);
		const cached = this.guard(sql, () => this.prepare(sql));
		try {
			return this.guard(sql, () => {
				if (params !== undefined) this.bind(cached, params);
				return use(cached.stmt, cached.columns);
			});
		} finally {
			resetQuietly(cached.stmt);
			if (cached.writes) this.hooks.afterWrite?.();
		}
	}

	private prepare(sql: string): CachedStatement {
		const hit = this.statements.get(sql);
		if (hit) {
			// Re-insert so the Map's order is least-recently-used first.
			this.statements.delete(sql);
			this.statements.set(sql, hit);
			return hit;
		}
		const stmt = this.db.prepare(sql);
		const { capi } = this.sqlite3;
		const entry: CachedStatement = {
			stmt,
			columns: stmt.columnCount > 0 ? stmt.getColumnNames([]) : [],
			writes: capi.sqlite3_stmt_readonly(stmt.pointer) === 0,
			paramNames: new Map(),
		};
		this.statements.set(sql, entry);
		if (this.statements.size > STATEMENT_CACHE_SIZE) {
			const [oldestSql, oldest] = this.statements.entries().next().value as [string, CachedStatement];
			this.statements.delete(oldestSql);
			oldest.stmt.finalize();
		}
		return entry;
	}

	private bind(cached: CachedStatement, params: SqlParams): void {
		if (Array.isArray(params)) {
			if (params.length > 0) cached.stmt.bind(params);
			return;
		}
		const named: Record<string, SqlValue> = {};
		for (const [key, value] of Object.entries(params as Record<string, SqlValue>)) {
			named[this.parameterName(cached, key)] = value;
		}
		if (Object.keys(named).length > 0) cached.stmt.bind(named);
	}

	private parameterName(cached: CachedStatement, key: string): string {
		const known = cached.paramNames.get(key);
		if (known) return known;
		const { capi } = this.sqlite3;
		const candidates = PARAM_PREFIXES.some((p) => key.startsWith(p)) ? [key] : PARAM_PREFIXES.map((p) => p + key);
		const name = candidates.find((c) => capi.sqlite3_bind_parameter_index(cached.stmt.pointer, c) > 0) ?? candidates[0];
		cached.paramNames.set(key, name);
		return name;
	}

	private control(sql: string): void {
		this.guard(sql, () => this.db.exec(sql));
	}


	private guard<R>(sql: string, action: () => R): R {
		try {
			return action();
		} catch (error) {
			throw this.toSqliteError(error, sql);
		}
	}

	private toSqliteError(error: unknown, sql: string): unknown {
		if (error instanceof SqliteError || !(error instanceof this.sqlite3.SQLite3Error)) return error;
		const resultCode = error.resultCode;
		let message = error.message.replace(/sqlite3 result code \d+: /, "");
		const primary = resultCode === undefined ? undefined : resultCode & 0xff;
		const { SQLITE_CORRUPT, SQLITE_NOTADB, SQLITE_IOERR } = this.sqlite3.capi;
		if (primary === SQLITE_CORRUPT || primary === SQLITE_NOTADB || primary === SQLITE_IOERR) this.metDamage = true;
		if (primary === SQLITE_IOERR) {
			const detail = this.hooks.describeIoError?.();
			if (detail) message += ` (${detail})`;
		}
		return new SqliteError(message, sql, resultCode, { cause: error });
	}

	private assertOpen(what: string): void {
		if (this.closed) throw new Error(`Database ${this.path} is closed; cannot run ${what.slice(0, 80)}`);
	}
}

const SQLITE_INTEGER = 1;
const SQLITE_FLOAT = 2;
const SQLITE_TEXT = 3;
const SQLITE_NULL = 5;
const utf8 = new TextDecoder();

/**
 * Reads the current row straight from the WASM exports: `Stmt.get` goes through argument checks,
 * the wrapper layer and a C-string scan for every column, which was the largest single cost of a
 * search (docs/benchmarks-mcp.md). Blobs and integers beyond 2^53 still take `Stmt.get`.
 */
function rowReader(sqlite3: Sqlite3Static): (stmt: Sqlite3Stmt, columns: readonly string[]) => Record<string, SqlValue> {
	const ex: Partial<Sqlite3Exports> = sqlite3.wasm.exports ?? {};
	const { sqlite3_column_type: type, sqlite3_column_double: double, sqlite3_column_text: text, sqlite3_column_bytes: bytes } = ex;
	if (!type || !double || !text || !bytes) return (stmt, columns) => readRowSlow(stmt, columns);
	return (stmt, columns) => {
		const p = stmt.pointer;
		const row: Record<string, SqlValue> = {};
		for (let i = 0; i < columns.length; i++) {
			let value: SqlValue;
			switch (type(p, i)) {
				case SQLITE_NULL:
					value = null;
					break;
				case SQLITE_TEXT: {
					// Text first, then its length (the order SQLite documents).
					const at = text(p, i);
					value = utf8.decode(sqlite3.wasm.heap8u().subarray(at, at + bytes(p, i)));
					break;
				}
				case SQLITE_FLOAT:
					value = double(p, i);
					break;
				case SQLITE_INTEGER: {
					const n = double(p, i);
					value = Number.isSafeInteger(n) ? n : (stmt.get(i) as SqlValue);
					break;
				}
				default:
					value = stmt.get(i) as SqlValue;
			}
			row[columns[i]] = value;
		}
		return row;
	};
}

function readRowSlow(stmt: Sqlite3Stmt, columns: readonly string[]): Record<string, SqlValue> {
	const row: Record<string, SqlValue> = {};
	for (let i = 0; i < columns.length; i++) row[columns[i]] = stmt.get(i) as SqlValue;
	return row;
}

function resetQuietly(stmt: Sqlite3Stmt): void {
	try {
		stmt.reset(true);
	} catch {
		// reset() re-reports the error of the failed step, which the caller already received.
	}
}
