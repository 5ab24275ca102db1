// SqliteConnection over a native SQLite database (better-sqlite3): statement cache, parameter
// names as the WASM connection takes them, nested transactions as savepoints, errors as SqliteError.
import type { RunResult, SqlParams, SqliteConnection, SqlValue } from "../sqlite-connection";
import { SqliteError } from "../wasm/errors";
import { Savepoints } from "../savepoints";
import type { NativeDatabase, NativeSqliteError, NativeStatement } from "./native-api";

// Dynamic SQL (e.g. `IN (?, ?, ?)` of varying length) must not grow the cache without bound.
const STATEMENT_CACHE_SIZE = 256;
const PARAM_PREFIX = /^[:@$]/;

export interface NativeConnectionHooks {
	/** `clean`: the database closed without error and no statement met a damaged page or an I/O error. */
	afterClose?(clean: boolean): void;
}

/** Result codes that say the file may be damaged: the next open checks it fully (check-stamp.ts). */
const DAMAGE_CODE = /^SQLITE_(CORRUPT|NOTADB|IOERR)/;

export class NativeConnection implements SqliteConnection {
	private readonly statements = new Map<string, NativeStatement>();
	private readonly savepoints = new Savepoints({ control: (sql) => this.control(sql), inTransaction: () => this.db.inTransaction });
	private closed = false;
	private metDamage = false;

	constructor(
		private readonly db: NativeDatabase,
		readonly path: string,
		private readonly hooks: NativeConnectionHooks = {},
	) {}

	exec(sql: string): void {
		this.assertOpen(sql);
		this.guard(sql, () => this.db.exec(sql));
	}

	run(sql: string, params?: SqlParams): RunResult {
		return this.withStatement(sql, params, (stmt, args) => {
			// Also drains a statement that returns rows (RETURNING, a PRAGMA).
			const result = stmt.run(...args);
			return { changes: result.changes, lastInsertRowid: Number(result.lastInsertRowid) };
		});
	}

	all<T = Record<string, SqlValue>>(sql: string, params?: SqlParams): T[] {
		return this.withStatement(sql, params, (stmt, args) => {
			if (stmt.reader) return stmt.all(...args) as T[];
			stmt.run(...args);
			return [];
		});
	}

	get<T = Record<string, SqlValue>>(sql: string, params?: SqlParams): T | undefined {
		return this.withStatement(sql, params, (stmt, args) => {
			if (stmt.reader) return stmt.get(...args) as T | undefined;
			stmt.run(...args);
			return undefined;
		});
	}

	transaction<T>(fn: () => T): T {
		this.assertOpen("transaction()");
		return this.savepoints.run(fn);
	}

	flush(): Promise<void> {
		// Every commit is already in the fsynced WAL (synchronous = FULL).
		return Promise.resolve();
	}

	close(): void {
		if (this.closed) return;
		this.closed = true;
		this.statements.clear();
		let clean = false;
		try {
			// The last connection to close checkpoints the WAL into the file and removes it and -shm.
			this.db.close();
			clean = !this.metDamage;
		} finally {
			this.hooks.afterClose?.(clean);
		}
	}

	private withStatement<R>(sql: string, params: SqlParams | undefined, use: (stmt: NativeStatement, args: unknown[]) => R): R {
		this.assertOpen(sql);
		return this.guard(sql, () => use(this.statement(sql), bindArgs(params)));
	}

	private statement(sql: string): NativeStatement {
		const hit = this.statements.get(sql);
		if (hit) {
			// Re-insert so the Map's order is least-recently-used first.
			this.statements.delete(sql);
			this.statements.set(sql, hit);
			return hit;
		}
		const stmt = this.db.prepare(sql);
		this.statements.set(sql, stmt);
		if (this.statements.size > STATEMENT_CACHE_SIZE) {
			// better-sqlite3 finalises a statement when it is garbage-collected.
			this.statements.delete(this.statements.keys().next().value as string);
		}
		return stmt;
	}

	private control(sql: string): void {
		this.guard(sql, () => this.statement(sql).run());
	}


	private guard<R>(sql: string, action: () => R): R {
		try {
			return action();
		} catch (error) {
			if (isNativeError(error) && DAMAGE_CODE.test(error.code)) this.metDamage = true;
			throw toSqliteError(error, sql);
		}
	}

	private assertOpen(what: string): void {
		if (this.closed) throw new Error(`Database ${this.path} is closed; cannot run ${what.slice(0, 80)}`);
	}
}

/** better-sqlite3 takes positional values as arguments and named ones as one object of bare names. */
function bindArgs(params: SqlParams | undefined): unknown[] {
	if (params === undefined) return [];
	if (Array.isArray(params)) return (params as readonly SqlValue[]).map(bindable);
	const named: Record<string, SqlValue> = {};
	for (const [key, value] of Object.entries(params as Record<string, SqlValue>)) named[key.replace(PARAM_PREFIX, "")] = bindable(value);
	return [named];
}

/**
 * better-sqlite3 binds every JS number as a REAL; the WASM API binds whole numbers as INTEGER. As
 * REALs, vec0 refuses them as row ids and json_set() writes 5 as 5.0, so whole numbers go as BigInt.
 */
function bindable(value: SqlValue): SqlValue {
	return typeof value === "number" && Number.isSafeInteger(value) ? BigInt(value) : value;
}

function toSqliteError(error: unknown, sql: string): unknown {
	if (error instanceof SqliteError || !isNativeError(error)) return error;
	return new SqliteError(error.message, sql, undefined, { cause: error });
}

function isNativeError(error: unknown): error is NativeSqliteError {
	return error instanceof Error && error.name === "SqliteError" && typeof (error as { code?: unknown }).code === "string";
}
