// The part of better-sqlite3's API the native connection uses (its own typings are not a
// dependency: the driver is optional and loaded at run time).

export interface NativeRunResult {
	readonly changes: number;
	readonly lastInsertRowid: number | bigint;
}

export interface NativeStatement {
	/** True when the statement returns rows (SELECT, RETURNING, most PRAGMAs). */
	readonly reader: boolean;
	readonly readonly: boolean;
	run(...params: unknown[]): NativeRunResult;
	all(...params: unknown[]): unknown[];
	get(...params: unknown[]): unknown;
	columns(): { name: string }[];
}

export interface NativeDatabase {
	readonly inTransaction: boolean;
	readonly open: boolean;
	prepare(sql: string): NativeStatement;
	exec(sql: string): unknown;
	loadExtension(path: string): unknown;
	close(): unknown;
}

export interface NativeOpenOptions {
	readonly readonly?: boolean;
	readonly fileMustExist?: boolean;
	/** Busy timeout in ms. */
	readonly timeout?: number;
	/** The addon's file, where better-sqlite3 runs from a bundle and cannot find it by itself. */
	readonly nativeBinding?: string;
}

export type NativeDatabaseConstructor = new (path: string, options?: NativeOpenOptions) => NativeDatabase;

/** better-sqlite3's error: `code` is SQLite's extended result code name (SQLITE_CONSTRAINT_UNIQUE…). */
export interface NativeSqliteError extends Error {
	readonly code: string;
}
