// One writer per database file, across devices. The lock file only sees processes on this machine
// (and a synced lock arrives late or not at all); a sync tool that copies the database between two
// devices that both write it corrupts it or silently drops one side's writes. So each session
// stamps the database and a side file `<db>.writer` with this device's id and a counter; a stamp
// from another device at open, or a side file that changes under an open session, stops the
// writes with a message instead.
import type { NodeModules } from "../platform/node-builtins";
import type { DataAdapter } from "obsidian";
import { EngramaError } from "../engine/errors";
import { GRAPH_STORE_WRITES, type GraphStore, type MemoryMeta, VECTOR_STORE_WRITES, type VectorStore } from "../engine/host";

export const WRITER_META_KEY = "writer";
export const DEVICE_STORAGE_KEY = "engrama-device-id";

export interface WriterStamp {
	/** Random per device and vault (Obsidian's local storage, which no sync tool copies). */
	readonly device: string;
	/** For people: the host name and vault. */
	readonly name: string;
	/** One more per session that opened the database for writing. */
	readonly counter: number;
	readonly at: string;
}

export interface Device {
	readonly id: string;
	readonly name: string;
}

/** The side file beside the database: read whole, written whole. */
export interface StampFile {
	read(): Promise<string | null>;
	write(text: string): Promise<void>;
	/** Cheap "did it change since we wrote it" (a stat); absent: always read. */
	unchangedSince?(written: string): boolean;
}

export class SecondWriterError extends EngramaError {
	constructor(message: string) {
		super("second_writer", message);
	}
}

const TAKE_OVER_HINT =
	"If that device is done with it (Obsidian closed there and the sync finished), run the command “Use this memory on this device”. " +
	"To avoid this, keep the database outside synced folders: leave Settings → Database file empty on desktop.";

export class WriterGuard {
	private written: string | null = null;
	private stopped: SecondWriterError | null = null;

	constructor(
		private readonly file: StampFile,
		private readonly device: Device,
		private readonly dbLabel: string,
		private readonly now: () => Date = () => new Date(),
		/** Called once when a check finds another writer (the host closes the engine). */
		private readonly onStop?: (error: SecondWriterError) => void,
	) {}

	/**
	 * Checks the stamps and makes this device the writer. Refuses (SecondWriterError, nothing
	 * written) when another device wrote last, unless `takeOver`. The stamp in the database goes
	 * through the memory's write queue (its meta door), before any other write of the session.
	 */
	async claim(memory: MemoryMeta, takeOver: boolean): Promise<void> {
		const inDb = parseStamp(await memory.graph.getMeta(WRITER_META_KEY));
		const side = parseStamp(await this.file.read());
		if (!takeOver) {
			const other = [inDb, side].find((s) => s !== null && s.device !== this.device.id);
			if (other) {
				throw new SecondWriterError(
					`${this.dbLabel} was last written by another device (${other.name}, ${other.at}). Two devices writing one database file through a sync tool corrupt it, so this device did not open it. ${TAKE_OVER_HINT}`,
				);
			}
			// Ours on both sides, but the side file is ahead: the database was replaced by an older copy.
			if (inDb && side && side.counter > inDb.counter) {
				throw new SecondWriterError(
					`${this.dbLabel} is older than this device's last session with it (write ${inDb.counter}, expected ${side.counter}): a sync tool or a backup may have put back an older copy. Nothing was changed. ${TAKE_OVER_HINT}`,
				);
			}
		}
		const stamp: WriterStamp = {
			device: this.device.id,
			name: this.device.name,
			counter: Math.max(inDb?.counter ?? 0, side?.counter ?? 0) + 1,
			at: this.now().toISOString(),
		};
		const text = JSON.stringify(stamp);
		// The database first: a crash in between leaves the database ahead, which the next open accepts.
		await memory.writeMeta(WRITER_META_KEY, text);
		await this.file.write(`${text}\n`);
		this.written = `${text}\n`;
	}

	/** Before a write: throws when another device took the database since this session claimed it. */
	async check(): Promise<void> {
		if (this.stopped) throw this.stopped;
		const written = this.written;
		if (written === null || this.file.unchangedSince?.(written)) return;
		const now = await this.file.read();
		if (now === written) return;
		const other = parseStamp(now);
		this.stopped = new SecondWriterError(
			other
				? `Another device (${other.name}) opened ${this.dbLabel} at ${other.at} while this one had it open. Engrama stopped writing here so the two copies do not corrupt each other. ${TAKE_OVER_HINT}`
				: `The writer stamp beside ${this.dbLabel} was removed or changed while Engrama had it open. Engrama stopped writing here. ${TAKE_OVER_HINT}`,
		);
		this.onStop?.(this.stopped);
		throw this.stopped;
	}
}

export function parseStamp(text: string | null): WriterStamp | null {
	if (!text) return null;
	try {
		const v = JSON.parse(text) as Partial<WriterStamp>;
		return typeof v.device === "string" && typeof v.counter === "number" ? { device: v.device, name: String(v.name ?? "unknown"), counter: v.counter, at: String(v.at ?? "") } : null;
	} catch {
		return null;
	}
}

/** This device's id for this vault, created once (Obsidian's local storage is per device and vault). */
export function deviceOf(storage: { loadLocalStorage(key: string): unknown; saveLocalStorage(key: string, value: unknown): void }, name: string): Device {
	let id = storage.loadLocalStorage(DEVICE_STORAGE_KEY);
	if (typeof id !== "string" || id === "") {
		const bytes = crypto.getRandomValues(new Uint8Array(12));
		id = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
		storage.saveLocalStorage(DEVICE_STORAGE_KEY, id);
	}
	return { id: id as string, name };
}

/** The side file through Node's fs (desktop, any absolute path). */
export function nodeStampFile(node: NodeModules, path: string): StampFile {
	const { fs } = node;
	let seen: { mtimeMs: number; size: number } | null = null;
	const stat = () => fs.statSync(path, { throwIfNoEntry: false });
	return {
		read: () => Promise.resolve(fs.existsSync(path) ? fs.readFileSync(path, "utf8") : null),
		write(text) {
			fs.writeFileSync(path, text, { mode: 0o600 });
			const s = stat();
			seen = s ? { mtimeMs: s.mtimeMs, size: s.size } : null;
			return Promise.resolve();
		},
		unchangedSince() {
			const s = stat();
			return seen !== null && s !== undefined && s.mtimeMs === seen.mtimeMs && s.size === seen.size;
		},
	};
}

/** The side file through the vault adapter (mobile, the snapshot beside it). */
export function adapterStampFile(adapter: DataAdapter, path: string): StampFile {
	return {
		read: async () => ((await adapter.exists(path)) ? adapter.read(path) : null),
		write: (text) => adapter.write(path, text),
	};
}

// The protocol calls that write (graph and vectors); reads and the stores' own helpers pass untouched.
const WRITES: ReadonlySet<string> = new Set<string>([...GRAPH_STORE_WRITES, ...VECTOR_STORE_WRITES]);

/** A store whose writes first ask the guard (desktop: every write reaches the file at once). */
export function guardedStore<T extends GraphStore | VectorStore>(target: T, guard: WriterGuard): T {
	return new Proxy(target, {
		get(obj, prop) {
			const value: unknown = Reflect.get(obj, prop);
			if (typeof value !== "function") return value;
			const method = value as (...args: unknown[]) => unknown;
			if (typeof prop === "symbol" || !WRITES.has(prop)) return method.bind(obj);
			return async (...args: unknown[]) => {
				await guard.check();
				return method.apply(obj, args);
			};
		},
	});
}
