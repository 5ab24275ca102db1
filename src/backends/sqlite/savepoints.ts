/** How a connection runs transaction control and tells whether SQLite holds a transaction open. */
export interface SavepointHost {
	control(sql: string): void;
	inTransaction(): boolean;
}

/**
 * Synchronous nested transactions for one connection (WASM or native): the outermost is
 * `BEGIN IMMEDIATE … COMMIT`, each inner one a savepoint, and an error rolls back only its own level.
 */
export class Savepoints {
	private depth = 0;

	constructor(private readonly host: SavepointHost) {}

	run<T>(fn: () => T): T {
		const outermost = this.depth === 0;
		const savepoint = `engrama_sp_${this.depth}`;
		this.host.control(outermost ? "BEGIN IMMEDIATE" : `SAVEPOINT ${savepoint}`);
		this.depth++;
		let result: T;
		try {
			result = fn();
			if (isThenable(result)) {
				throw new TypeError("transaction() got an async function; run the awaits first, then write synchronously inside transaction().");
			}
		} catch (error) {
			this.depth--;
			this.rollback(outermost, savepoint, error);
			throw error;
		}
		this.depth--;
		try {
			this.host.control(outermost ? "COMMIT" : `RELEASE ${savepoint}`);
		} catch (error) {
			if (outermost) this.rollback(true, savepoint, error);
			throw error;
		}
		return result;
	}

	private rollback(outermost: boolean, savepoint: string, cause: unknown): void {
		// SQLite may already have rolled back by itself (e.g. after SQLITE_FULL or an I/O error).
		if (!this.host.inTransaction()) return;
		try {
			if (outermost) this.host.control("ROLLBACK");
			else {
				this.host.control(`ROLLBACK TO ${savepoint}`);
				this.host.control(`RELEASE ${savepoint}`);
			}
		} catch (rollbackError) {
			console.error("Engrama: rollback failed after an error in a transaction", { cause, rollbackError });
		}
	}
}

function isThenable(value: unknown): boolean {
	return typeof (value as { then?: unknown } | null)?.then === "function";
}
