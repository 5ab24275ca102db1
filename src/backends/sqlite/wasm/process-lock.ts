// `<db>.lock`: one writer per database file across processes and within this one. SQLite's own
// file locks are no-ops in our VFS, so this lock is what keeps two writers from corrupting a file.
import type { NodeModules } from "../../../platform/node-builtins";
import { DatabaseLockedError } from "./errors";

export interface ProcessLock {
	readonly lockPath: string;
	/** Idempotent; deletes the lock file only while it is still ours. */
	release(): void;
}

interface LockRecord {
	readonly pid: number;
	readonly host: string;
	readonly createdAt: string;
	readonly token: string;
}

// A lock file still empty after this long was left by a process killed while creating it.
const EMPTY_LOCK_GRACE_MS = 10_000;
const MAX_ATTEMPTS = 5;

// Shared through globalThis so two copies of this module (a bundle and sources) still agree. The
// obsidianmd/no-global-this warning is kept: this registry is per process, not per window, and
// the command line has no window.
const HELD_KEY = Symbol.for("engrama.sqlite.heldLocks");
type HeldLocks = Map<string, () => void>;

function heldLocks(): HeldLocks {
	const g = globalThis as unknown as Record<symbol, HeldLocks | undefined>;
	let held = g[HELD_KEY];
	if (!held) {
		held = new Map();
		g[HELD_KEY] = held;
		// Last chance to clean up on a normal exit; crashes and signals leave a stale lock,
		// which the next opener detects (dead PID) and takes over.
		process.once("exit", () => {
			for (const release of [...held!.values()]) release();
		});
	}
	return held;
}

export function acquireProcessLock({ fs, os }: NodeModules, dbPath: string): ProcessLock {
	const lockPath = `${dbPath}.lock`;
	const held = heldLocks();
	if (held.has(lockPath)) {
		throw new DatabaseLockedError(
			dbPath,
			lockPath,
			process.pid,
			`another connection of this process (PID ${process.pid})`,
			"Reuse that connection, or close it before opening the database again.",
			true,
		);
	}
	const record: LockRecord = {
		pid: process.pid,
		host: os.hostname(),
		createdAt: new Date().toISOString(),
		token: `${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`,
	};
	for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
		if (tryCreate(fs, dbPath, lockPath, record)) {
			const release = (): void => {
				if (!held.delete(lockPath)) return;
				if (readRecord(fs, lockPath)?.token === record.token) fs.rmSync(lockPath, { force: true });
			};
			held.set(lockPath, release);
			return { lockPath, release };
		}
		const holder = readRecord(fs, lockPath);
		const verdict = judge(fs, lockPath, holder, record.host);
		if (verdict.live) {
			throw new DatabaseLockedError(dbPath, lockPath, holder?.pid, verdict.description);
		}
		takeOverStale(fs, lockPath, holder);
	}
	throw new DatabaseLockedError(dbPath, lockPath, undefined, "a process that keeps re-creating the lock");
}

function tryCreate(fs: NodeModules["fs"], dbPath: string, lockPath: string, record: LockRecord): boolean {
	let fd: number;
	try {
		fd = fs.openSync(lockPath, "wx", 0o600);
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === "EEXIST") return false;
		throw new Error(
			`Cannot open database ${dbPath}: cannot create its lock file ${lockPath} (${code}); check that its folder exists and is writable.`,
			{ cause: error },
		);
	}
	try {
		fs.writeSync(fd, `${JSON.stringify(record)}\n`);
	} finally {
		fs.closeSync(fd);
	}
	return true;
}

function readRecord(fs: NodeModules["fs"], lockPath: string): LockRecord | undefined {
	try {
		const parsed = JSON.parse(fs.readFileSync(lockPath, "utf8")) as Partial<LockRecord>;
		return typeof parsed.pid === "number" ? (parsed as LockRecord) : undefined;
	} catch {
		// Missing, empty (being written) or foreign content: the caller decides from the file's age.
		return undefined;
	}
}

function judge(
	fs: NodeModules["fs"],
	lockPath: string,
	holder: LockRecord | undefined,
	ourHost: string,
): { live: boolean; description: string } {
	if (!holder) {
		const stat = fs.statSync(lockPath, { throwIfNoEntry: false });
		if (!stat) return { live: false, description: "" };
		const fresh = Date.now() - stat.mtimeMs < EMPTY_LOCK_GRACE_MS;
		return { live: fresh, description: "a process that is creating the lock right now" };
	}
	const since = `since ${holder.createdAt}`;
	if (holder.host && holder.host !== ourHost) {
		// We cannot see processes on another machine (a synced or network folder): assume alive.
		return { live: true, description: `process ${holder.pid} on host ${holder.host} ${since}` };
	}
	if (holder.pid === process.pid) {
		// Not in our held set, so it is left over from an earlier process that had our PID.
		return { live: false, description: "" };
	}
	return { live: isAlive(holder.pid), description: `process ${holder.pid} ${since}` };
}

function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		// EPERM: it exists but belongs to another user; only ESRCH means it is gone.
		return (error as NodeJS.ErrnoException).code !== "ESRCH";
	}
}

/**
 * Moves the stale lock aside (rename is atomic) and checks that what moved is the stale lock we
 * judged. If a concurrent opener replaced it meanwhile, put theirs back and let the retry see it.
 */
function takeOverStale(fs: NodeModules["fs"], lockPath: string, stale: LockRecord | undefined): void {
	const aside = `${lockPath}.stale-${process.pid}-${Date.now()}`;
	try {
		fs.renameSync(lockPath, aside);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
		throw error;
	}
	const moved = readRecord(fs, aside);
	if (stale && moved?.token !== stale.token) {
		try {
			fs.linkSync(aside, lockPath);
		} catch (error) {
			console.warn(`Engrama: could not restore lock ${lockPath} taken by a concurrent opener`, error);
		}
	}
	fs.rmSync(aside, { force: true });
}
