// Named errors of the SQLite WASM layer. Each message says what happened and what to do.
import { EngramaError } from "../../../engine/errors";

const SQL_EXCERPT_LENGTH = 200;

/** SQLite refused a statement. `resultCode` is SQLite's (extended) result code. */
export class SqliteError extends Error {
	override readonly name = "SqliteError";
	constructor(
		message: string,
		readonly sql: string,
		readonly resultCode: number | undefined,
		options?: { cause?: unknown },
	) {
		super(`${message} (SQL: ${excerpt(sql)})`, options);
	}
}

/** The file exists but is not a SQLite database, or is damaged. The file was not modified. */
export class DatabaseFileError extends Error {
	override readonly name = "DatabaseFileError";
	/** The command line reports errors with a code as expected failures (exit 2, no stack). */
	readonly code = "database_file";
	constructor(
		readonly path: string,
		detail: string,
		options?: { cause?: unknown },
	) {
		super(
			`${path} is not an Engrama database or is corrupt (${detail}). The file was left untouched; ` +
				"move it aside or choose another database path, then rebuild the index from the vault.",
			options,
		);
	}
}

/** Another process, or another connection in this one, holds the database's lock file. */
export class DatabaseLockedError extends Error {
	override readonly name = "DatabaseLockedError";
	readonly code = "database_locked";
	constructor(
		readonly path: string,
		readonly lockPath: string,
		readonly holderPid: number | undefined,
		holderDescription: string,
		advice = "Close the other Engrama instance (Obsidian or the CLI) and retry; if no such process is running, delete the lock file.",
		/** Held by another connection of this very process (a plugin instance being replaced). */
		readonly sameProcess = false,
	) {
		super(`${path} is already open in ${holderDescription} (lock file ${lockPath}). ${advice}`);
	}
}

/**
 * A native SQLite program (the sqlite3 shell, DB Browser, Python) has the database open, so a
 * write was refused before it was acknowledged: that program would delete the write-ahead log
 * when it closes. An EngramaError so the command line and MCP tools report it by its code.
 */
export class DatabaseInUseError extends EngramaError {
	constructor(
		readonly path: string,
		readonly shmPath: string,
		/** The processes holding it open, where the platform shows them (Linux). */
		readonly pids?: readonly number[],
	) {
		super(
			"database_in_use",
			`Another program (the sqlite3 shell, DB Browser for SQLite, the Python engrama…${pids?.length ? `; process ${pids.join(", ")}` : ""}) has ${path} open, ` +
				"so Engrama refused to write: that program would delete the write-ahead log when it closes and lose the write. The write was " +
				"not stored and nothing stored was lost. Close that program and retry; reading works meanwhile." +
				(pids?.length
					? ""
					: ` If no such program is running, it crashed or opened the file read-only and left ${shmPath} behind: delete that file (on Linux Engrama tells a left-over file from an open one by itself).`),
			{ path, shmPath, ...(pids?.length ? { pids: [...pids] } : {}) },
		);
	}
}

function excerpt(sql: string): string {
	const flat = sql.replace(/\s+/g, " ").trim();
	return flat.length > SQL_EXCERPT_LENGTH ? `${flat.slice(0, SQL_EXCERPT_LENGTH)}…` : flat;
}
