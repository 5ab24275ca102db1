import { watch as fsWatch, type FSWatcher } from "node:fs";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { existsSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { ValidationError } from "../engine/errors";
import type { Memory } from "../engine/memory";
import { contentHash } from "../engine/sync/content-hash";
import { editFrontmatter } from "../engine/sync/frontmatter";
import type { SyncReport } from "../engine/sync/sync-report";
import { DEFAULT_SYNC_SETTINGS, type SyncSettings } from "../engine/sync/sync-settings";
import { VaultSync } from "../engine/sync/vault-sync";
import type { Scope } from "../engine/types";
import {
	isMarkdownPath,
	normaliseVaultPath,
	type FrontmatterMutator,
	type FrontmatterWriteOptions,
	type VaultEvent,
	type VaultEventListener,
	type VaultFileInfo,
	type VaultSource,
} from "../engine/sync/vault-source";
import { staysInsideVault } from "./vault-containment";

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
		if (!staysInsideVault(this.root, abs)) {
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
		return this.scan();
	}

	private scan(): VaultFileInfo[] {
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
				if (entry.isDirectory()) {
					if (!SKIPPED_DIRS.has(entry.name)) walk(join(dir, entry.name), disk);
				} else if (entry.isFile() && isMarkdownPath(entry.name)) {
					const path = disk.normalize("NFC");
					if (path !== disk) this.diskNames.set(path, disk);
					try {
						const s = statSync(join(dir, entry.name));
						out.push({ path, mtime: Math.floor(s.mtimeMs), size: s.size });
					} catch {
						// Vanished between readdir and stat: not there.
					}
				}
			}
		};
		walk(this.root, "");
		return out;
	}

	// Reads and stats are synchronous on purpose: notes are small local files, and the async API
	// costs several thread-pool round trips per file (a full sync reads tens of thousands).
	async stat(path: string): Promise<VaultFileInfo | null> {
		try {
			const s = statSync(this.absolute(path));
			return s.isFile() ? { path: normaliseVaultPath(path), mtime: Math.floor(s.mtimeMs), size: s.size } : null;
		} catch {
			return null;
		}
	}

	async read(path: string): Promise<string> {
		return readFileSync(this.absolute(path), "utf8");
	}

	// Synchronous like reads: a first sync writes engrama_id into every note, and each async call
	// is a thread-pool round trip.
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

	async create(path: string, text: string): Promise<void> {
		const abs = this.writable(path);
		await mkdir(dirname(abs), { recursive: true });
		await writeFile(abs, text, { encoding: "utf8", flag: "wx" });
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

export function createFolderVaultSource(root: string, options: FolderVaultSourceOptions = {}): FolderVaultSource {
	return new FolderVaultSource(root, options);
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
		settings: { ...options.settings, excludedFolders: excluded },
		timers: { setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout) },
		onBatch: options.onBatch,
		onError: options.onError,
		now: () => performance.now(),
	});
	return { sync, source };
}
