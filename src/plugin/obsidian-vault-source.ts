import { TFile, TFolder, normalizePath, type App, type EventRef, type TAbstractFile } from "obsidian";
import { NotFoundError } from "../engine/errors";
import { normaliseVaultPath } from "../engine";
import { contentHash, decodeNote, type FrontmatterMutator, isMarkdownPath, parentFolder, type VaultEvent, type VaultEventListener, type VaultFileInfo, type VaultSource } from "../engine/host";
import type { Lane, WorkGate } from "./work-gate";

export interface ObsidianVaultSourceOptions {
	/** Only notes under these folders are visible (empty: the whole vault). */
	readonly includeFolders?: () => readonly string[];
	/** Folders always visible even when `includeFolders` is set (where agent memories are written). */
	readonly alwaysInclude?: () => readonly string[];
	/** Yields to the UI between files and stops cancelled work. */
	readonly gate?: WorkGate;
	/** Whose calls these are (work-gate.ts): "others" (agents) are not stopped by a cancelled task. */
	readonly lane?: Lane;
}

function inFolder(path: string, folder: string): boolean {
	const p = path.toLowerCase();
	const f = folder.toLowerCase();
	return f === "" || p === f || p.startsWith(`${f}/`);
}

/**
 * The sync engine's VaultSource over the Obsidian API: Vault for files, FileManager for
 * frontmatter (Obsidian's own read-modify-write), vault events for changes.
 */
export class ObsidianVaultSource implements VaultSource {
	constructor(
		private readonly app: App,
		private readonly options: ObsidianVaultSourceOptions = {},
	) {}

	/** True when the note at `path` is in the part of the vault sync sees. */
	isVisible(path: string): boolean {
		const include = this.options.includeFolders?.() ?? [];
		if (include.length === 0) return true;
		const always = this.options.alwaysInclude?.() ?? [];
		return [...include, ...always].some((folder) => inFolder(path, normaliseVaultPath(folder)));
	}

	async list(): Promise<readonly VaultFileInfo[]> {
		const all = this.app.vault.getMarkdownFiles();
		const out: VaultFileInfo[] = [];
		// A 10k-note vault took 25-45 ms in one step: a gate pass every LIST_SLICE files.
		for (let i = 0; i < all.length; i += LIST_SLICE) {
			if (i > 0) await this.options.gate?.pass(undefined, this.options.lane);
			for (const file of all.slice(i, i + LIST_SLICE)) if (this.isVisible(file.path)) out.push(infoOf(file));
		}
		this.options.gate?.record("sync.total", out.length);
		return out;
	}

	stat(path: string): Promise<VaultFileInfo | null> {
		const file = this.app.vault.getAbstractFileByPath(normalizePath(path));
		return Promise.resolve(file instanceof TFile && this.isVisible(file.path) ? infoOf(file) : null);
	}

	async read(path: string): Promise<string> {
		await this.options.gate?.pass("vault.read", this.options.lane);
		const file = this.fileAt(path);
		return this.checkedText(file, await this.app.vault.cachedRead(file));
	}

	async process(path: string, edit: (text: string) => string): Promise<string> {
		await this.options.gate?.pass("vault.write", this.options.lane);
		const file = this.fileAt(path);
		await this.checkedText(file, await this.app.vault.cachedRead(file));
		return this.app.vault.process(file, edit);
	}

	async create(path: string, text: string): Promise<void> {
		await this.options.gate?.pass("vault.create", this.options.lane);
		const target = normalizePath(path);
		await this.ensureFolder(parentFolder(target));
		await this.app.vault.create(target, text);
	}

	/** As the person's own deletion setting says (Obsidian's trash, the system's, or for good). */
	async remove(path: string, ifHash: string): Promise<boolean> {
		await this.options.gate?.pass("vault.delete", this.options.lane);
		const file = this.fileAt(path);
		if (contentHash(await this.app.vault.read(file)) !== ifHash) return false;
		await this.app.fileManager.trashFile(file);
		return true;
	}

	async processFrontMatter(path: string, mutate: FrontmatterMutator): Promise<void> {
		await this.options.gate?.pass("vault.frontmatter", this.options.lane);
		const file = this.fileAt(path);
		await this.checkedText(file, await this.app.vault.cachedRead(file));
		await this.app.fileManager.processFrontMatter(file, mutate);
	}

	/**
	 * Obsidian decodes a note that is not UTF-8 with U+FFFD for each bad byte, and writing that text
	 * back would destroy the bytes. Text holding U+FFFD is checked against the file's bytes: a note
	 * that is not UTF-8 is refused (NoteEncodingError), so it is neither synced nor rewritten. Obsidian
	 * reads the file again inside its own write, so a file replaced in the milliseconds between
	 * the check and that read is not covered.
	 */
	private async checkedText(file: TFile, text: string): Promise<string> {
		if (!text.includes("\uFFFD")) return text;
		decodeNote(file.path, new Uint8Array(await this.app.vault.readBinary(file)));
		return text;
	}

	watch(listener: VaultEventListener): () => void {
		const vault = this.app.vault;
		const emit = (event: VaultEvent) => listener(event);
		const refs: EventRef[] = [
			vault.on("create", (file) => {
				if (this.isNote(file)) emit({ type: "create", path: file.path });
			}),
			vault.on("modify", (file) => {
				if (this.isNote(file)) emit({ type: "modify", path: file.path });
			}),
			vault.on("delete", (file) => {
				if (file instanceof TFile && isMarkdownPath(file.path) && this.isVisible(file.path)) emit({ type: "delete", path: file.path });
			}),
			vault.on("rename", (file, oldPath) => {
				if (!(file instanceof TFile) || !(isMarkdownPath(file.path) || isMarkdownPath(oldPath))) return;
				const was = isMarkdownPath(oldPath) && this.isVisible(oldPath);
				const is = this.isNote(file);
				if (was && is) emit({ type: "rename", path: file.path, oldPath });
				else if (was) emit({ type: "delete", path: oldPath });
				else if (is) emit({ type: "create", path: file.path });
			}),
		];
		return () => {
			for (const ref of refs) vault.offref(ref);
		};
	}

	private isNote(file: TAbstractFile): file is TFile {
		return file instanceof TFile && file.extension === "md" && this.isVisible(file.path);
	}

	private fileAt(path: string): TFile {
		const file = this.app.vault.getAbstractFileByPath(normalizePath(path));
		if (!(file instanceof TFile)) throw new NotFoundError(`The note "${path}" does not exist in the vault.`);
		return file;
	}

	private async ensureFolder(folder: string): Promise<void> {
		if (folder === "") return;
		const existing = this.app.vault.getAbstractFileByPath(folder);
		if (existing instanceof TFolder) return;
		if (existing) throw new NotFoundError(`"${folder}" is a file, so no note can be created inside it.`);
		await this.ensureFolder(parentFolder(folder));
		try {
			await this.app.vault.createFolder(folder);
		} catch (error) {
			// Another writer may have created it in the meantime; only a missing folder is a failure.
			if (!(this.app.vault.getAbstractFileByPath(folder) instanceof TFolder)) throw error;
		}
	}
}

const LIST_SLICE = 2000;

function infoOf(file: TFile): VaultFileInfo {
	return { path: file.path, mtime: file.stat.mtime, size: file.stat.size, ctime: file.stat.ctime };
}
