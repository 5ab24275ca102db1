// The WASM engine's write-ahead log lives at `<db>.engrama-wal`, a name native SQLite never derives
// (it looks for `<db>-wal`, `<db>-shm` and `<db>-journal`). A native program beside the WASM engine
// (the sqlite3 shell, DB Browser, Python) then reads the database as of the last checkpoint and
// never finds, replays, checkpoints or deletes the log the WASM engine holds in memory: the engine
// cannot take the POSIX locks that would otherwise tell it we are there. The two Engrama engines
// hand a crashed session's log to each other at open (file-database.ts, native/open-native.ts).
// docs/design/wasm-sqlite.md, "Foreign SQLite readers".
import type { NodeModules } from "../../../platform/node-builtins";

const ENGRAMA_LOG_SUFFIX = ".engrama-wal";
const NATIVE_LOG_SUFFIX = "-wal";
// A WAL holds frames only past its 32-byte header; a shorter one has nothing to replay.
const WAL_HEADER_SIZE = 32;

/** The logs that may sit beside a memory `<db>`: native SQLite's and the WASM engine's. */
export const MEMORY_LOG_SUFFIXES = [NATIVE_LOG_SUFFIX, ENGRAMA_LOG_SUFFIX] as const;

/** Where the WASM engine keeps the log SQLite names `<db>-wal`. */
export function engramaLogPath(dbPath: string): string {
	return `${dbPath}${ENGRAMA_LOG_SUFFIX}`;
}

/** The WAL name SQLite asks for: `<db>-wal` for a database it opened, else undefined. */
export function walDatabaseOf(walPath: string): string | undefined {
	return walPath.endsWith(NATIVE_LOG_SUFFIX) ? walPath.slice(0, -NATIVE_LOG_SUFFIX.length) : undefined;
}

/** True when the log at `logPath` holds frames (commits not yet in the database, or not known to be). */
export function holdsFrames({ fs }: NodeModules, logPath: string): boolean {
	return (fs.statSync(logPath, { throwIfNoEntry: false })?.size ?? 0) > WAL_HEADER_SIZE;
}

/**
 * WASM side, under the database's lock, before SQLite looks for its log: a `<db>-wal` holding frames
 * was left by a native session that was killed (Engrama's native engine, or a native program that
 * wrote): it becomes our log, so its commits are replayed. Renaming is atomic; the directory is
 * fsynced so the move survives a power cut. Returns what it did, or undefined.
 */
export function adoptNativeLog(node: NodeModules, dbPath: string): string | undefined {
	const nativeLog = `${dbPath}${NATIVE_LOG_SUFFIX}`;
	const ours = engramaLogPath(dbPath);
	if (!holdsFrames(node, nativeLog)) return undefined;
	if (holdsFrames(node, ours)) {
		throw new Error(
			`${dbPath} has two unfinished write-ahead logs: ${ours} (Engrama's, from a session that stopped without closing) and ${nativeLog} ` +
				"(written since by another SQLite program). Replaying either over the other's changes could damage the memory, so it was not opened. " +
				`Keep a copy of the three files; then delete ${nativeLog} to keep Engrama's last writes, or ${ours} to keep the other program's.`,
		);
	}
	node.fs.renameSync(nativeLog, ours);
	syncDirectory(node, dbPath);
	return `${nativeLog} held commits of a session that stopped without closing; they are replayed from ${ours}.`;
}

function syncDirectory({ fs, path }: NodeModules, filePath: string): void {
	const fd = fs.openSync(path.dirname(filePath), "r");
	try {
		fs.fsyncSync(fd);
	} finally {
		fs.closeSync(fd);
	}
}
