// Snapshot mode for platforms without Node's fs (Obsidian mobile).
import type { OpenDatabaseOptions, SqliteConnection } from "../sqlite-connection";
import type { Sqlite3Db, Sqlite3Static } from "./sqlite3-api";
import type { SnapshotStorage } from "./snapshot-storage";
import { DatabaseFileError } from "./errors";
import { Oo1Connection } from "./oo1-connection";
import { assertDatabaseReadable } from "./validate-database";
import { hostClearTimeout, hostSetTimeout, type TimerHandle } from "../../../platform/host-timers";

const DEFAULT_DEBOUNCE_MS = 1000;

/**
 * Keeps the whole database in WASM memory, loaded from `storage` and exported with
 * `sqlite3_js_db_export` a debounce interval after writes, on flush() and on close().
 *
 * Weaker durability than file mode: a commit is only in memory until the next export finishes,
 * so a crash or a killed app loses up to the debounce interval of writes (plus the write
 * itself); each export rewrites the whole database, so cost grows with database size; and
 * close() starts the final write but cannot wait for it (await flush() first when you can).
 * Memory use is the database size. Acceptable for mobile, where the index can be rebuilt from
 * the vault.
 */
export async function openSnapshotDatabase(
	sqlite3: Sqlite3Static,
	options: OpenDatabaseOptions,
	storage: SnapshotStorage,
): Promise<SqliteConnection> {
	const bytes = await storage.read();
	const db = new sqlite3.oo1.DB(":memory:", "c");
	try {
		if (bytes && bytes.length > 0) deserialize(sqlite3, db, bytes, options.path);
		assertDatabaseReadable(sqlite3, db, options.path, options.requiredTable);
		// The bytes live in memory either way; query_only makes SQLite refuse writes as for files.
		if (options.readonly) db.exec("PRAGMA query_only = 1");
	} catch (error) {
		db.close();
		throw error;
	}
	const exporter = new SnapshotExporter(sqlite3, db, storage, options.snapshotDebounceMs ?? DEFAULT_DEBOUNCE_MS);
	const connection: Oo1Connection = new Oo1Connection(sqlite3, db, options.path, {
		afterWrite: () => {
			if (!options.readonly) exporter.schedule(() => connection.inTransaction());
		},
		flush: () => exporter.flush(() => connection.inTransaction()),
		beforeClose: () => {
			if (!options.readonly) exporter.exportOnClose();
		},
	});
	return connection;
}

function deserialize(sqlite3: Sqlite3Static, db: Sqlite3Db, bytes: Uint8Array, path: string): void {
	const { capi, wasm } = sqlite3;
	const pointer = capi.sqlite3_malloc(bytes.length);
	if (!pointer) throw new Error(`Out of WASM memory loading a ${bytes.length}-byte snapshot of ${path}`);
	wasm.heap8u().set(bytes, pointer);
	const flags = capi.SQLITE_DESERIALIZE_FREEONCLOSE | capi.SQLITE_DESERIALIZE_RESIZEABLE;
	// On failure SQLite frees the buffer itself (FREEONCLOSE).
	const rc = capi.sqlite3_deserialize(db, "main", pointer, bytes.length, bytes.length, flags);
	if (rc !== 0) throw new DatabaseFileError(path, `snapshot could not be loaded: ${capi.sqlite3_errstr(rc)}`);
}

class SnapshotExporter {
	private timer: TimerHandle | undefined;
	private dirty = false;
	private writing: Promise<void> = Promise.resolve();

	constructor(
		private readonly sqlite3: Sqlite3Static,
		private readonly db: Sqlite3Db,
		private readonly storage: SnapshotStorage,
		private readonly debounceMs: number,
	) {}

	schedule(inTransaction: () => boolean): void {
		this.dirty = true;
		hostClearTimeout(this.timer);
		const due = () => {
			this.timer = undefined;
			// Exporting mid-transaction would persist uncommitted pages; wait for the commit.
			if (inTransaction()) this.schedule(inTransaction);
			else void this.exportNow().catch((error: unknown) => console.error("Engrama: snapshot export failed", error));
		};
		// unref: never keep a CLI process alive just for a pending snapshot.
		this.timer = hostSetTimeout(due, this.debounceMs, { unref: true });
	}

	async flush(inTransaction: () => boolean): Promise<void> {
		hostClearTimeout(this.timer);
		this.timer = undefined;
		if (inTransaction()) throw new Error("flush() called inside a transaction; commit first");
		await this.exportNow();
	}

	exportOnClose(): void {
		hostClearTimeout(this.timer);
		this.timer = undefined;
		void this.exportNow().catch((error: unknown) => console.error("Engrama: final snapshot export failed", error));
	}

	/**
	 * Exports synchronously (a consistent copy) and queues the write behind earlier ones, a task
	 * later: the export and the storage's own copy of a large database each hold the thread for
	 * tens of ms, and in one task they made the longest tasks of embedding a vault on mobile.
	 */
	private exportNow(): Promise<void> {
		if (!this.dirty) return this.writing;
		this.dirty = false;
		const bytes = this.sqlite3.capi.sqlite3_js_db_export(this.db);
		const nextTask = () => new Promise<void>((resolve) => hostSetTimeout(resolve, 0));
		this.writing = this.writing.then(nextTask).then(() => this.storage.write(bytes)).catch((error: unknown) => {
			this.dirty = true;
			throw error;
		});
		return this.writing;
	}
}
