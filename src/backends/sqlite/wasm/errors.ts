// Named errors of the SQLite WASM layer. Each message says what happened and what to do.

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

function excerpt(sql: string): string {
	const flat = sql.replace(/\s+/g, " ").trim();
	return flat.length > SQL_EXCERPT_LENGTH ? `${flat.slice(0, SQL_EXCERPT_LENGTH)}…` : flat;
}
