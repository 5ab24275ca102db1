// Refuses files that are not SQLite databases before anything writes to them.
import type { Sqlite3Db, Sqlite3Static } from "./sqlite3-api";
import { DatabaseFileError } from "./errors";

/**
 * Reads the schema (SQLITE_NOTADB for foreign files), runs quick_check (damaged pages) unless
 * `fullCheck` is false (the file is the one last closed cleanly, check-stamp.ts) and refuses a
 * SQLite database of another program (tables, but not `requiredTable`). All only read, so a
 * rejected file stays byte-for-byte as it was.
 */
export function assertDatabaseReadable(sqlite3: Sqlite3Static, db: Sqlite3Db, path: string, requiredTable?: string, fullCheck = true): void {
	let verdict = "ok";
	try {
		db.exec("PRAGMA schema_version");
		if (fullCheck) {
			const rows = db.exec({ sql: "PRAGMA quick_check(1)", rowMode: "array", returnValue: "resultRows" }) as unknown[][];
			const first = rows[0]?.[0];
			verdict = typeof first === "string" ? first : "no result";
		}
	} catch (error) {
		if (error instanceof sqlite3.SQLite3Error) {
			throw new DatabaseFileError(path, error.message.replace(/sqlite3 result code \d+: /, ""), { cause: error });
		}
		throw error;
	}
	if (verdict !== "ok") throw new DatabaseFileError(path, `quick_check: ${verdict}`);
	if (requiredTable === undefined) return;
	// Another program's database: it has tables but not ours. Refused before journal_mode or the
	// schema migration would change it.
	const tables = db.exec({
		sql: "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
		rowMode: "array",
		returnValue: "resultRows",
	}) as unknown[][];
	const names = tables.map((row) => String(row[0]));
	if (names.length > 0 && !names.includes(requiredTable)) {
		const shown = names.slice(0, 5).join(", ") + (names.length > 5 ? `, and ${names.length - 5} more` : "");
		throw new DatabaseFileError(path, `a SQLite database of another program: tables ${shown}, no ${requiredTable} table`);
	}
}
