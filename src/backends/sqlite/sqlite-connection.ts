// The one database API the rest of Engrama uses (opened by openDatabase, open-database.ts); nothing
// outside this folder touches sqlite3.oo1.
import type { SnapshotStorage } from "./wasm/snapshot-storage";

export type SqlValue = string | number | bigint | null | Uint8Array;
export type SqlParams = readonly SqlValue[] | Record<string, SqlValue>;

export interface RunResult {
	readonly changes: number;
	readonly lastInsertRowid: number;
}

export interface SqliteConnection {
	/** File path, or ":memory:". */
	readonly path: string;
	/** Runs one or more statements without parameters (DDL, pragmas). */
	exec(sql: string): void;
	/** Runs one statement. Named parameters may be given with or without their `:`/`@`/`$` prefix. */
	run(sql: string, params?: SqlParams): RunResult;
	all<T = Record<string, SqlValue>>(sql: string, params?: SqlParams): T[];
	get<T = Record<string, SqlValue>>(sql: string, params?: SqlParams): T | undefined;
	/**
	 * Runs `fn` in BEGIN IMMEDIATE … COMMIT, rolling back if it throws; nested calls use SAVEPOINTs.
	 * `fn` must be synchronous: SQLite cannot hold a transaction open across an await.
	 */
	transaction<T>(fn: () => T): T;
	/**
	 * Resolves once everything committed so far is in durable storage. A no-op for files (each
	 * commit is already fsynced); for snapshot storage it writes the pending snapshot now.
	 */
	flush(): Promise<void>;
	/** Idempotent. Releases the lock file; snapshot storage gets a final export. */
	close(): void;
}

export interface OpenDatabaseOptions {
	/** A file path, or ":memory:". */
	readonly path: string;
	/** Where Node's fs is missing (Obsidian mobile): keep the database in memory, persisted here. */
	readonly snapshot?: SnapshotStorage;
	/**
	 * Refuse writes. File mode still takes the lock file: the VFS has no SQLite-level locks, so a
	 * reader next to a writer could see half-written pages.
	 */
	readonly readonly?: boolean;
	/**
	 * A table the file must hold if it holds any tables: another program's SQLite database is
	 * refused before anything (journal mode, migrations) changes it.
	 */
	readonly requiredTable?: string;
	/** Snapshot mode only: how long writes may sit unexported (default 1000 ms). */
	readonly snapshotDebounceMs?: number;
}

export type { SnapshotStorage } from "./wasm/snapshot-storage";
