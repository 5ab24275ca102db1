// File mode: a durable database file through the Node fs VFS, guarded by a lock file.
import type { OpenDatabaseOptions, SqliteConnection } from "../sqlite-connection";
import type { Sqlite3Db, Sqlite3Static } from "./sqlite3-api";
import type { NodeModules } from "../../../platform/node-builtins";
import { installNodeFileVfs } from "./node-file-vfs";
import { acquireProcessLock } from "./process-lock";
import { assertDatabaseReadable } from "./validate-database";
import { Oo1Connection } from "./oo1-connection";
import { settleWalRestores } from "./wal-restore";
import { adoptNativeLog } from "./engrama-log";
import { removeCheckStamp, vouchedCheckTime, writeCheckStamp } from "./check-stamp";

export interface JournalSettings {
	readonly journalMode: "DELETE" | "TRUNCATE" | "PERSIST" | "WAL";
	readonly lockingMode: "NORMAL" | "EXCLUSIVE";
	readonly synchronous: "NORMAL" | "FULL";
}

/**
 * WAL with locking_mode=EXCLUSIVE and synchronous=FULL.
 * - WAL: a commit appends the changed pages to one file and fsyncs once; rollback journals write
 *   the journal, fsync, write the database, fsync, then reset the journal. Measured with
 *   scripts/bench-sqlite-wasm.mjs (docs/benchmarks-sqlite-wasm.md), single-row commits p50:
 *   WAL 0.30 ms vs 0.58-0.92 ms for DELETE/TRUNCATE/PERSIST; note+FTS5+vec0 rows WAL 0.56 ms vs
 *   TRUNCATE 1.26 ms, flat from 1k to 50k rows.
 * - EXCLUSIVE: WAL otherwise needs shared memory (xShm*), which this VFS does not provide; the
 *   lock file already makes us the only connection, so exclusive costs nothing and also keeps the
 *   page cache valid between transactions.
 * - FULL: the WAL is fsynced at every commit, so an acknowledged commit survives SIGKILL and a
 *   power cut (NORMAL would only fsync at checkpoints).
 */
export const DEFAULT_JOURNAL: JournalSettings = { journalMode: "WAL", lockingMode: "EXCLUSIVE", synchronous: "FULL" };

const CACHE_KIB = 64 * 1024;

export async function openFileDatabase(
	sqlite3: Sqlite3Static,
	node: NodeModules,
	options: OpenDatabaseOptions,
	journal: JournalSettings = DEFAULT_JOURNAL,
): Promise<SqliteConnection> {
	const vfs = installNodeFileVfs(sqlite3, node);
	const path = node.path.resolve(options.path);
	const lock = acquireProcessLock(node, path);
	const readonly = options.readonly === true;
	let db: Sqlite3Db | undefined;
	let checkedAt: number;
	try {
		// Under the lock, before SQLite looks for the WAL: a restore copy (left by versions that
		// restored a WAL a native reader deleted) is used or removed, then a native session's log adopted.
		for (const line of settleWalRestores(node, path)) console.warn(`Engrama: ${line}`);
		const adopted = adoptNativeLog(node, path);
		if (adopted) console.warn(`Engrama: ${adopted}`);
		db = openDb(sqlite3, path, readonly, vfs.name, () => vfs.takeLastError());
		// Before the first read: a WAL database can only be read in exclusive mode here.
		db.exec(`PRAGMA locking_mode = ${journal.lockingMode}`);
		const vouched = vouchedCheckTime(node, path);
		assertDatabaseReadable(sqlite3, db, path, options.requiredTable, vouched === undefined);
		checkedAt = vouched ?? Date.now();
		if (!readonly) removeCheckStamp(node, path);
		if (!readonly) db.exec(`PRAGMA journal_mode = ${journal.journalMode}`);
		db.exec(`PRAGMA synchronous = ${journal.synchronous}`);
		// Exclusive mode keeps the cache across commits. 64 MiB (filled only as pages are used) holds
		// the name-fragment and node indexes of a 50k-node memory, whose random leaves every write
		// touches: with 16 MiB a single write at 50k took 1.4-1.6x as long as at 1k, with 64 MiB 1.3x
		// (docs/benchmarks.md, Engine).
		db.exec(`PRAGMA cache_size = -${CACHE_KIB}`);
	} catch (error) {
		db?.close();
		lock.release();
		throw error;
	}
	return new Oo1Connection(sqlite3, db, path, {
		describeIoError: () => vfs.takeLastError(),
		afterClose: (clean) => {
			try {
				if (clean && !readonly) writeCheckStamp(node, path, checkedAt);
			} finally {
				lock.release();
			}
		},
	});
}

function openDb(sqlite3: Sqlite3Static, path: string, readonly: boolean, vfs: string, ioDetail: () => string | undefined): Sqlite3Db {
	try {
		return new sqlite3.oo1.DB({ filename: path, flags: readonly ? "r" : "c", vfs });
	} catch (error) {
		if (!(error instanceof sqlite3.SQLite3Error)) throw error;
		const detail = ioDetail() ?? error.message.replace(/sqlite3 result code \d+: /, "");
		throw new Error(`Cannot open database ${path} (${detail}); check that its folder exists and is writable.`, { cause: error });
	}
}
