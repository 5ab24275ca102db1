// `<db>.engrama-checked`: lets an open skip `PRAGMA quick_check`, which reads the whole file (236 ms
// of main-thread CPU at 50k notes on desktop, docs/benchmarks.md), when the file is exactly the one
// an Engrama engine last closed cleanly. Any change since (a foreign writer, a sync tool, a restored
// backup, a crash with a log left behind, a session that met a damaged page) makes the open check
// fully again. Written by both engines, under the database's lock, only after a clean close.
import type { NodeModules } from "../../../platform/node-builtins";

const STAMP_SUFFIX = ".engrama-checked";
const STAMP_VERSION = 1;
/**
 * Even a matching stamp is trusted for a week after the last full check: a page damaged in place by
 * the disk changes no size, time or inode, so a full check still runs at least this often.
 */
export const FULL_CHECK_INTERVAL_MS = 7 * 24 * 60 * 60 * 1000;
/** Files SQLite replays at open: while one holds anything the file is not what was closed. */
const LOG_SUFFIXES = ["-wal", ".engrama-wal", "-journal"] as const;
// A WAL holds frames only past its 32-byte header; a journal with any bytes may be hot.
const LOG_EMPTY_SIZE: Record<(typeof LOG_SUFFIXES)[number], number> = { "-wal": 32, ".engrama-wal": 32, "-journal": 0 };
const HEADER_SIZE = 100;

interface Fingerprint {
	/** Device, inode, size, and modification and change times (ns): stat fields a rewrite or a replacement changes. */
	readonly stat: string;
	/** The 100-byte header (change counter, page count, schema cookie) and a hash of the first and last page. */
	readonly header: string;
	readonly pages: string;
}

interface CheckStamp {
	readonly version: number;
	/** When quick_check last passed on this file (ms since the epoch). */
	readonly checkedAt: number;
	readonly fingerprint: Fingerprint;
}

/** A full check that ran at `checkedAt` still vouches at `now`: not in the future, and within FULL_CHECK_INTERVAL_MS. */
export function checkStillFresh(checkedAt: number, now: number): boolean {
	return checkedAt <= now && now - checkedAt < FULL_CHECK_INTERVAL_MS;
}

export function checkStampPath(dbPath: string): string {
	return `${dbPath}${STAMP_SUFFIX}`;
}

/**
 * When the full check this file's stamp vouches for ran, or undefined when the open must check
 * fully: no stamp, a log beside the file, any difference in the fingerprint, or a check older than
 * FULL_CHECK_INTERVAL_MS.
 */
export function vouchedCheckTime(node: NodeModules, dbPath: string, now = Date.now()): number | undefined {
	const stamp = readStamp(node, dbPath);
	if (!stamp || holdsLog(node, dbPath)) return undefined;
	if (!checkStillFresh(stamp.checkedAt, now)) return undefined;
	const current = fingerprint(node, dbPath);
	if (!current) return undefined;
	const { stat, header, pages } = stamp.fingerprint;
	return current.stat === stat && current.header === header && current.pages === pages ? stamp.checkedAt : undefined;
}

/**
 * After a clean close, under the lock: stamps the file as checked at `checkedAt`. Not when a log
 * is left (another connection still open, a checkpoint that failed): the next open checks fully.
 */
export function writeCheckStamp(node: NodeModules, dbPath: string, checkedAt: number): void {
	try {
		removeCheckStamp(node, dbPath);
		if (holdsLog(node, dbPath)) return;
		const current = fingerprint(node, dbPath);
		if (!current) return;
		const stamp: CheckStamp = { version: STAMP_VERSION, checkedAt, fingerprint: current };
		node.fs.writeFileSync(checkStampPath(dbPath), JSON.stringify(stamp), { mode: 0o600 });
	} catch (error) {
		// Expected where the folder turned read-only: the next open only checks fully.
		console.warn(`Engrama: could not stamp ${dbPath} as checked; the next open checks it fully`, error);
	}
}

/** At a writing open: the file is about to change, so the stamp of the last close no longer holds. */
export function removeCheckStamp({ fs }: NodeModules, dbPath: string): void {
	fs.rmSync(checkStampPath(dbPath), { force: true });
}

function readStamp({ fs }: NodeModules, dbPath: string): CheckStamp | undefined {
	let text: string;
	try {
		text = fs.readFileSync(checkStampPath(dbPath), "utf8");
	} catch {
		// Expected: no stamp (a first open, after a crash, after a move); the open checks fully.
		return undefined;
	}
	try {
		const stamp = JSON.parse(text) as Partial<CheckStamp>;
		const print = stamp.fingerprint;
		if (stamp.version !== STAMP_VERSION || typeof stamp.checkedAt !== "number" || typeof print !== "object" || print === null) return undefined;
		return stamp as CheckStamp;
	} catch {
		// A stamp cut short (a crash while it was written) vouches for nothing; the open checks fully.
		return undefined;
	}
}

function holdsLog({ fs }: NodeModules, dbPath: string): boolean {
	return LOG_SUFFIXES.some((suffix) => (fs.statSync(`${dbPath}${suffix}`, { throwIfNoEntry: false })?.size ?? 0) > LOG_EMPTY_SIZE[suffix]);
}

/** Reads two pages and stats the file: a few µs, where quick_check reads every page. */
function fingerprint({ fs }: NodeModules, dbPath: string): Fingerprint | undefined {
	const stat = fs.statSync(dbPath, { bigint: true, throwIfNoEntry: false });
	if (!stat || stat.size < BigInt(HEADER_SIZE)) return undefined;
	const size = Number(stat.size);
	const fd = fs.openSync(dbPath, "r");
	try {
		const header = new Uint8Array(HEADER_SIZE);
		fs.readSync(fd, header, 0, HEADER_SIZE, 0);
		// Big-endian page size at offset 16; 1 stands for 65536.
		const raw = (header[16] << 8) | header[17];
		const pageSize = raw === 1 ? 65536 : raw;
		if (pageSize < 512 || size % pageSize !== 0) return undefined;
		const first = new Uint8Array(pageSize);
		const last = new Uint8Array(pageSize);
		fs.readSync(fd, first, 0, pageSize, 0);
		fs.readSync(fd, last, 0, pageSize, size - pageSize);
		return {
			stat: [stat.dev, stat.ino, stat.size, stat.mtimeNs, stat.ctimeNs].join(":"),
			header: Array.from(header, (byte) => byte.toString(16).padStart(2, "0")).join(""),
			pages: `${hash53(first)}:${hash53(last)}`,
		};
	} finally {
		fs.closeSync(fd);
	}
}

/** cyrb53: a fast 53-bit string hash; it tells pages apart, it guards against no adversary. */
function hash53(bytes: Uint8Array): number {
	let h1 = 0xdeadbeef;
	let h2 = 0x41c6ce57;
	for (const byte of bytes) {
		h1 = Math.imul(h1 ^ byte, 2654435761);
		h2 = Math.imul(h2 ^ byte, 1597334677);
	}
	h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
	h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
	return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}
