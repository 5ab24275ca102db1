// Which SQLite engine opens a memory: WASM (the plugin, always; the default) or native (the
// command line and `engrama serve`, when its driver loads). Same SQL, schema and file either way.
import type { SqliteEngine } from "../../config/engrama-config";
import type { OpenDatabaseOptions, SqliteConnection } from "./sqlite-connection";

export type { SqliteEngine } from "../../config/engrama-config";

export interface OpenedSqlite {
	readonly conn: SqliteConnection;
	/** One line for `engrama health` and `serve`: which engine runs, and why WASM if it fell back. */
	readonly engine: string;
}

/**
 * Opens natively (`src/backends/sqlite/native/open-native.ts`). Handed in by Node callers
 * (`src/nodejs/node-backend.ts`), so main.js never holds the native code or its `require`.
 */
export type NativeOpener = (options: OpenDatabaseOptions) => Promise<OpenedSqlite>;

export async function openSqlite(options: OpenDatabaseOptions, engine: SqliteEngine, openNative: NativeOpener | undefined): Promise<OpenedSqlite> {
	// Snapshot storage is Obsidian mobile's: no native code there.
	if (engine !== "wasm" && !options.snapshot) {
		if (!openNative) {
			if (engine === "native") throw new Error("The native SQLite engine runs only in the command line and `engrama serve`; use the WASM engine here.");
			return openWasm(options, " (native SQLite is not offered here)");
		}
		try {
			return await openNative(options);
		} catch (error) {
			if (engine === "native" || (error as { code?: unknown }).code !== "native_sqlite_unavailable") throw error;
			return openWasm(options, `; ${(error as Error).message}`);
		}
	}
	return openWasm(options, "");
}

async function openWasm(options: OpenDatabaseOptions, why: string): Promise<OpenedSqlite> {
	const { openDatabase } = await import("./wasm/open-database");
	const { loadSqlite } = await import("./wasm/load-sqlite");
	const conn = await openDatabase(options);
	return { conn, engine: `WASM SQLite ${(await loadSqlite()).version.libVersion}${why}` };
}
