// A SQLite VFS over Node's synchronous fs API, so SQLite itself journals and fsyncs a real file
// and a commit costs the pages it touches instead of a whole-database export.
import type { Sqlite3Static } from "./sqlite3-api";
import type { NodeModules } from "../../../platform/node-builtins";
import { liveForeignConnection, type ForeignConnection } from "./foreign-connections";
import { hostClearInterval, hostSetInterval, type TimerHandle } from "../../../platform/host-timers";

export const NODE_FILE_VFS_NAME = "engrama-node";

export interface NodeFileVfs {
	readonly name: string;
	/** The last file system error seen, cleared on read (added to SQLITE_IOERR messages). */
	takeLastError(): string | undefined;
	/**
	 * The database whose write was refused because another program has it open (its `-shm`
	 * exists), cleared on read; the caller turns it into a named error.
	 */
	takeForeignRefusal(): ForeignConnection | undefined;
}

export type { ForeignConnection } from "./foreign-connections";

type FileKind = "main" | "wal" | "journal" | "other";

interface OpenFile {
	/** Replaced when a WAL deleted behind our back is restored from it. */
	fd: number;
	readonly path: string;
	readonly deleteOnClose: boolean;
	readonly kind: FileKind;
	/** The database this main file or WAL belongs to. */
	readonly dbPath: string;
	/** Written since its last xSync: only the first write of a batch checks for other programs. */
	writing: boolean;
	/** Where the batch being written began (a WAL transaction's first frame, or its header at 0). */
	batchStart: number;
	/** A journal or WAL we created: fsync its directory once, at its first xSync (as the unix VFS). */
	syncDirectory: boolean;
	watch?: TimerHandle;
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
// How often an open WAL is checked for deletion by another program while no write happens.
const WAL_WATCH_MS = 1000;
const COPY_CHUNK = 1 << 20;
// SQLite's WAL format: a 32-byte file header, then frames each behind a 24-byte header.
const WAL_HEADER_SIZE = 32;
const WAL_FRAME_HEADER_SIZE = 24;
// Rounds of "restore, then check again" before a commit whose WAL keeps vanishing is refused.
const CONFIRM_ATTEMPTS = 3;
// New files are private to their owner: they hold the memory (issue 16, item 6).
const PRIVATE_FILE_MODE = 0o600;

const installed = new WeakMap<Sqlite3Static, NodeFileVfs>();

/**
 * Registers the VFS once per sqlite3 instance. Locking methods are no-ops: a database is
 * opened by one connection of one process at a time, enforced by `process-lock.ts`.
 *
 * Native SQLite programs (the sqlite3 shell, DB Browser, Python) see none of that. One that opens
 * the database creates `<db>-shm`, and on close checkpoints the WAL frames it knows and deletes
 * the WAL. So while `<db>-shm` exists every batch of writes to the database or its WAL is refused
 * (a checkpoint or a WAL restart under its feet would corrupt the file), and a WAL deleted or
 * replaced behind our back is restored from our still-open descriptor before a commit is
 * acknowledged, and by a 1 s watch between commits. docs/design/wasm-sqlite.md, "Foreign SQLite readers".
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
		takeForeignRefusal() {
			const refusal = v.foreignRefusal;
			v.foreignRefusal = undefined;
			return refusal;
		},
	};
}

/** The VFS's state and the file work its methods share: open files, the last error, a refused foreign write. */
class VfsFiles {
	readonly files = new Map<number, OpenFile>();
	lastError: string | undefined;
	foreignRefusal: ForeignConnection | undefined;
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

	/**
	 * SQLITE_IOERR_* when a native SQLite connection has the database open. We never create
	 * `-shm` (exclusive locking mode keeps the wal-index in memory), so it is another program's;
	 * one no process holds is left over and refuses nothing (foreign-connections.ts).
	 */
	refuseBesideForeign(file: OpenFile, rc: number): number {
		if (file.kind !== "main" && file.kind !== "wal") return 0;
		const foreign = liveForeignConnection(this.fs, file.dbPath, process.pid);
		if (!foreign) return 0;
		this.foreignRefusal = foreign;
		this.lastError = `another program has ${file.dbPath} open (${foreign.shmPath} exists${foreign.pids ? `, held by process ${foreign.pids.join(", ")}` : ""})`;
		return rc;
	}

	/**
	 * After a commit's frames are fsynced, before SQLite reports the commit: the frames must be in
	 * the file at the WAL's path, and no native program may have the database open (one that
	 * opened during the transaction may not have seen these frames, and would delete the WAL they
	 * are in when it closes). Otherwise the commit is refused and its frames voided, so a refused
	 * write never comes back after a crash either.
	 */
	confirmCommit(file: OpenFile): number {
		for (let attempt = 0; attempt < CONFIRM_ATTEMPTS; attempt++) {
			const refused = this.refuseBesideForeign(file, this.capi.SQLITE_IOERR_FSYNC);
			if (refused) {
				this.voidBatch(file);
				return refused;
			}
			if (this.linked(file)) return 0;
			this.restoreIfUnlinked(file);
		}
		this.voidBatch(file);
		return this.fail(this.capi.SQLITE_IOERR_FSYNC, "commit", new Error(`${file.path} keeps being deleted by another program`));
	}

	/** xSync: fsync, and for a commit the checks of `confirmCommit`; 0 or the SQLITE_IOERR_* refusal. */
	sync(file: OpenFile, flags: number): number {
		// Before acknowledging a commit: its frames must be in the file at the WAL's path.
		this.restoreIfUnlinked(file);
		if (flags & SQLITE_SYNC_DATAONLY) this.fs.fdatasyncSync(file.fd);
		else this.fs.fsyncSync(file.fd);
		if (file.syncDirectory) {
			this.syncDirectory(file.path);
			file.syncDirectory = false;
		}
		// A sync after writes is a commit's (or its new header's); a checkpoint's has none.
		const committing = file.kind === "wal" && file.writing;
		file.writing = false;
		if (committing) {
			const refused = this.confirmCommit(file);
			if (refused) return refused;
		}
		if (file.kind === "wal") this.foreignRefusal = undefined;
		return 0;
	}

	/** Breaks the first frame (or header) of the batch being written: recovery stops before it. */
	voidBatch(file: OpenFile): void {
		const zeros = new Uint8Array(file.batchStart === 0 ? WAL_HEADER_SIZE : WAL_FRAME_HEADER_SIZE);
		this.fs.writeSync(file.fd, zeros, 0, zeros.length, file.batchStart);
		this.fs.fsyncSync(file.fd);
	}

	/** True while the WAL descriptor is still the file at its path. */
	linked(file: OpenFile): boolean {
		const held = this.fs.fstatSync(file.fd);
		const atPath = this.fs.statSync(file.path, { throwIfNoEntry: false });
		return held.nlink > 0 && !!atPath && atPath.ino === held.ino && atPath.dev === held.dev;
	}

	/**
	 * A native connection closing deletes the WAL after checkpointing only the frames it knew.
	 * Our descriptor still holds every frame: copy them to a new file at the WAL's path (same
	 * header, salts and checksums, so recovery after a crash replays them all; frames are whole
	 * page images in order, so replaying ones already checkpointed is harmless).
	 */
	restoreIfUnlinked(file: OpenFile): void {
		if (file.kind !== "wal" || this.linked(file)) return;
		const held = this.fs.fstatSync(file.fd);
		const temp = `${file.path}.engrama-restore-${process.pid}`;
		const { O_RDWR, O_CREAT, O_TRUNC } = this.fs.constants;
		const fd = this.fs.openSync(temp, O_RDWR | O_CREAT | O_TRUNC, held.mode & 0o777);
		try {
			const buffer = new Uint8Array(Math.min(COPY_CHUNK, Math.max(1, held.size)));
			for (let at = 0; at < held.size; ) {
				const got = this.fs.readSync(file.fd, buffer, 0, Math.min(buffer.length, held.size - at), at);
				if (got === 0) break;
				let done = 0;
				while (done < got) done += this.fs.writeSync(fd, buffer, done, got - done, at + done);
				at += got;
			}
			this.fs.fsyncSync(fd);
			this.fs.renameSync(temp, file.path);
			this.syncDirectory(file.path);
		} catch (error) {
			this.fs.closeSync(fd);
			this.fs.rmSync(temp, { force: true });
			throw error;
		}
		this.fs.closeSync(file.fd);
		file.fd = fd;
		console.warn(
			`Engrama: ${file.path} was deleted or replaced by another program (a native SQLite reader closing?); restored ${held.size} bytes from the open file.`,
		);
	}

	watchWal(file: OpenFile): void {
		// Between commits: a WAL deleted after the last commit is restored before a crash can lose it.
		const watch = () => {
			try {
				this.restoreIfUnlinked(file);
			} catch (error) {
				console.error(`Engrama: could not restore ${file.path}`, error);
			}
		};
		file.watch = hostSetInterval(watch, WAL_WATCH_MS, { unref: true });
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

/** sqlite3_io_methods: one open file's reads, writes, syncs (restoring a WAL deleted behind our back) and sizes. */
function ioMethodsOf(v: VfsFiles) {
	return {
		xClose(pFile: number): number {
			const file = v.files.get(pFile);
			if (!file) return 0;
			v.files.delete(pFile);
			hostClearInterval(file.watch);
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
				const file = v.fileOf(pFile);
				if (!file.writing) {
					// First write of a transaction (WAL) or checkpoint (database): nothing written yet.
					const refused = v.refuseBesideForeign(file, v.capi.SQLITE_IOERR_WRITE);
					if (refused) return refused;
					v.restoreIfUnlinked(file);
					file.writing = true;
					file.batchStart = Number(offset64);
				}
				const { fd } = file;
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
				const file = v.fileOf(pFile);
				const refused = v.refuseBesideForeign(file, v.capi.SQLITE_IOERR_TRUNCATE);
				if (refused) return refused;
				v.fs.ftruncateSync(file.fd, Number(size64));
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
			const filePath = zName ? v.wasm.cstrToJs(zName) : v.path.join(v.os.tmpdir(), `engrama-sqlite-${v.randomSuffix()}`);
			try {
				const kind = v.kindOf(flags);
				const dbPath = kind === "wal" || kind === "journal" ? filePath.replace(/-(wal|journal)$/, "") : filePath;
				const { fd, outFlags } = v.openFile(filePath, flags, kind, dbPath);
				const created = (flags & v.capi.SQLITE_OPEN_CREATE) !== 0;
				const file: OpenFile = {
					fd,
					path: filePath,
					deleteOnClose: !zName || (flags & v.capi.SQLITE_OPEN_DELETEONCLOSE) !== 0,
					kind,
					dbPath,
					writing: false,
					batchStart: 0,
					syncDirectory: created && (kind === "wal" || kind === "journal"),
				};
				v.files.set(pFile, file);
				if (kind === "wal") v.watchWal(file);
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
			const filePath = v.wasm.cstrToJs(zName);
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
			const filePath = v.wasm.cstrToJs(zName);
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
