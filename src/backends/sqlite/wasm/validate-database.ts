// Refuses files that are not SQLite databases before anything writes to them.
import type { Sqlite3Db, Sqlite3Static } from "./sqlite3-api";
import { DatabaseFileError } from "./errors";

/**
 * Reads the schema (SQLITE_NOTADB for foreign files) and runs quick_check (damaged pages).
 * Both only read, so a rejected file stays byte-for-byte as it was.
 */
export function assertDatabaseReadable(sqlite3: Sqlite3Static, db: Sqlite3Db, path: string): void {
	let verdict: string;
	try {
		db.exec("PRAGMA schema_version");
		const rows = db.exec({ sql: "PRAGMA quick_check(1)", rowMode: "array", returnValue: "resultRows" }) as unknown[][];
		const first = rows[0]?.[0];
		verdict = typeof first === "string" ? first : "no result";
	} catch (error) {
		if (error instanceof sqlite3.SQLite3Error) {
			throw new DatabaseFileError(path, error.message.replace(/sqlite3 result code \d+: /, ""), { cause: error });
		}
		throw error;
	}
	if (verdict !== "ok") throw new DatabaseFileError(path, `quick_check: ${verdict}`);
}
