import { normaliseVaultPath } from "./vault-source";

/** How vault ↔ graph sync behaves; the plugin settings tab and CLI flags map onto this. */
export interface SyncSettings {
	/** Obsidian's config folder (Vault.configDir); never synced. */
	readonly configFolder: string;
	/** Folders whose notes are never synced (templates, trash, the plugin's own files). */
	readonly excludedFolders: readonly string[];
	/** Folder → label for notes without `engrama_label`/`type`; the longest matching folder wins. */
	readonly folderLabels: Readonly<Record<string, string>>;
	/** Untyped notes become `Note` nodes (searchable and linked); off skips them. */
	readonly indexUntypedNotes: boolean;
	/** Write `engrama_id` into a note's frontmatter on first sync. */
	readonly writeEngramaIds: boolean;
	/** Replicate graph writes made outside the vault (CLI, MCP) into notes. */
	readonly writeGraphToVault: boolean;
	/**
	 * On a full sync, also write into notes the relations their entities gained while no writer was
	 * attached (another process without the vault). Off by default: it reads every note's edges.
	 */
	readonly backfillRelations: boolean;
	/** Where entities remembered outside the vault get their notes: `<folder>/<Label>/<name>.md`. */
	readonly notesFolder: string;
	/** Labels never written out as notes (Insights reach the vault only when approved). */
	readonly exportExcludedLabels: readonly string[];
	/** Quiet time before a burst of vault events is synced as one batch. */
	readonly debounceMs: number;
	/** Notes larger than this are reported and left alone (their stored node is kept). */
	readonly maxNoteBytes: number;
	/** Notes per graph transaction in a full sync. */
	readonly batchSize: number;
	/** Label → module for labels of profile modules that are off (so `type: Course` can say "turn on teaching"). */
	readonly moduleLabels: Readonly<Record<string, string>>;
}

export const DEFAULT_SYNC_SETTINGS: SyncSettings = {
	// Warning kept (obsidianmd/hardcoded-config-path): the default for a folder on disk (command
	// line); the plugin always passes Vault#configDir (syncSettingsOf).
	configFolder: ".obsidian",
	// ".trash" is Obsidian's own bin: deleted notes must not come back.
	excludedFolders: ["Templates", ".trash"],
	folderLabels: {},
	indexUntypedNotes: true,
	writeEngramaIds: true,
	writeGraphToVault: true,
	backfillRelations: false,
	// Not excluded on purpose: these notes are how a fresh install rebuilds agent-made memories.
	notesFolder: "Engrama",
	exportExcludedLabels: ["Insight"],
	debounceMs: 300,
	maxNoteBytes: 5 * 1024 * 1024,
	batchSize: 500,
	moduleLabels: {},
};

export function syncSettings(overrides: Partial<SyncSettings> = {}): SyncSettings {
	const merged = { ...DEFAULT_SYNC_SETTINGS, ...stripUndefined(overrides) };
	return {
		...merged,
		excludedFolders: merged.excludedFolders.map(normaliseVaultPath).filter(Boolean),
		folderLabels: Object.fromEntries(Object.entries(merged.folderLabels).map(([folder, label]) => [normaliseVaultPath(folder), label])),
	};
}

function stripUndefined<T extends object>(value: T): Partial<T> {
	return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function inFolder(path: string, folder: string): boolean {
	if (folder === "") return false;
	const p = path.toLowerCase();
	const f = folder.toLowerCase();
	return p === f || p.startsWith(`${f}/`);
}

/** True for notes sync must not touch: config folder, excluded folders, dotfiles and dot-folders. */
export function isExcludedPath(path: string, settings: SyncSettings): boolean {
	if (inFolder(path, settings.configFolder)) return true;
	// Obsidian itself never indexes dotfiles and dot-folders (.git, .trash, .obsidian).
	if (path.split("/").some((part) => part.startsWith("."))) return true;
	return settings.excludedFolders.some((folder) => inFolder(path, folder));
}

/** The label a folder mapping gives a note path, or undefined. */
export function folderLabelFor(path: string, settings: SyncSettings): string | undefined {
	let best: string | undefined;
	let bestLength = -1;
	for (const [folder, label] of Object.entries(settings.folderLabels)) {
		if (inFolder(path, folder) && folder.length > bestLength) {
			best = label;
			bestLength = folder.length;
		}
	}
	return best;
}
