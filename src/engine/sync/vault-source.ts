/**
 * What sync needs from a vault, and nothing more. Two implementations: the Obsidian API
 * (plugin) and a plain folder on disk with a file watcher (src/nodejs/folder-vault-source.ts).
 *
 * Paths are vault-relative with forward slashes ("Projects/Billing Portal.md"), never absolute,
 * in Unicode NFC (Obsidian's normalizePath).
 *
 * Over the Obsidian API: list = vault.getMarkdownFiles() with file.stat.mtime/size; stat =
 * getAbstractFileByPath; read = vault.cachedRead; process = vault.process; create = createFolder for
 * missing parents, then vault.create; processFrontMatter = app.fileManager.processFrontMatter;
 * watch = vault.on("create" | "modify" | "delete" | "rename") (rename gives the old path),
 * unsubscribed with vault.offref. Sync filters folders itself (pass Vault.configDir as
 * settings.configFolder).
 */

export interface VaultFileInfo {
	readonly path: string;
	/** Last modification time in ms since the epoch. */
	readonly mtime: number;
	/** Size in bytes. */
	readonly size: number;
	/**
	 * When the file was created, in ms since the epoch, where the platform knows it (Obsidian's
	 * stat.ctime, a file system's birth time). Decides which of two notes sharing an engrama_id is
	 * the original.
	 */
	readonly ctime?: number;
}

/** `rename` carries both paths: the Obsidian API pairs them; a folder watcher reports delete + create. */
export type VaultEvent =
	| { readonly type: "create" | "modify" | "delete"; readonly path: string }
	| { readonly type: "rename"; readonly path: string; readonly oldPath: string };

export type VaultEventListener = (event: VaultEvent) => void;

/** Mutates the parsed frontmatter in place (the shape of Obsidian's FileManager.processFrontMatter). */
export type FrontmatterMutator = (frontmatter: Record<string, unknown>) => void;

export interface FrontmatterWriteOptions {
	/** Write only if the file is still the text sync parsed (its contentHash). */
	readonly ifHash?: string;
	/**
	 * The frontmatter sync parsed from that text: a source may use it instead of parsing the YAML
	 * again (only together with ifHash, which proves the text is the same).
	 */
	readonly known?: Readonly<Record<string, unknown>>;
}

/** A file a source leaves out on purpose (a symbolic link), with why and what to do; sync reports it. */
export interface SkippedFile {
	readonly path: string;
	readonly problem: string;
	readonly action: string;
}

export interface VaultSource {
	/** Every markdown note (`.md`) in the vault with its mtime and size; the caller filters folders. */
	list(): Promise<readonly VaultFileInfo[]>;
	/** One file's info, or null when it does not exist. */
	stat(path: string): Promise<VaultFileInfo | null>;
	read(path: string): Promise<string>;
	/**
	 * Read-modify-write of an existing file's whole text, atomic against other edits (Obsidian's
	 * vault.process); resolves with the text written.
	 */
	process(path: string, edit: (text: string) => string): Promise<string>;
	/** Creates a new file and any missing folders; fails when the file exists. */
	create(path: string, text: string): Promise<void>;
	/**
	 * Read-modify-write of the frontmatter. Implementations keep the body byte-for-byte and the
	 * order of the keys the mutator did not touch; a file without frontmatter gets a new block.
	 * Optional extras for sources that can: with `ifHash`, write only if the file's contentHash
	 * still equals it (else return null, writing nothing); return the text written. Sources that
	 * cannot (the Obsidian API) ignore `ifHash` and return nothing; sync then reads the file back.
	 */
	processFrontMatter(path: string, mutate: FrontmatterMutator, options?: FrontmatterWriteOptions): Promise<string | null | void>;
	/**
	 * Optional: deletes the note if its text still hashes to `ifHash` (contentHash); true when it
	 * was deleted (an erase). A folder deletes it for good; Obsidian as the person's deletion
	 * setting says. Without it, an erase keeps the note and names it.
	 */
	remove?(path: string, ifHash: string): Promise<boolean>;
	/** Optional: the files the last `list()` left out on purpose, for the sync report. */
	skippedFiles?(): readonly SkippedFile[];
	/** Optional: why `path` (which `stat` says is no note) is left out on purpose, or null. */
	whySkipped?(path: string): Promise<SkippedFile | null>;
	/** Subscribes to file changes; returns the unsubscribe function. */
	watch(listener: VaultEventListener): () => void;
}

// Printable ASCII without a backslash (NFC by itself), and no empty or "." segment.
const PLAIN_ASCII = /^[\x20-\x5b\x5d-\x7e]*$/;
const EMPTY_OR_DOT_SEGMENT = /(?:^|\/)\.?(?:\/|$)/;

/**
 * "a\\b/./c.md" → "a/b/c.md": forward slashes, no leading "./" or "/", no empty segments, and
 * Unicode NFC (as Obsidian's normalizePath; macOS writes NFD file names). Sources map it back
 * to the name on disk.
 */
export function normaliseVaultPath(path: string): string {
	// Most paths are already normal (a sync asks for every note's several times): returned as they are.
	if (PLAIN_ASCII.test(path) && !EMPTY_OR_DOT_SEGMENT.test(path)) return path;
	return path
		.normalize("NFC")
		.replace(/\\/g, "/")
		.split("/")
		.filter((part) => part !== "" && part !== ".")
		.join("/");
}

export function isMarkdownPath(path: string): boolean {
	return path.toLowerCase().endsWith(".md");
}

/** "Projects/Billing Portal.md" → "Billing Portal". */
export function noteBasename(path: string): string {
	const file = path.slice(path.lastIndexOf("/") + 1);
	return isMarkdownPath(file) ? file.slice(0, -3) : file;
}

export function parentFolder(path: string): string {
	const at = path.lastIndexOf("/");
	return at < 0 ? "" : path.slice(0, at);
}
