// openDatabase(): picks file, memory or snapshot mode and hands back a SqliteConnection.
import type { OpenDatabaseOptions, SqliteConnection } from "../sqlite-connection";
import { loadSqlite } from "./load-sqlite";
import { Oo1Connection } from "./oo1-connection";
import { openSnapshotDatabase } from "./snapshot-database";
import { openFileDatabase } from "./file-database";
import { loadNodeModules } from "../../../platform/node-builtins";

export const MEMORY_PATH = ":memory:";

export async function openDatabase(options: OpenDatabaseOptions): Promise<SqliteConnection> {
	const sqlite3 = await loadSqlite();
	if (options.snapshot) return openSnapshotDatabase(sqlite3, options, options.snapshot);
	if (options.path === MEMORY_PATH) {
		return new Oo1Connection(sqlite3, new sqlite3.oo1.DB(MEMORY_PATH, "c"), MEMORY_PATH);
	}
	const node = await loadNodeModules();
	if (!node) {
		throw new Error(
			`Cannot open ${options.path}: this platform has no file system access (Obsidian mobile?). ` +
				"Pass `snapshot` storage to openDatabase() to keep the database in memory and persist snapshots.",
		);
	}
	return openFileDatabase(sqlite3, node, options);
}
