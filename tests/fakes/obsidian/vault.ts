// Vault: files, folders, reads (fakeHoldReads holds them), writes and their events. Part of the one fake of `obsidian`: import it through tests/fakes/obsidian.ts.
import { Events } from "./events";
import { type FakeFileSystem } from "./files";
import { MetadataCache } from "./metadata";
import { normalizePath } from "./util";

export interface FileStats {
	ctime: number;
	mtime: number;
	size: number;
}

export abstract class TAbstractFile {
	vault!: Vault;
	path = "";
	name = "";
	parent: TFolder | null = null;
}

export class TFile extends TAbstractFile {
	stat: FileStats = { ctime: 0, mtime: 0, size: 0 };
	basename = "";
	extension = "";
}

export class TFolder extends TAbstractFile {
	children: TAbstractFile[] = [];
}

export function nameOf(path: string): string {
	return path.slice(path.lastIndexOf("/") + 1);
}

export function parentOf(path: string): string {
	const at = path.lastIndexOf("/");
	return at < 0 ? "/" : path.slice(0, at);
}

export interface DataWriteOptions {
	ctime?: number;
	mtime?: number;
}

/** The adapter Obsidian gives the vault (DataAdapter); the desktop one is a FileSystemAdapter. */
export class DataAdapterBase {
	constructor(protected readonly fsys: FakeFileSystem) {}
	exists(path: string): Promise<boolean> {
		return Promise.resolve(this.fsys.stat(normalizePath(path)) !== null);
	}
	stat(path: string): Promise<{ type: "file" | "folder"; ctime: number; mtime: number; size: number } | null> {
		return Promise.resolve(this.fsys.stat(normalizePath(path)));
	}
	read(path: string): Promise<string> {
		return Promise.resolve().then(() => this.fsys.read(normalizePath(path)));
	}
	readBinary(path: string): Promise<ArrayBuffer> {
		return Promise.resolve().then(() => {
			const bytes = this.fsys.readBinary(normalizePath(path));
			return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
		});
	}
	write(path: string, data: string): Promise<void> {
		return Promise.resolve().then(() => this.fsys.write(normalizePath(path), data));
	}
	writeBinary(path: string, data: ArrayBuffer): Promise<void> {
		return Promise.resolve().then(() => this.fsys.write(normalizePath(path), new Uint8Array(data)));
	}
	mkdir(path: string): Promise<void> {
		return Promise.resolve().then(() => this.fsys.mkdir(normalizePath(path)));
	}
	remove(path: string): Promise<void> {
		return Promise.resolve().then(() => this.fsys.remove(normalizePath(path)));
	}
	rmdir(path: string, _recursive: boolean): Promise<void> {
		return Promise.resolve().then(() => this.fsys.rmdir(normalizePath(path)));
	}
	rename(from: string, to: string): Promise<void> {
		return Promise.resolve().then(() => this.fsys.rename(normalizePath(from), normalizePath(to)));
	}
}

export class FileSystemAdapter extends DataAdapterBase {
	getBasePath(): string {
		return this.fsys.basePath;
	}
}

/** The adapter of Obsidian mobile: no base path, no Node fs. */
export class CapacitorAdapter extends DataAdapterBase {}

export class Vault extends Events {
	readonly adapter: FileSystemAdapter | CapacitorAdapter;
	configDir = ".obsidian";
	private readonly files = new Map<string, TAbstractFile>();
	private readonly root: TFolder;
	/** @internal the app's metadata cache, updated on every change. */
	metadata?: MetadataCache;

	constructor(readonly fsys: FakeFileSystem, options: { mobile?: boolean } = {}) {
		super();
		this.adapter = options.mobile ? new CapacitorAdapter(fsys) : new FileSystemAdapter(fsys);
		this.root = new TFolder();
		this.root.vault = this;
		this.root.path = "/";
		this.root.name = "";
		this.files.set("/", this.root);
		this.load();
	}

	/** Reads the whole tree (what Obsidian does at startup). Hidden folders are not indexed. */
	private load(): void {
		const entries = this.fsys.list().filter((e) => !e.path.split("/").some((part) => part.startsWith(".")));
		entries.sort((a, b) => a.path.split("/").length - b.path.split("/").length || a.path.localeCompare(b.path));
		for (const entry of entries) {
			if (entry.stat.type === "folder") this.attachFolder(entry.path);
			else this.attachFile(entry.path, entry.stat);
		}
	}

	private attachFolder(path: string): TFolder {
		const existing = this.files.get(path);
		if (existing instanceof TFolder) return existing;
		const folder = new TFolder();
		folder.vault = this;
		folder.path = path;
		folder.name = nameOf(path);
		this.link(folder, parentOf(path));
		return folder;
	}

	private attachFile(path: string, stat: FileStats): TFile {
		const file = new TFile();
		file.vault = this;
		this.setFilePath(file, path);
		file.stat = { ctime: stat.ctime, mtime: stat.mtime, size: stat.size };
		this.link(file, parentOf(path));
		return file;
	}

	private setFilePath(file: TFile, path: string): void {
		file.path = path;
		file.name = nameOf(path);
		const dot = file.name.lastIndexOf(".");
		file.basename = dot > 0 ? file.name.slice(0, dot) : file.name;
		file.extension = dot > 0 ? file.name.slice(dot + 1) : "";
	}

	private link(item: TAbstractFile, parentPath: string): void {
		const parent = parentPath === "/" ? this.root : this.attachFolder(parentPath);
		item.parent = parent;
		parent.children.push(item);
		this.files.set(item.path, item);
	}

	private unlink(item: TAbstractFile): void {
		if (item.parent) item.parent.children = item.parent.children.filter((c) => c !== item);
		this.files.delete(item.path);
		if (item instanceof TFolder) for (const child of [...item.children]) this.unlink(child);
	}

	getName(): string {
		return "Fake vault";
	}

	getRoot(): TFolder {
		return this.root;
	}

	getAbstractFileByPath(path: string): TAbstractFile | null {
		return this.files.get(normalizePath(path)) ?? null;
	}

	getFileByPath(path: string): TFile | null {
		const file = this.getAbstractFileByPath(path);
		return file instanceof TFile ? file : null;
	}

	getFolderByPath(path: string): TFolder | null {
		const folder = this.getAbstractFileByPath(path);
		return folder instanceof TFolder ? folder : null;
	}

	getFiles(): TFile[] {
		return [...this.files.values()].filter((f): f is TFile => f instanceof TFile);
	}

	getMarkdownFiles(): TFile[] {
		return this.getFiles().filter((f) => f.extension === "md");
	}

	async read(file: TFile): Promise<string> {
		await Promise.resolve();
		if (heldReads) {
			heldReads.onWaiting();
			await heldReads.released;
		}
		return this.fsys.read(file.path);
	}

	cachedRead(file: TFile): Promise<string> {
		return this.read(file);
	}

	async readBinary(file: TFile): Promise<ArrayBuffer> {
		await Promise.resolve();
		const bytes = this.fsys.readBinary(file.path);
		return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
	}

	async create(path: string, data: string, _options?: DataWriteOptions): Promise<TFile> {
		const p = normalizePath(path);
		await Promise.resolve();
		if (this.files.has(p) || this.fsys.stat(p)) throw new Error("File already exists.");
		const parent = parentOf(p);
		if (parent !== "/" && !(this.files.get(parent) instanceof TFolder)) throw new Error(`Folder does not exist: ${parent}`);
		this.fsys.write(p, data);
		const file = this.attachFile(p, this.statOf(p));
		this.metadata?.index(file);
		this.trigger("create", file);
		return file;
	}

	async createFolder(path: string): Promise<TFolder> {
		const p = normalizePath(path);
		await Promise.resolve();
		if (this.files.has(p)) throw new Error("Folder already exists.");
		this.fsys.mkdir(p);
		const folder = this.attachFolder(p);
		this.trigger("create", folder);
		return folder;
	}

	async modify(file: TFile, data: string, _options?: DataWriteOptions): Promise<void> {
		await Promise.resolve();
		this.write(file, data);
	}

	async process(file: TFile, fn: (data: string) => string, _options?: DataWriteOptions): Promise<string> {
		await Promise.resolve();
		const next = fn(this.fsys.read(file.path));
		this.write(file, next);
		return next;
	}

	private write(file: TFile, data: string): void {
		if (!this.files.has(file.path)) throw new Error(`File does not exist: ${file.path}`);
		this.fsys.write(file.path, data);
		file.stat = this.statOf(file.path);
		this.metadata?.index(file);
		this.trigger("modify", file);
	}

	async rename(file: TAbstractFile, newPath: string): Promise<void> {
		const to = normalizePath(newPath);
		await Promise.resolve();
		if (this.files.has(to)) throw new Error("Destination file already exists!");
		const parent = parentOf(to);
		if (parent !== "/" && !(this.files.get(parent) instanceof TFolder)) throw new Error(`Folder does not exist: ${parent}`);
		const oldPath = file.path;
		this.fsys.rename(oldPath, to);
		const moved: [TAbstractFile, string][] = [];
		const relink = (item: TAbstractFile, path: string) => {
			const before = item.path;
			this.files.delete(before);
			if (item instanceof TFile) this.setFilePath(item, path);
			else {
				item.path = path;
				item.name = nameOf(path);
			}
			this.files.set(path, item);
			moved.push([item, before]);
			if (item instanceof TFolder) for (const child of item.children) relink(child, `${path}/${child.name}`);
		};
		if (file.parent) file.parent.children = file.parent.children.filter((c) => c !== file);
		relink(file, to);
		const newParent = parent === "/" ? this.root : (this.files.get(parent) as TFolder);
		file.parent = newParent;
		newParent.children.push(file);
		for (const [item, before] of moved) {
			if (item instanceof TFile) this.metadata?.move(before, item);
			this.trigger("rename", item, before);
		}
	}

	async delete(file: TAbstractFile, _force?: boolean): Promise<void> {
		await Promise.resolve();
		if (file instanceof TFolder) this.fsys.rmdir(file.path);
		else this.fsys.remove(file.path);
		this.dropTree(file);
	}

	private dropTree(file: TAbstractFile): void {
		const items: TAbstractFile[] = [];
		const collect = (item: TAbstractFile) => {
			items.push(item);
			if (item instanceof TFolder) item.children.forEach(collect);
		};
		collect(file);
		this.unlink(file);
		for (const item of items) {
			if (item instanceof TFile) this.metadata?.drop(item);
			this.trigger("delete", item);
		}
	}

	private statOf(path: string): FileStats {
		const s = this.fsys.stat(path);
		return { ctime: s?.ctime ?? Date.now(), mtime: s?.mtime ?? Date.now(), size: s?.size ?? 0 };
	}
}


let heldReads: { released: Promise<void>; onWaiting: () => void } | null = null;

/**
 * Holds every Vault.read/cachedRead until `release()` (long work caught mid-way, without timing):
 * `waiting` resolves once a read is held.
 */
export function fakeHoldReads(): { waiting: Promise<void>; release(): void } {
	let release!: () => void;
	let waited!: () => void;
	const released = new Promise<void>((resolve) => (release = resolve));
	const waiting = new Promise<void>((resolve) => (waited = resolve));
	const hold = { released, onWaiting: waited };
	heldReads = hold;
	return {
		waiting,
		release() {
			if (heldReads === hold) heldReads = null;
			release();
		},
	};
}
