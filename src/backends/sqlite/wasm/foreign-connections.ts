// Whether a native SQLite program (the sqlite3 shell, DB Browser, Python) has a database open right
// now. Such a program creates `<db>-shm` when it first reads and, while it has the file open, holds
// a POSIX lock on that file's dead-man-switch byte (and one on the database while it reads). A
// `-shm` nobody holds is left over: a read-only connection cannot remove it when it closes, and a
// crashed one never does. Node cannot take or test POSIX locks, but Linux lists every lock in
// /proc/locks; elsewhere a `-shm` has to be taken as a live program.
import type { NodeModules } from "../../../platform/node-builtins";

/** A database another (native SQLite) program has open, seen through its `-shm` file. */
export interface ForeignConnection {
	readonly dbPath: string;
	readonly shmPath: string;
	/** The processes holding locks on it, where the platform shows them (Linux); undefined elsewhere. */
	readonly pids?: readonly number[];
}

const PROC_LOCKS = "/proc/locks";

/** The program holding `<dbPath>-shm` open, or undefined when there is none (no `-shm`, or one no process holds). */
export function liveForeignConnection(fs: NodeModules["fs"], dbPath: string, ownPid: number): ForeignConnection | undefined {
	const shmPath = `${dbPath}-shm`;
	const shm = fs.statSync(shmPath, { throwIfNoEntry: false });
	if (!shm) return undefined;
	const table = readLockTable(fs);
	if (table === null) return { dbPath, shmPath };
	const db = fs.statSync(dbPath, { throwIfNoEntry: false });
	const files = new Set([fileKey(shm.dev, shm.ino), ...(db ? [fileKey(db.dev, db.ino)] : [])]);
	const pids = new Set<number>();
	for (const lock of table) if (files.has(lock.file) && lock.pid !== ownPid) pids.add(lock.pid);
	return pids.size > 0 ? { dbPath, shmPath, pids: [...pids] } : undefined;
}

interface LockLine {
	readonly pid: number;
	/** "major:minor:inode" as /proc/locks writes it (major and minor in hex). */
	readonly file: string;
}

/** /proc/locks as lines, or null where it does not exist (not Linux) or cannot be read. */
function readLockTable(fs: NodeModules["fs"]): LockLine[] | null {
	let text: string;
	try {
		text = fs.readFileSync(PROC_LOCKS, "utf8");
	} catch {
		return null;
	}
	const out: LockLine[] = [];
	for (const line of text.split("\n")) {
		// "12: POSIX  ADVISORY  READ 8952 fe:00:10052551 128 128", or "12: -> POSIX ..." for a waiter.
		const fields = line.trim().split(/\s+/).filter((f) => f !== "->");
		if (fields.length < 6) continue;
		const pid = Number(fields[4]);
		const parts = fields[5].split(":");
		if (!Number.isInteger(pid) || parts.length !== 3) continue;
		out.push({ pid, file: `${parseInt(parts[0], 16)}:${parseInt(parts[1], 16)}:${parts[2]}` });
	}
	return out;
}

/** A file as /proc/locks names it: glibc's major/minor split of st_dev, and the inode. */
function fileKey(dev: number, ino: number): string {
	const high = Math.floor(dev / 2 ** 32);
	const low = dev % 2 ** 32;
	const major = ((low >>> 8) & 0xfff) | ((high & 0xfffff000) >>> 0);
	const minor = (low & 0xff) | ((((low >>> 12) | (high << 20)) >>> 0) & 0xffffff00);
	return `${major >>> 0}:${minor >>> 0}:${ino}`;
}
