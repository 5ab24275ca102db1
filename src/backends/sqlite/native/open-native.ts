// File and memory databases on native SQLite (command line and `engrama serve`; never the plugin).
import type { OpenDatabaseOptions } from "../sqlite-connection";
import type { OpenedSqlite } from "../open-sqlite";
import { DatabaseFileError } from "../wasm/errors";
import { loadNodeModules, type NodeModules } from "../../../platform/node-builtins";
import { acquireProcessLock } from "../wasm/process-lock";
import { engramaLogPath, holdsFrames } from "../wasm/engrama-log";
import { openDatabase } from "../wasm/open-database";
import { removeCheckStamp, vouchedCheckTime, writeCheckStamp } from "../wasm/check-stamp";
import type { NativeDatabase } from "./native-api";
import { NativeConnection } from "./native-connection";
import { loadNativeDriver, type NativeDriver } from "./native-driver";

const MEMORY_PATH = ":memory:";
const CACHE_KIB = 64 * 1024;
/**
 * How long a write waits for a foreign reader's lock (a checkpoint that must wait for the
 * sqlite3 shell or the Python engrama to finish a read) before SQLITE_BUSY.
 */
const BUSY_TIMEOUT_MS = 5000;

/** What `engrama health` and `serve` print about the engine. */
export function describeNativeEngine(driver: NativeDriver, db: NativeDatabase): string {
	const { v, vec } = db.prepare("SELECT sqlite_version() AS v, vec_version() AS vec").get() as { v: string; vec: string };
	return `native SQLite ${v} (better-sqlite3 ${driver.driverVersion}, sqlite-vec ${vec.replace(/^v/, "")})`;
}

/**
 * Opens a database file (or ":memory:") natively. Shares the file layout and the lock file with
 * the WASM engine: `<db>.lock` keeps out a second writer of either engine (the WASM engine takes no
 * SQLite locks, so SQLite's own would not stop it). SQLite's locks then do what the WASM file layer
 * imitates: a foreign reader shares the WAL index in `<db>-shm` instead of copying over our pages.
 */
export async function openNativeDatabase(options: OpenDatabaseOptions): Promise<OpenedSqlite> {
	const driver = loadNativeDriver();
	if (options.path === MEMORY_PATH) {
		const db = new driver.Database(MEMORY_PATH);
		db.loadExtension(driver.vecPath);
		return { conn: new NativeConnection(db, MEMORY_PATH), engine: describeNativeEngine(driver, db) };
	}
	const node = await loadNodeModules();
	if (!node) throw new Error(`Cannot open ${options.path}: no file system access here.`);
	const path = node.path.resolve(options.path);
	await replayWasmLog(node, path);
	const lock = acquireProcessLock(node, path);
	const readonly = options.readonly === true;
	let db: NativeDatabase | undefined;
	try {
		if (!readonly) createPrivateFile(node, path);
		db = openDb(driver, path, readonly);
		const vouched = vouchedCheckTime(node, path);
		assertReadable(db, path, options.requiredTable, vouched === undefined);
		const checkedAt = vouched ?? Date.now();
		if (!readonly) removeCheckStamp(node, path);
		db.loadExtension(driver.vecPath);
		configure(db, readonly);
		const engine = describeNativeEngine(driver, db);
		const afterClose = (clean: boolean) => {
			try {
				if (clean && !readonly) writeCheckStamp(node, path, checkedAt);
			} finally {
				lock.release();
			}
		};
		return { conn: new NativeConnection(db, path, { afterClose }), engine };
	} catch (error) {
		try {
			db?.close();
		} finally {
			lock.release();
		}
		throw error;
	}
}

/**
 * The WASM engine keeps its log at `<db>.engrama-wal`, where native SQLite never looks
 * (wasm/engrama-log.ts). One that holds frames was left by a WASM session that stopped without
 * closing (the plugin or `--sqlite-engine wasm` killed): the WASM engine opens the file, which
 * replays it, and closes it, which checkpoints it into the database and deletes it. Its own lock
 * keeps out other Engrama processes meanwhile; a foreign reader sees the database before or after.
 */
async function replayWasmLog(node: NodeModules, path: string): Promise<void> {
	if (!holdsFrames(node, engramaLogPath(path))) return;
	(await openDatabase({ path })).close();
}

/**
 * WAL (one appended, fsynced write per commit; readers never block it), locking_mode NORMAL (the
 * WAL index in `<db>-shm`, so other programs may read while we run) and synchronous FULL (the WAL
 * is fsynced at every commit: an acknowledged write survives kill -9 and a power cut).
 */
function configure(db: NativeDatabase, readonly: boolean): void {
	db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
	if (!readonly) db.exec("PRAGMA journal_mode = WAL");
	db.exec("PRAGMA synchronous = FULL");
	db.exec(`PRAGMA cache_size = -${CACHE_KIB}`);
}

/** SQLite creates new files 0644; a memory is private (0600), as the WASM engine makes it. */
function createPrivateFile({ fs }: NodeModules, path: string): void {
	try {
		fs.closeSync(fs.openSync(path, "wx", 0o600));
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw cannotOpen(path, error);
	}
}

function openDb(driver: NativeDriver, path: string, readonly: boolean): NativeDatabase {
	try {
		return new driver.Database(path, { readonly, fileMustExist: readonly, timeout: BUSY_TIMEOUT_MS });
	} catch (error) {
		throw cannotOpen(path, error);
	}
}

function cannotOpen(path: string, error: unknown): Error {
	const detail = error instanceof Error ? error.message : String(error);
	return new Error(`Cannot open database ${path} (${detail}); check that its folder exists and is writable.`, { cause: error });
}

/**
 * As the WASM engine's check: a foreign or damaged file is refused before anything writes to it.
 * quick_check only when `fullCheck` (the file is not the one last closed cleanly, check-stamp.ts).
 */
function assertReadable(db: NativeDatabase, path: string, requiredTable: string | undefined, fullCheck: boolean): void {
	let verdict = "ok";
	let names: string[];
	try {
		db.prepare("PRAGMA schema_version").get();
		if (fullCheck) {
			const first = (db.prepare("PRAGMA quick_check(1)").get() as { quick_check?: unknown } | undefined)?.quick_check;
			verdict = typeof first === "string" ? first : "no result";
		}
		names = (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'").all() as { name: string }[]).map(
			(row) => row.name,
		);
	} catch (error) {
		throw new DatabaseFileError(path, error instanceof Error ? error.message : String(error), { cause: error });
	}
	if (verdict !== "ok") throw new DatabaseFileError(path, `quick_check: ${verdict}`);
	if (requiredTable === undefined || names.length === 0 || names.includes(requiredTable)) return;
	const shown = names.slice(0, 5).join(", ") + (names.length > 5 ? `, and ${names.length - 5} more` : "");
	throw new DatabaseFileError(path, `a SQLite database of another program: tables ${shown}, no ${requiredTable} table`);
}
