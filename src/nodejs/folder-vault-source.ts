import { watch as fsWatch, type FSWatcher, type Stats } from "node:fs";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import {
	closeSync,
	constants,
	existsSync,
	fstatSync,
	lstatSync,
	openSync,
	readdirSync,
	readFileSync,
	readlinkSync,
	realpathSync,
	renameSync,
	statSync,
	unlinkSync,
	writeFileSync,
} from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { ValidationError } from "../engine/errors";
import { normaliseVaultPath, type SyncReport, type SyncSettings, VaultSync } from "../engine";
import { contentHash, decodeNote, DEFAULT_SYNC_SETTINGS, editFrontmatter, type FrontmatterMutator, type FrontmatterWriteOptions, isMarkdownPath, type Memory, type SkippedFile, type VaultEvent, type VaultEventListener, type VaultFileInfo, type VaultSource } from "../engine/host";
import { shippedModuleLabels } from "./profile-files";
import type { Scope } from "../engine/types";
import { isWithin, realOrNull, staysInsideVault } from "./vault-containment";

export interface FolderVaultSourceOptions {
	/** "fs": fs.watch (recursive); "poll": rescan every `pollIntervalMs`; "auto": fs.watch, else polling. */
	readonly watchMode?: "auto" | "fs" | "poll";
	readonly pollIntervalMs?: number;
}

// Never notes, often huge: not worth walking.
const SKIPPED_DIRS = new Set(["node_modules"]);

/**
 * A vault that is a plain folder on disk (command line, servers, tests). Writes are atomic
 * (temporary file + rename); frontmatter edits keep the body byte-for-byte and untouched keys as
 * they were. Dot-folders (.obsidian, .git, .trash) are not listed: Obsidian does not index them.
 */
export class FolderVaultSource implements VaultSource {
	readonly root: string;
	private readonly options: Required<FolderVaultSourceOptions>;
	/** Vault path (NFC) → the name on disk, for names the file system keeps in another form (NFD). */
	private readonly diskNames = new Map<string, string>();
	private lastSkipped: readonly SkippedFile[] = [];
	private resolvedRoot: string | undefined;

	constructor(root: string, options: FolderVaultSourceOptions = {}) {
		this.root = resolve(root);
		this.options = { watchMode: options.watchMode ?? "auto", pollIntervalMs: options.pollIntervalMs ?? 1000 };
	}

	/** Absolute path of a vault path; refuses paths that escape the vault. */
	absolute(path: string): string {
		const clean = normaliseVaultPath(path);
		let disk = this.diskNames.get(clean) ?? clean;
		if (disk === clean && clean !== clean.normalize("NFD") && !existsSync(join(this.root, clean)) && existsSync(join(this.root, clean.normalize("NFD")))) {
			disk = clean.normalize("NFD");
		}
		const abs = resolve(this.root, disk);
		if (abs !== this.root && !abs.startsWith(this.root + sep)) {
			throw new ValidationError(`"${path}" is outside the vault ${this.root}. Give a path inside the vault.`);
		}
		return abs;
	}

	/** `absolute`, and refused when a symlink would carry the write out of the vault. */
	private writable(path: string): string {
		const abs = this.absolute(path);
		if (!staysInsideVault(this.root, abs, this.realRoot())) {
			throw new ValidationError(
				`"${normaliseVaultPath(path)}" leads outside the vault through a symbolic link; nothing was written. Only notes that really live inside the vault can be written.`,
				{ path: normaliseVaultPath(path) },
			);
		}
		return abs;
	}

	/** Vault path of an absolute (or cwd-relative) file path. */
	vaultPath(file: string): string {
		return normaliseVaultPath(relative(this.root, resolve(file)));
	}

	async list(): Promise<readonly VaultFileInfo[]> {
		const skipped: SkippedFile[] = [];
		const files = this.scan(skipped);
		this.lastSkipped = skipped;
		return files;
	}

	/** The symbolic links the last `list()` left out, each with why (see `symlinkProblem`). */
	skippedFiles(): readonly SkippedFile[] {
		return this.lastSkipped;
	}

	async whySkipped(path: string): Promise<SkippedFile | null> {
		let abs: string;
		let s: Stats;
		try {
			abs = this.absolute(path);
			s = lstatSync(abs);
		} catch {
			return null;
		}
		if (s.isSymbolicLink()) return this.symlinkProblem(abs, normaliseVaultPath(path));
		return isMarkdownPath(path) && !s.isFile() && !s.isDirectory() ? notRegular(normaliseVaultPath(path), s) : null;
	}

	/**
	 * Why sync leaves a symbolic link alone, or null for links that are no note or folder
	 * (attachments). Links are never followed: one leading out of the vault would let sync read
	 * and write outside it; one leading inside would index the same note twice. Obsidian itself
	 * ignores loops and links to folders inside the vault.
	 */
	private symlinkProblem(abs: string, path: string): SkippedFile | null {
		let target = "";
		try {
			target = readlinkSync(abs);
		} catch {
			// Unreadable link text: described without it.
		}
		const note = isMarkdownPath(path);
		let real: string;
		try {
			real = realpathSync(abs);
		} catch (error) {
			const code = (error as NodeJS.ErrnoException).code;
			// A broken link not named .md may have been a folder or an attachment: not ours to report.
			if (!note) return null;
			if (code === "ELOOP") {
				return { path, problem: `It is a symbolic link that leads back to itself (a loop through "${target}"), so it is not synced.`, action: "Remove the link, or point it at a real note." };
			}
			return { path, problem: `It is a symbolic link to "${target}", which does not exist, so it is not synced.`, action: "Remove the link, or restore the note it points to." };
		}
		let kind: "note" | "folder";
		try {
			const s = statSync(real);
			if (s.isDirectory()) kind = "folder";
			else if (s.isFile() && note) kind = "note";
			else return null;
		} catch {
			return null;
		}
		const root = this.realRoot() ?? this.root;
		if (!isWithin(root, real)) {
			return {
				path,
				problem: `It is a symbolic link to a ${kind} outside the vault ("${target}"); Engrama never reads or writes outside the vault, so it is not synced.`,
				action: `Move the ${kind} into the vault (the link can point the other way) if Engrama should remember it.`,
			};
		}
		const inside = normaliseVaultPath(relative(root, real)) || "(the vault itself)";
		return {
			path,
			problem: `It is a symbolic link to the ${kind} ${inside} inside the vault, so it is not synced again under this name.`,
			action: `Nothing to do: ${inside} is synced under its own path. Remove the link if it is not needed.`,
		};
	}

	/** The root's real path, resolved once it exists (a vault folder may be created after this source). */
	private realRoot(): string | null {
		this.resolvedRoot ??= realOrNull(this.root) ?? undefined;
		return this.resolvedRoot ?? null;
	}

	private scan(skipped?: SkippedFile[]): VaultFileInfo[] {
		const out: VaultFileInfo[] = [];
		const walk = (dir: string, prefix: string) => {
			let entries;
			try {
				entries = readdirSync(dir, { withFileTypes: true });
			} catch {
				return;
			}
			for (const entry of entries) {
				if (entry.name.startsWith(".") && entry.isDirectory()) continue;
				const disk = prefix ? `${prefix}/${entry.name}` : entry.name;
				if (entry.isSymbolicLink()) {
					const problem = skipped ? this.symlinkProblem(join(dir, entry.name), disk.normalize("NFC")) : null;
					if (problem) skipped?.push(problem);
				} else if (entry.isDirectory()) {
					if (!SKIPPED_DIRS.has(entry.name)) walk(join(dir, entry.name), disk);
				} else if (!entry.isFile() && !entry.isDirectory() && isMarkdownPath(entry.name)) {
					// A named pipe, socket or device: reading it could block forever, and it is no note.
					if (skipped) {
						try {
							skipped.push(notRegular(disk.normalize("NFC"), lstatSync(join(dir, entry.name))));
						} catch {
							// Vanished between readdir and lstat: not there.
						}
					}
				} else if (entry.isFile() && isMarkdownPath(entry.name)) {
					const path = disk.normalize("NFC");
					const earlier = at.get(path);
					if (earlier !== undefined) {
						// Two names for one vault path (NFC and NFD): the composed one is the note, whatever the listing order.
						skipped?.push(twoForms(path));
						if (disk !== path) continue;
						out[earlier] = out[out.length - 1];
						at.set(out[earlier].path, earlier);
						out.pop();
						this.diskNames.delete(path);
					}
					if (path !== disk) this.diskNames.set(path, disk);
					try {
						const s = statSync(join(dir, entry.name));
						at.set(path, out.length);
						out.push(fileInfo(path, s));
					} catch {
						// Vanished between readdir and stat: not there.
					}
				}
			}
		};
		const at = new Map<string, number>();
		walk(this.root, "");
		return out;
	}

	// Reads and stats are synchronous on purpose: notes are small local files, and the async API
	// costs several thread-pool round trips per file (a full sync reads tens of thousands).
	async stat(path: string): Promise<VaultFileInfo | null> {
		try {
			// lstat: a symbolic link is not a note here (list() leaves it out too; see symlinkProblem).
			const s = lstatSync(this.absolute(path));
			return s.isFile() ? fileInfo(normaliseVaultPath(path), s) : null;
		} catch {
			return null;
		}
	}

	/**
	 * The note's text. Opened without blocking and checked to be a regular file first (a named pipe
	 * would block the sync forever); refused with NoteEncodingError when the bytes are not UTF-8,
	 * so nothing is ever decoded lossily, and so nothing lossy is ever written back.
	 */
	async read(path: string): Promise<string> {
		const vaultPath = normaliseVaultPath(path);
		const fd = openSync(this.absolute(path), constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
		try {
			const s = fstatSync(fd);
			if (!s.isFile()) throw new ValidationError(notRegular(vaultPath, s).problem, { path: vaultPath });
			return decodeNote(vaultPath, readFileSync(fd));
		} finally {
			closeSync(fd);
		}
	}

	// Synchronous like reads: a first sync writes engrama_id into every note, and each async call
	// is a thread-pool round trip.
	//
	// Crash rule: rename(2) swaps the name from the old file to the new one in one step, so the
	// path always names one whole version; a crash before the rename leaves the old note (and a
	// dot-file no listing shows). No fsync: ext4 in its default mode (data=ordered with
	// auto_da_alloc) writes a file's data out before a rename over another file commits, so after
	// a crash the note is the old one or the new one byte for byte. A file system that does not
	// order them (XFS, for one) can leave an empty note after a power cut; an fsync before each
	// rename would close that at 6× the wall time of a first sync's id writes
	// (docs/benchmarks-sync.md, "Writing engrama_id"). Writing in place is 30× cheaper but can
	// leave half a note, so it is never done.
	async write(path: string, text: string): Promise<void> {
		const abs = this.writable(path);
		// Temporary dot-file + rename: a crash never leaves half a note.
		const temp = join(dirname(abs), `.${process.pid}-${Date.now()}.engrama-tmp`);
		try {
			writeFileSync(temp, text, "utf8");
			renameSync(temp, abs);
		} catch (error) {
			try {
				unlinkSync(temp);
			} catch {
				// Never created, or already gone.
			}
			throw error;
		}
	}

	async process(path: string, edit: (text: string) => string): Promise<string> {
		const text = await this.read(path);
		const next = edit(text);
		if (next !== text) await this.write(path, next);
		return next;
	}

	async create(path: string, text: string): Promise<void> {
		const abs = this.writable(path);
		await mkdir(dirname(abs), { recursive: true });
		await writeFile(abs, text, { encoding: "utf8", flag: "wx" });
	}

	async remove(path: string, ifHash: string): Promise<boolean> {
		const abs = this.writable(path);
		if (contentHash(await this.read(path)) !== ifHash) return false;
		unlinkSync(abs);
		return true;
	}

	async processFrontMatter(path: string, mutate: FrontmatterMutator, options: FrontmatterWriteOptions = {}): Promise<string | null> {
		const text = await this.read(path);
		// Optimistic check: the file must still be the version sync parsed.
		if (options.ifHash !== undefined && contentHash(text) !== options.ifHash) return null;
		const next = editFrontmatter(text, mutate, options.ifHash !== undefined ? options.known : undefined);
		if (next !== text) await this.write(path, next);
		return next;
	}

	watch(listener: VaultEventListener): () => void {
		const known = new Map(this.scan().map((f) => [f.path, f]));
		const mode = this.options.watchMode;
		if (mode !== "poll") {
			try {
				return this.watchFs(listener, known);
			} catch (error) {
				if (mode === "fs") throw error;
			}
		}
		return this.watchPoll(listener, known);
	}

	/** fs.watch reports names, not what happened: each name is re-checked against what we knew. */
	private watchFs(listener: VaultEventListener, known: Map<string, VaultFileInfo>): () => void {
		const emit = (event: VaultEvent) => listener(event);
		const check = async (name: string) => {
			const path = normaliseVaultPath(name);
			if (!path || path.split("/").some((part) => part.startsWith("."))) return;
			const info = await this.stat(path);
			if (isMarkdownPath(path)) {
				const before = known.get(path);
				if (info) {
					known.set(path, info);
					if (!before) emit({ type: "create", path });
					else if (before.mtime !== info.mtime || before.size !== info.size) emit({ type: "modify", path });
				} else if (before) {
					known.delete(path);
					emit({ type: "delete", path });
				}
				return;
			}
			// A folder appeared, vanished or was renamed: diff everything under it.
			const prefix = `${path}/`;
			let dirExists = false;
			try {
				dirExists = (await stat(this.absolute(path))).isDirectory();
			} catch {
				dirExists = false;
			}
			const now = dirExists ? this.scanUnder(path) : [];
			const nowPaths = new Set(now.map((f) => f.path));
			for (const [p] of known) {
				if (p.startsWith(prefix) && !nowPaths.has(p)) {
					known.delete(p);
					emit({ type: "delete", path: p });
				}
			}
			for (const f of now) {
				if (!known.has(f.path)) {
					known.set(f.path, f);
					emit({ type: "create", path: f.path });
				}
			}
		};
		let chain: Promise<void> = Promise.resolve();
		const watcher: FSWatcher = fsWatch(this.root, { recursive: true }, (_type, filename) => {
			if (!filename) return;
			const name = filename.toString().split(sep).join("/");
			// Checks run in order so create/delete pairs are seen in the order they happened.
			chain = chain.then(() => check(name)).catch(() => undefined);
		});
		watcher.on("error", () => undefined);
		return () => watcher.close();
	}

	private scanUnder(folder: string): VaultFileInfo[] {
		return this.scan().filter((f) => f.path.startsWith(`${folder}/`));
	}

	private watchPoll(listener: VaultEventListener, known: Map<string, VaultFileInfo>): () => void {
		let running = false;
		const timer = setInterval(() => {
			if (running) return;
			running = true;
			try {
				const now = new Map(this.scan().map((f) => [f.path, f]));
				for (const [path] of known) if (!now.has(path)) listener({ type: "delete", path });
				for (const [path, info] of now) {
					const before = known.get(path);
					if (!before) listener({ type: "create", path });
					else if (before.mtime !== info.mtime || before.size !== info.size) listener({ type: "modify", path });
				}
				known.clear();
				for (const [path, info] of now) known.set(path, info);
			} finally {
				running = false;
			}
		}, this.options.pollIntervalMs);
		return () => clearInterval(timer);
	}
}

function twoForms(path: string): SkippedFile {
	return {
		path,
		problem: "Two files have this name, one of them spelt in decomposed Unicode (NFD, as macOS writes names); Obsidian shows only one, and only the composed (NFC) one is synced.",
		action: "Merge the two notes or rename one of them.",
	};
}

/** A `.md` name that is a named pipe, socket or device: reported, never opened for reading. */
function notRegular(path: string, s: Stats): SkippedFile {
	const kind = s.isFIFO() ? "a named pipe (FIFO)" : s.isSocket() ? "a socket" : s.isCharacterDevice() || s.isBlockDevice() ? "a device" : "not a regular file";
	return {
		path,
		problem: `It is ${kind}, not a regular file, although its name ends in .md, so it is not synced.`,
		action: "Remove it or give it another name; a note must be a regular file.",
	};
}

/** Birth time where the file system records it (Node gives 0 where it does not). */
function fileInfo(path: string, s: Stats): VaultFileInfo {
	const info = { path, mtime: Math.floor(s.mtimeMs), size: s.size };
	return s.birthtimeMs > 0 ? { ...info, ctime: Math.floor(s.birthtimeMs) } : info;
}

/** The templates folder a vault's core Templates plugin uses (.obsidian/templates.json), if any. */
export async function obsidianTemplatesFolder(root: string, configFolder = ".obsidian"): Promise<string | undefined> {
	try {
		const data: unknown = JSON.parse(await readFile(join(root, configFolder, "templates.json"), "utf8"));
		const folder = data && typeof data === "object" ? (data as { folder?: unknown }).folder : undefined;
		return typeof folder === "string" && folder.trim() ? normaliseVaultPath(folder) : undefined;
	} catch {
		return undefined;
	}
}

export interface NodeVaultSyncOptions {
	readonly memory: Memory;
	readonly scope: Scope;
	readonly vaultPath: string;
	readonly settings?: Partial<SyncSettings>;
	readonly watchMode?: FolderVaultSourceOptions["watchMode"];
	readonly onBatch?: (report: SyncReport) => void;
	readonly onError?: (error: unknown) => void;
}

/**
 * VaultSync over a folder on disk with Node timers (command line, MCP serve, scripts). The vault's
 * Templates folder (.obsidian/templates.json) is added to the excluded folders.
 */
export async function createNodeVaultSync(options: NodeVaultSyncOptions): Promise<{ sync: VaultSync; source: FolderVaultSource }> {
	const source = new FolderVaultSource(options.vaultPath, { watchMode: options.watchMode });
	const configFolder = options.settings?.configFolder ?? DEFAULT_SYNC_SETTINGS.configFolder;
	const templates = await obsidianTemplatesFolder(source.root, configFolder);
	const excluded = [...(options.settings?.excludedFolders ?? DEFAULT_SYNC_SETTINGS.excludedFolders)];
	if (templates && !excluded.some((f) => f.toLowerCase() === templates.toLowerCase())) excluded.push(templates);
	const sync = new VaultSync({
		memory: options.memory,
		source,
		scope: options.scope,
		settings: { moduleLabels: shippedModuleLabels(options.memory.profile), ...options.settings, excludedFolders: excluded },
		timers: { setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout) },
		onBatch: options.onBatch,
		onError: options.onError,
		now: () => performance.now(),
	});
	return { sync, source };
}
