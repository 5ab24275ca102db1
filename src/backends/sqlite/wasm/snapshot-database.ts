// Snapshot mode for platforms without Node's fs (Obsidian mobile).
import type { OpenDatabaseOptions, SqliteConnection } from "../sqlite-connection";
import type { Sqlite3Db, Sqlite3Static } from "./sqlite3-api";
import type { SnapshotStorage } from "./snapshot-storage";
import { DatabaseFileError } from "./errors";
import { Oo1Connection } from "./oo1-connection";
import { assertDatabaseReadable } from "./validate-database";
import { snapshotStamp, vouchedSnapshotCheck } from "./snapshot-stamp";
import { hostClearTimeout, hostSetTimeout, type TimerHandle } from "../../../platform/host-timers";

const DEFAULT_DEBOUNCE_MS = 1000;
/**
 * A debounced export is stamped only after this many debounce intervals without another one (10 s
 * by default): hashing every export doubled its CPU (92 → 191 ms at 94 MB, docs/benchmarks.md,
 * "Opening a memory"), and while a vault embeds exports come every few seconds. flush() and close
 * stamp at once.
 */
const STAMP_AFTER_INTERVALS = 10;

/**
 * Keeps the whole database in WASM memory, loaded from `storage` and exported (serialized, then
 * copied out a slice per task) a debounce interval after writes, on flush() and on close().
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
	const vouched = bytes && bytes.length > 0 ? await vouchedSnapshotCheck(storage, bytes) : undefined;
	const db = new sqlite3.oo1.DB(":memory:", "c");
	try {
		if (bytes && bytes.length > 0) deserialize(sqlite3, db, bytes, options.path);
		assertDatabaseReadable(sqlite3, db, options.path, options.requiredTable, vouched === undefined);
		// The bytes live in memory either way; query_only makes SQLite refuse writes as for files.
		if (options.readonly) db.exec("PRAGMA query_only = 1");
	} catch (error) {
		db.close();
		throw error;
	}
	const stamp = { checkedAt: vouched ?? Date.now(), sound: () => !connection.damageMet() };
	const exporter = new SnapshotExporter(sqlite3, db, storage, options.snapshotDebounceMs ?? DEFAULT_DEBOUNCE_MS, stamp);
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
	/** The last bytes the storage took: only they may be stamped. */
	private lastWritten: Uint8Array | undefined;
	private stampTimer: TimerHandle | undefined;

	constructor(
		private readonly sqlite3: Sqlite3Static,
		private readonly db: Sqlite3Db,
		private readonly storage: SnapshotStorage,
		private readonly debounceMs: number,
		/** When quick_check last passed, and whether the session has met no damaged page: what a stamp may vouch for. */
		private readonly stamp: { readonly checkedAt: number; sound(): boolean },
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
		await this.stampLastWritten();
	}

	exportOnClose(): void {
		hostClearTimeout(this.timer);
		this.timer = undefined;
		// The app may be closing: copied and handed to storage at once, not a slice per task.
		void this.exportNow(false)
			.then(() => this.stampLastWritten())
			.catch((error: unknown) => console.error("Engrama: final snapshot export failed", error));
	}

	/**
	 * Serializes synchronously (a consistent copy inside WASM memory) and queues the copy out and
	 * the write behind earlier ones, in later tasks: copying a large database out of WASM memory and
	 * the storage's own copy each held the thread for tens of ms, and with the serialize in one task
	 * they made the longest tasks of embedding a vault on mobile. Queued behind the earlier write
	 * whatever its outcome: a failed write leaves `dirty` set for this one to retry, and the copy in
	 * WASM memory is always copied out and freed (chained to a rejection it would be skipped and leak).
	 */
	private exportNow(inSlices = true): Promise<void> {
		if (!this.dirty) return this.writing;
		this.dirty = false;
		hostClearTimeout(this.stampTimer);
		this.stampTimer = undefined;
		const copy = serialize(this.sqlite3, this.db);
		const bytes = inSlices ? null : copyOut(this.sqlite3, copy, false);
		const earlier = this.writing.catch(() => undefined);
		this.writing = earlier.then(() => bytes ?? copyOut(this.sqlite3, copy, true)).then((out) => this.store(out)).catch((error: unknown) => {
			this.dirty = true;
			throw error;
		});
		return this.writing;
	}

	/**
	 * The last snapshot's stamp goes first: a write that fails or is cut short leaves none, and the
	 * next open checks fully. The new one once the exports pause (STAMP_AFTER_INTERVALS).
	 */
	private async store(out: Uint8Array): Promise<void> {
		this.lastWritten = undefined;
		await this.stamping("remove", () => this.storage.writeStamp?.(null));
		await this.storage.write(out);
		this.lastWritten = out;
		hostClearTimeout(this.stampTimer);
		const due = () => {
			this.stampTimer = undefined;
			void this.stampLastWritten();
		};
		this.stampTimer = hostSetTimeout(due, this.debounceMs * STAMP_AFTER_INTERVALS, { unref: true });
	}

	/**
	 * Stamps the last bytes written, in the write queue so no export runs meanwhile; not when an
	 * export has written since (other bytes) or the session met a damaged page.
	 */
	private stampLastWritten(): Promise<void> {
		hostClearTimeout(this.stampTimer);
		this.stampTimer = undefined;
		const bytes = this.lastWritten;
		if (!bytes || !this.storage.writeStamp) return this.writing;
		this.writing = this.writing
			.catch(() => undefined)
			.then(() =>
				this.stamping("write", async () => {
					if (bytes !== this.lastWritten || !this.stamp.sound()) return;
					this.lastWritten = undefined;
					const text = await snapshotStamp(bytes, this.stamp.checkedAt);
					if (text !== undefined) await this.storage.writeStamp?.(text);
				}),
			);
		return this.writing;
	}

	/** A stamp that cannot be kept costs the next open a full check, never a snapshot. */
	private async stamping(what: string, action: () => Promise<void> | undefined): Promise<void> {
		try {
			await action();
		} catch (error) {
			console.warn(`Engrama: could not ${what} the check stamp of the snapshot; the next open checks it fully`, error);
		}
	}
}

/** Bytes copied out of WASM memory per task: ≈ 2–4 ms each under load, where 32 MB at once took ≈ 20 ms. */
const COPY_SLICE = 4 * 1024 * 1024;

const nextTask = () => new Promise<void>((resolve) => hostSetTimeout(resolve, 0));

/** What sqlite3_js_db_export does, without its copy out of WASM memory: the caller copies (copyOut) and frees. */
function serialize(sqlite3: Sqlite3Static, db: Sqlite3Db): { pointer: number; size: number } {
	const { wasm } = sqlite3;
	if (db.pointer === undefined) throw new Error("the database is closed");
	// The i64 size first: it must sit on an 8-byte boundary (malloc's blocks do).
	const block = wasm.alloc(16);
	try {
		const rc = wasm.exports.sqlite3_wasm_db_serialize(db.pointer, 0, block + 8, block, 0);
		if (rc !== 0) throw new Error(`the database could not be serialized: ${sqlite3.capi.sqlite3_errstr(rc)}`);
		return { pointer: wasm.peek32(block + 8), size: Number(wasm.peek(block, "i64")) };
	} finally {
		wasm.dealloc(block);
	}
}

/**
 * The serialized copy into a JavaScript array, a slice per task when `sliced`, then freed. SQLite never touches
 * the copy; the heap view is taken again each time (WASM memory may grow between tasks).
 */
async function copyOut(sqlite3: Sqlite3Static, copy: { pointer: number; size: number }, sliced: boolean): Promise<Uint8Array> {
	const { wasm } = sqlite3;
	const slice = sliced ? COPY_SLICE : Math.max(1, copy.size);
	try {
		const bytes = new Uint8Array(copy.size);
		for (let offset = 0; offset < copy.size; offset += slice) {
			if (sliced) await nextTask();
			const end = Math.min(copy.size, offset + slice);
			bytes.set(wasm.heap8u().subarray(copy.pointer + offset, copy.pointer + end), offset);
		}
		// The storage's own work (its copy, the adapter's write) in a task of its own.
		if (sliced) await nextTask();
		return bytes;
	} finally {
		if (copy.pointer) wasm.dealloc(copy.pointer);
	}
}
