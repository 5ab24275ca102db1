import type { App } from "obsidian";
import type { LanguageShare, VaultSync } from "../engine";
import { localModelOf } from "./local-model/catalogue";
import type { PluginSettings } from "./settings";

/** The choices the welcome asks for before anything in the vault changes. */
export interface FirstRunChoices {
	/** true: engrama_id in each note's frontmatter; false: notes are followed by their path. */
	readonly writeIds: boolean;
	readonly excludeFolders: readonly string[];
	/** Agents' memories (MCP) become notes in the notes folder. */
	readonly agentsWriteNotes: boolean;
	/** Download the local embedding model after the start. */
	readonly downloadModel: boolean;
	/** Which local model (a Hugging Face id): the English default, or the multilingual one for a vault mostly in other languages. */
	readonly model: string;
}

/** The welcome's first answers: the settings' defaults; the model is offered checked on desktop (a phone pays for the download). */
export function choicesOf(settings: PluginSettings, desktop: boolean): FirstRunChoices {
	return {
		writeIds: settings.sync.writeEngramaIds,
		excludeFolders: settings.sync.excludeFolders,
		agentsWriteNotes: settings.sync.writeGraphToVault,
		downloadModel: desktop && settings.embedding.provider === "none",
		model: localModelOf(settings.embedding.model),
	};
}

/** The settings the choices describe (the welcome's start saves them; the model is chosen once it is downloaded). */
export function applyChoices(draft: PluginSettings, choices: FirstRunChoices): void {
	draft.sync.writeEngramaIds = choices.writeIds;
	draft.sync.excludeFolders = [...choices.excludeFolders];
	draft.sync.writeGraphToVault = choices.agentsWriteNotes;
}

/** One reason notes are left out, with how many and a few of them. */
export interface SkipReason {
	readonly reason: string;
	readonly count: number;
	readonly examples: readonly string[];
}

/** What starting would do, from a dry run that wrote nothing anywhere. */
export interface FirstRunPreview {
	/** Notes that become nodes. */
	readonly notes: number;
	/** Notes that would get an engrama_id line (0 when notes are followed by path). */
	readonly ids: number;
	readonly idPaths: readonly string[];
	/** Links to notes that do not exist yet (placeholders). */
	readonly stubs: number;
	readonly relations: number;
	readonly skipped: readonly SkipReason[];
	/** Whether the vault folder holds a .git folder (ids then show as changed files). */
	readonly git: boolean;
	/** The languages the notes are written in (from a sample of them), most frequent first. */
	readonly languages: readonly LanguageShare[];
}

/** Markdown notes without an engrama_id in their frontmatter, as Obsidian's metadata cache knows them. */
export function notesWithoutId(app: App, synced: (path: string) => boolean): string[] {
	const out: string[] = [];
	for (const file of app.vault.getMarkdownFiles()) {
		if (!synced(file.path)) continue;
		const frontmatter = app.metadataCache.getFileCache(file)?.frontmatter;
		if (frontmatter?.engrama_id === undefined) out.push(file.path);
	}
	return out;
}

/** True when the vault folder is a git working tree (a `.git` folder or file at its root). */
export async function vaultUnderGit(app: App): Promise<boolean> {
	try {
		return await app.vault.adapter.exists(".git");
	} catch {
		return false;
	}
}

/** The notes `writeMissingIds` would (dryRun) or did write, checked in calls of `slice` notes. */
export async function idsToWrite(app: App, sync: VaultSync, options: { dryRun: boolean; slice?: number }): Promise<string[]> {
	const candidates = notesWithoutId(app, (path) => sync.isSyncedPath(path));
	const out: string[] = [];
	const slice = options.slice ?? 200;
	for (let i = 0; i < candidates.length; i += slice) out.push(...(await sync.writeMissingIds(candidates.slice(i, i + slice), { dryRun: options.dryRun })).written);
	return out;
}
