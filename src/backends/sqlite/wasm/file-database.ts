// File mode: a durable database file through the Node fs VFS, guarded by a lock file.
import type { OpenDatabaseOptions, SqliteConnection } from "./sqlite-connection";
import type { Sqlite3Static } from "./sqlite3-api";
import type { NodeModules } from "./node-modules";

export async function openFileDatabase(
	_sqlite3: Sqlite3Static,
	_node: NodeModules,
	options: OpenDatabaseOptions,
): Promise<SqliteConnection> {
	throw new Error(`File databases are not implemented yet (${options.path}); use ":memory:"`);
}
