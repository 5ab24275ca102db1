// A SQLite VFS over Node's synchronous fs API, so SQLite itself journals and fsyncs a real file
// and a commit costs the pages it touches instead of a whole-database export.
import type { Sqlite3Static } from "./sqlite3-api";
import type { NodeModules } from "../../../platform/node-builtins";
import { engramaLogPath, walDatabaseOf } from "./engrama-log";

export const NODE_FILE_VFS_NAME = "engrama-node";

export interface NodeFileVfs {
	readonly name: string;
	/** The last file system error seen, cleared on read (added to SQLITE_IOERR messages). */
	takeLastError(): string | undefined;
}

type FileKind = "main" | "wal" | "journal" | "other";

interface OpenFile {
	readonly fd: number;
	readonly path: string;
	readonly deleteOnClose: boolean;
	readonly kind: FileKind;
	/** The database this main file or WAL belongs to. */
	readonly dbPath: string;
	/** A journal or WAL we created: fsync its directory once, at its first xSync (as the unix VFS). */
	syncDirectory: boolean;
}

// SQLite's default for unix; larger atomic units would need device guarantees we cannot check.
const SECTOR_SIZE = 4096;
const MAX_PATHNAME = 1024;
// crypto.getRandomValues() refuses more than 64 KiB per call.
const RANDOM_CHUNK = 65536;
const SQLITE_SYNC_DATAONLY = 0x10;
const SQLITE_ACCESS_EXISTS = 0;
const JULIAN_EPOCH_DAYS = 2440587.5;
const MS_PER_DAY = 86_400_000;
// New files are private to their owner: they hold the memory (issue 16, item 6).
const PRIVATE_FILE_MODE = 0o600;

const installed = new WeakMap<Sqlite3Static, NodeFileVfs>();

/**
 * Registers the VFS once per sqlite3 instance. Locking methods are no-ops: a database is
 * opened by one connection of one process at a time, enforced by `process-lock.ts`.
 *
 * Native SQLite programs (the sqlite3 shell, DB Browser, Python) see none of that, and would
 * recover, checkpoint and delete a WAL they find by its name. So the WAL SQLite asks for as
 * `<db>-wal` is kept at `<db>.engrama-wal` (engrama-log.ts): they never find it.
 * docs/design/wasm-sqlite.md, "Foreign SQLite readers".
 */
export function installNodeFileVfs(sqlite3: Sqlite3Static, node: NodeModules): NodeFileVfs {
	const existing = installed.get(sqlite3);
	if (existing) return existing;
	const vfs = createVfs(sqlite3, node);
	installed.set(sqlite3, vfs);
	return vfs;
}

function createVfs(sqlite3: Sqlite3Static, node: NodeModules): NodeFileVfs {
	const v = new VfsFiles(sqlite3, node);
	const { capi } = sqlite3;
	const ioMethods = ioMethodsOf(v);
	const ioStruct = new capi.sqlite3_io_methods();
	ioStruct.$iVersion = 1;
	const vfsMethods = vfsMethodsOf(v, ioStruct);

	const vfsStruct = new capi.sqlite3_vfs();
	vfsStruct.$iVersion = 2;
	vfsStruct.$szOsFile = capi.sqlite3_file.structInfo.sizeof;
	vfsStruct.$mxPathname = MAX_PATHNAME;
	sqlite3.vfs.installVfs({
		io: { struct: ioStruct, methods: ioMethods as unknown as Record<string, (...args: never[]) => number> },
		vfs: {
			struct: vfsStruct,
			methods: vfsMethods as unknown as Record<string, (...args: never[]) => number>,
			name: NODE_FILE_VFS_NAME,
		},
	});

	return {
		name: NODE_FILE_VFS_NAME,
		takeLastError() {
			const message = v.lastError;
			v.lastError = undefined;
			return message;
		},
	};
}

/** The VFS's state and the file work its methods share: open files and the last error. */
class VfsFiles {
	readonly files = new Map<number, OpenFile>();
	lastError: string | undefined;
	readonly encoder = new TextEncoder();
	readonly capi: Sqlite3Static["capi"];
	readonly wasm: Sqlite3Static["wasm"];
	readonly fs: NodeModules["fs"];
	readonly path: NodeModules["path"];
	readonly os: NodeModules["os"];

	constructor(sqlite3: Sqlite3Static, { fs, path, os }: NodeModules) {
		this.capi = sqlite3.capi;
		this.wasm = sqlite3.wasm;
		this.fs = fs;
		this.path = path;
		this.os = os;
	}

	fail(rc: number, what: string, error: unknown): number {
		this.lastError = `${what}: ${error instanceof Error ? error.message : String(error)}`;
		return rc;
	}

	fileOf(pFile: number): OpenFile {
		const file = this.files.get(pFile);
		if (!file) throw new Error(`no open file for sqlite3_file ${pFile}`);
		return file;
	}

	syncDirectory(filePath: string): void {
		const dirFd = this.fs.openSync(this.path.dirname(filePath), "r");
		try {
			this.fs.fsyncSync(dirFd);
		} finally {
			this.fs.closeSync(dirFd);
		}
	}

	/** xSync: fsync, and the directory of a journal or WAL we created at its first sync. */
	sync(file: OpenFile, flags: number): number {
		if (flags & SQLITE_SYNC_DATAONLY) this.fs.fdatasyncSync(file.fd);
		else this.fs.fsyncSync(file.fd);
		if (file.syncDirectory) {
			this.syncDirectory(file.path);
			file.syncDirectory = false;
		}
		return 0;
	}

	/**
	 * The file on disk for a name SQLite uses: the WAL of a database we have open lives at
	 * `<db>.engrama-wal`. Only such WALs: a database that happens to be named `x-wal` is itself.
	 */
	onDisk(name: string): string {
		const db = walDatabaseOf(name);
		if (db === undefined) return name;
		for (const file of this.files.values()) if (file.kind === "main" && file.path === db) return engramaLogPath(db);
		return name;
	}

	kindOf(flags: number): FileKind {
		if (flags & this.capi.SQLITE_OPEN_MAIN_DB) return "main";
		if (flags & this.capi.SQLITE_OPEN_WAL) return "wal";
		if (flags & (this.capi.SQLITE_OPEN_MAIN_JOURNAL | this.capi.SQLITE_OPEN_SUPER_JOURNAL)) return "journal";
		return "other";
	}

	/** As the unix VFS: a journal or WAL gets its database's permissions; anything else is private. */
	createMode(kind: FileKind, dbPath: string): number {
		if (kind !== "wal" && kind !== "journal") return PRIVATE_FILE_MODE;
		const db = this.fs.statSync(dbPath, { throwIfNoEntry: false });
		return db ? db.mode & 0o777 : PRIVATE_FILE_MODE;
	}

	openFile(filePath: string, flags: number, kind: FileKind, dbPath: string): { fd: number; outFlags: number } {
		const { O_RDONLY, O_RDWR, O_CREAT, O_EXCL } = this.fs.constants;
		const wantsWrite = (flags & this.capi.SQLITE_OPEN_READWRITE) !== 0;
		let mode = wantsWrite ? O_RDWR : O_RDONLY;
		if (flags & this.capi.SQLITE_OPEN_CREATE) mode |= O_CREAT;
		if (flags & this.capi.SQLITE_OPEN_EXCLUSIVE) mode |= O_EXCL;
		try {
			return { fd: this.fs.openSync(filePath, mode, this.createMode(kind, dbPath)), outFlags: flags };
		} catch (error) {
			const code = (error as NodeJS.ErrnoException).code;
			const denied = code === "EACCES" || code === "EPERM" || code === "EROFS";
			if (!wantsWrite || !denied || !this.fs.existsSync(filePath)) throw error;
			// As the unix VFS: fall back to read-only and say so through pOutFlags.
			const readOnlyFlags = (flags & ~(this.capi.SQLITE_OPEN_READWRITE | this.capi.SQLITE_OPEN_CREATE)) | this.capi.SQLITE_OPEN_READONLY;
			return { fd: this.fs.openSync(filePath, O_RDONLY), outFlags: readOnlyFlags };
		}
	}

	randomSuffix(): string {
		const bytes = new Uint8Array(8);
		crypto.getRandomValues(bytes);
		return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
	}
}

/** sqlite3_io_methods: one open file's reads, writes, syncs and sizes. */
function ioMethodsOf(v: VfsFiles) {
	return {
		xClose(pFile: number): number {
			const file = v.files.get(pFile);
			if (!file) return 0;
			v.files.delete(pFile);
			try {
				v.fs.closeSync(file.fd);
				if (file.deleteOnClose) v.fs.rmSync(file.path, { force: true });
				return 0;
			} catch (error) {
				return v.fail(v.capi.SQLITE_IOERR_CLOSE, `close ${file.path}`, error);
			}
		},
		xRead(pFile: number, pDest: number, n: number, offset64: bigint): number {
			try {
				const { fd } = v.fileOf(pFile);
				const heap = v.wasm.heap8u();
				const offset = Number(offset64);
				let done = 0;
				while (done < n) {
					const got = v.fs.readSync(fd, heap, pDest + done, n - done, offset + done);
					if (got === 0) break;
					done += got;
				}
				if (done < n) {
					// SQLite requires the unread tail zeroed when it is told the read was short.
					heap.fill(0, pDest + done, pDest + n);
					return v.capi.SQLITE_IOERR_SHORT_READ;
				}
				return 0;
			} catch (error) {
				return v.fail(v.capi.SQLITE_IOERR_READ, "read", error);
			}
		},
		xWrite(pFile: number, pSrc: number, n: number, offset64: bigint): number {
			try {
				const { fd } = v.fileOf(pFile);
				const heap = v.wasm.heap8u();
				const offset = Number(offset64);
				let done = 0;
				while (done < n) done += v.fs.writeSync(fd, heap, pSrc + done, n - done, offset + done);
				return 0;
			} catch (error) {
				return v.fail(v.capi.SQLITE_IOERR_WRITE, "write", error);
			}
		},
		xTruncate(pFile: number, size64: bigint): number {
			try {
				v.fs.ftruncateSync(v.fileOf(pFile).fd, Number(size64));
				return 0;
			} catch (error) {
				return v.fail(v.capi.SQLITE_IOERR_TRUNCATE, "truncate", error);
			}
		},
		xSync(pFile: number, flags: number): number {
			try {
				return v.sync(v.fileOf(pFile), flags);
			} catch (error) {
				return v.fail(v.capi.SQLITE_IOERR_FSYNC, "fsync", error);
			}
		},
		xFileSize(pFile: number, pSize64: number): number {
			try {
				v.wasm.poke64(pSize64, BigInt(v.fs.fstatSync(v.fileOf(pFile).fd).size));
				return 0;
			} catch (error) {
				return v.fail(v.capi.SQLITE_IOERR_FSTAT, "fstat", error);
			}
		},
		...fixedIoMethodsOf(v),
	};
}

/** The io methods with fixed answers: no file locks (the process lock excludes others), sizes and capabilities. */
function fixedIoMethodsOf(v: VfsFiles) {
	return {
		xLock: (_pFile: number, _level: number): number => 0,
		xUnlock: (_pFile: number, _level: number): number => 0,
		xCheckReservedLock(_pFile: number, pOut: number): number {
			// Nobody else can hold RESERVED (the process lock excludes them), so a journal left
			// behind by a crash is correctly judged hot and rolled back.
			v.wasm.poke32(pOut, 0);
			return 0;
		},
		xFileControl: (_pFile: number, _op: number, _pArg: number): number => v.capi.SQLITE_NOTFOUND,
		xSectorSize: (_pFile: number): number => SECTOR_SIZE,
		xDeviceCharacteristics: (_pFile: number): number => v.capi.SQLITE_IOCAP_POWERSAFE_OVERWRITE,
	};
}

/** sqlite3_vfs: open, delete, access, paths, randomness and time. */
function vfsMethodsOf(v: VfsFiles, ioStruct: { pointer: number }) {
	return {
		xOpen(_pVfs: number, zName: number, pFile: number, flags: number, pOutFlags: number): number {
			const name = zName ? v.wasm.cstrToJs(zName) : v.path.join(v.os.tmpdir(), `engrama-sqlite-${v.randomSuffix()}`);
			const kind = v.kindOf(flags);
			const dbPath = kind === "wal" || kind === "journal" ? name.replace(/-(wal|journal)$/, "") : name;
			// The WAL at a name native SQLite never looks for (engrama-log.ts).
			const filePath = kind === "wal" ? engramaLogPath(dbPath) : name;
			try {
				const { fd, outFlags } = v.openFile(filePath, flags, kind, dbPath);
				const created = (flags & v.capi.SQLITE_OPEN_CREATE) !== 0;
				const file: OpenFile = {
					fd,
					path: filePath,
					deleteOnClose: !zName || (flags & v.capi.SQLITE_OPEN_DELETEONCLOSE) !== 0,
					kind,
					dbPath,
					syncDirectory: created && (kind === "wal" || kind === "journal"),
				};
				v.files.set(pFile, file);
				const struct = new v.capi.sqlite3_file(pFile);
				struct.$pMethods = ioStruct.pointer;
				struct.dispose();
				if (pOutFlags) v.wasm.poke32(pOutFlags, outFlags);
				return 0;
			} catch (error) {
				return v.fail(v.capi.SQLITE_CANTOPEN, `open ${filePath}`, error);
			}
		},
		xDelete(_pVfs: number, zName: number, syncDir: number): number {
			const filePath = v.onDisk(v.wasm.cstrToJs(zName));
			try {
				v.fs.unlinkSync(filePath);
				if (syncDir) v.syncDirectory(filePath);
				return 0;
			} catch (error) {
				if ((error as NodeJS.ErrnoException).code === "ENOENT") return v.capi.SQLITE_IOERR_DELETE_NOENT;
				return v.fail(v.capi.SQLITE_IOERR_DELETE, `delete ${filePath}`, error);
			}
		},
		xAccess(_pVfs: number, zName: number, flags: number, pOut: number): number {
			const filePath = v.onDisk(v.wasm.cstrToJs(zName));
			let result = 0;
			try {
				const stat = v.fs.statSync(filePath, { throwIfNoEntry: false });
				if (stat) {
					if (flags === SQLITE_ACCESS_EXISTS) {
						// As the unix VFS: an empty regular file does not count (a truncated journal).
						result = !stat.isFile() || stat.size > 0 ? 1 : 0;
					} else {
						v.fs.accessSync(filePath, v.fs.constants.R_OK | v.fs.constants.W_OK);
						result = 1;
					}
				}
			} catch {
				// accessSync failing means "no access", which is the answer, not an error.
				result = 0;
			}
			v.wasm.poke32(pOut, result);
			return 0;
		},
		xFullPathname(_pVfs: number, zName: number, nOut: number, pOut: number): number {
			const bytes = v.encoder.encode(v.path.resolve(v.wasm.cstrToJs(zName)));
			if (bytes.length + 1 > nOut) return v.capi.SQLITE_CANTOPEN;
			const heap = v.wasm.heap8u();
			heap.set(bytes, pOut);
			heap[pOut + bytes.length] = 0;
			return 0;
		},
		xRandomness(_pVfs: number, nByte: number, pOut: number): number {
			const heap = v.wasm.heap8u();
			for (let at = 0; at < nByte; at += RANDOM_CHUNK) {
				crypto.getRandomValues(heap.subarray(pOut + at, pOut + Math.min(nByte, at + RANDOM_CHUNK)));
			}
			return nByte;
		},
		// Only reached through busy handlers, which never fire without real file locks.
		xSleep: (_pVfs: number, microseconds: number): number => microseconds,
		xCurrentTime(_pVfs: number, pOut: number): number {
			v.wasm.poke(pOut, JULIAN_EPOCH_DAYS + Date.now() / MS_PER_DAY, "double");
			return 0;
		},
		xCurrentTimeInt64(_pVfs: number, pOut: number): number {
			v.wasm.poke(pOut, BigInt(JULIAN_EPOCH_DAYS * MS_PER_DAY + Date.now()), "i64");
			return 0;
		},
		xGetLastError(_pVfs: number, nOut: number, pOut: number): number {
			if (nOut <= 0) return 0;
			const bytes = v.encoder.encode(v.lastError ?? "").subarray(0, nOut - 1);
			const heap = v.wasm.heap8u();
			heap.set(bytes, pOut);
			heap[pOut + bytes.length] = 0;
			return 0;
		},
	};
}
