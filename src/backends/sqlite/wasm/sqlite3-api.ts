// The slice of the official SQLite WASM API (`sqlite3.oo1`, `sqlite3.capi`, `sqlite3.wasm`)
// that this folder uses. The package ships no types; only files in this folder may touch it.

export type BindValue = string | number | bigint | null | Uint8Array | boolean;
export type BindParams = readonly BindValue[] | Record<string, BindValue>;

export interface Sqlite3Stmt {
	readonly pointer: number;
	readonly columnCount: number;
	readonly parameterCount: number;
	bind(params: BindParams): Sqlite3Stmt;
	step(): boolean;
	get(columnIndex: number): unknown;
	get(target: Record<string, unknown>): Record<string, unknown>;
	getColumnNames(target?: string[]): string[];
	reset(alsoClearBinds?: boolean): Sqlite3Stmt;
	clearBindings(): Sqlite3Stmt;
	finalize(): number | undefined;
}

export interface Sqlite3Db {
	readonly pointer: number | undefined;
	readonly filename: string;
	exec(sql: string): Sqlite3Db;
	exec(options: { sql: string; bind?: BindParams; rowMode?: "object" | "array"; returnValue?: "resultRows" }): unknown;
	prepare(sql: string): Sqlite3Stmt;
	changes(total?: boolean, sixtyFour?: boolean): number | bigint;
	close(): void;
	isOpen(): boolean;
}

export interface Sqlite3DbConstructor {
	new (filename: string, flags?: string, vfs?: string): Sqlite3Db;
	new (options: { filename: string; flags?: string; vfs?: string }): Sqlite3Db;
}

/** A C struct bound by Jaccwabyt: `$field` accessors plus a pointer into WASM memory. */
export interface Sqlite3Struct {
	readonly pointer: number;
	dispose(): void;
	addOnDispose(...items: unknown[]): void;
	[field: `$${string}`]: number;
}

export interface Sqlite3StructConstructor {
	new (pointer?: number): Sqlite3Struct;
	readonly structInfo: { readonly sizeof: number };
}

export interface Sqlite3Capi {
	readonly [constant: `SQLITE_${string}`]: number;
	sqlite3_vfs: Sqlite3StructConstructor;
	sqlite3_io_methods: Sqlite3StructConstructor;
	sqlite3_file: Sqlite3StructConstructor;
	sqlite3_vfs_find(name: string | null): number;
	sqlite3_last_insert_rowid(db: Sqlite3Db | number): number | bigint;
	sqlite3_get_autocommit(db: Sqlite3Db | number): number;
	sqlite3_stmt_readonly(stmt: number): number;
	sqlite3_bind_parameter_index(stmt: number, name: string): number;
	sqlite3_malloc(n: number): number;
	sqlite3_js_db_export(db: Sqlite3Db | number, schema?: string | number): Uint8Array;
	sqlite3_deserialize(
		db: Sqlite3Db | number,
		schema: string,
		data: number,
		dbSize: number | bigint,
		bufSize: number | bigint,
		flags: number,
	): number;
	sqlite3_errstr(rc: number): string;
	sqlite3_libversion(): string;
}

/** Raw exports of the WASM instance used for reading result columns without the wrappers. */
export interface Sqlite3Exports {
	sqlite3_column_type(stmt: number, column: number): number;
	sqlite3_column_double(stmt: number, column: number): number;
	sqlite3_column_text(stmt: number, column: number): number;
	sqlite3_column_bytes(stmt: number, column: number): number;
	/** sqlite3_serialize into a sqlite3_malloc'd copy: *ppOut its pointer, *pSize (i64) its size; 0 or an error code. */
	sqlite3_wasm_db_serialize(db: number, schema: number, ppOut: number, pSize: number, flags: number): number;
}

export interface Sqlite3Wasm {
	readonly exports: Sqlite3Exports;
	heap8u(): Uint8Array;
	poke32(ptr: number, value: number): void;
	poke64(ptr: number, value: bigint): void;
	poke(ptr: number, value: number | bigint, type: "i8" | "i32" | "i64" | "double"): void;
	peek32(ptr: number): number;
	peek(ptr: number, type: "i64"): bigint;
	cstrToJs(ptr: number): string;
	cstrncpy(dest: number, src: number, n: number): number;
	allocCString(s: string): number;
	alloc(n: number): number;
	dealloc(ptr: number): void;
	allocFromTypedArray(bytes: Uint8Array): number;
}

export interface Sqlite3Static {
	readonly version: { readonly libVersion: string };
	readonly oo1: { readonly DB: Sqlite3DbConstructor };
	readonly capi: Sqlite3Capi;
	readonly wasm: Sqlite3Wasm;
	readonly vfs: {
		installVfs(options: {
			io?: { struct: Sqlite3Struct; methods: Record<string, (...args: never[]) => number> };
			vfs?: { struct: Sqlite3Struct; methods: Record<string, (...args: never[]) => number>; name?: string; asDefault?: boolean };
		}): unknown;
	};
	readonly SQLite3Error: new (...args: unknown[]) => Error & { resultCode?: number };
}
