// Copies `<db>-wal.engrama-restore-<pid>` that the VFS makes when a native program deleted the WAL
// it writes to (node-file-vfs.ts, restoreIfUnlinked): a process killed during the copy leaves one
// behind, and it may hold acknowledged commits that are nowhere else. At the next open, under the
// database's lock, each is either put in place as the WAL or removed: never left for a person.
import type { NodeModules } from "../../../platform/node-builtins";

const RESTORE_MARK = "-wal.engrama-restore-";
const WAL_HEADER_SIZE = 32;
const WAL_MAGIC = [0x377f0682, 0x377f0683];

interface WalHeader {
	readonly salts: string;
	readonly size: number;
}

/** Settles every restore copy left beside `dbPath`; returns what it did, one line per copy. */
export function settleWalRestores({ fs, path }: NodeModules, dbPath: string): string[] {
	const dir = path.dirname(dbPath);
	const prefix = `${path.basename(dbPath)}${RESTORE_MARK}`;
	let names: string[];
	try {
		names = fs.readdirSync(dir).filter((name) => name.startsWith(prefix));
	} catch {
		return [];
	}
	const walPath = `${dbPath}-wal`;
	const done: string[] = [];
	// The longest copy first: of two copies of one log, it holds more of it.
	const copies = names.map((name) => path.join(dir, name)).sort((a, b) => sizeOf(fs, b) - sizeOf(fs, a));
	for (const copy of copies) {
		if (usable(fs, copy, walPath, dbPath)) {
			const fd = fs.openSync(copy, "r+");
			try {
				fs.fsyncSync(fd);
			} finally {
				fs.closeSync(fd);
			}
			fs.renameSync(copy, walPath);
			syncDir(fs, dir);
			done.push(`${copy} held more of the write-ahead log than ${walPath}; it was put in place (a process was killed while restoring it).`);
		} else {
			fs.rmSync(copy, { force: true });
			done.push(`${copy} held nothing newer than the database; it was removed.`);
		}
	}
	return done;
}

/**
 * A copy is the log to use when it is a WAL, the database was not written after it was made (a
 * later session would have moved on without it), and the file at the WAL's path is missing,
 * empty, or a shorter copy of the same log (same salts).
 */
function usable(fs: NodeModules["fs"], copy: string, walPath: string, dbPath: string): boolean {
	const header = readHeader(fs, copy);
	if (!header) return false;
	const copyStat = fs.statSync(copy);
	const db = fs.statSync(dbPath, { throwIfNoEntry: false });
	if (db && db.mtimeMs > copyStat.mtimeMs) return false;
	const current = readHeader(fs, walPath);
	return !current || (current.salts === header.salts && current.size < header.size);
}

function readHeader(fs: NodeModules["fs"], file: string): WalHeader | undefined {
	let fd: number;
	try {
		fd = fs.openSync(file, "r");
	} catch {
		return undefined;
	}
	try {
		const size = fs.fstatSync(fd).size;
		if (size < WAL_HEADER_SIZE) return undefined;
		const bytes = new Uint8Array(WAL_HEADER_SIZE);
		fs.readSync(fd, bytes, 0, WAL_HEADER_SIZE, 0);
		const view = new DataView(bytes.buffer);
		if (!WAL_MAGIC.includes(view.getUint32(0))) return undefined;
		return { salts: `${view.getUint32(16)}:${view.getUint32(20)}`, size };
	} finally {
		fs.closeSync(fd);
	}
}

function sizeOf(fs: NodeModules["fs"], file: string): number {
	return fs.statSync(file, { throwIfNoEntry: false })?.size ?? 0;
}

function syncDir(fs: NodeModules["fs"], dir: string): void {
	const fd = fs.openSync(dir, "r");
	try {
		fs.fsyncSync(fd);
	} finally {
		fs.closeSync(fd);
	}
}
