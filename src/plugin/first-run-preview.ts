// The welcome's preview: what the first start would do, run on a memory that lives only in this
// window. Loaded with import() when the welcome asks (it opens a backend: the engine's modules).
import type { App } from "obsidian";
import { createBackend } from "../backends";
import { languageShares, type LanguageShare, type SyncProblem, type VaultSync } from "../engine";
import { createVaultSync, Memory, resolveIdentity, type VaultSource } from "../engine/host";
import { bundledModuleLabels, loadBundledProfile } from "./bundled-profiles";
import { idsToWrite, vaultUnderGit, type FirstRunPreview, type SkipReason } from "./first-run";
import { ObsidianVaultSource } from "./obsidian-vault-source";
import { engineConfig } from "./engine-config";
import { activeModules, syncSettingsOf, type PluginSettings } from "./settings";
import { gatedGraphStore, WorkGate } from "./work-gate";

/**
 * The preview's vault: Obsidian's, with every write refused. The dry run never writes; this makes
 * sure of it, since the welcome promises that nothing changes before the person starts.
 */
function readOnly(source: ObsidianVaultSource): VaultSource {
	const refuse = (): never => {
		throw new Error("the first-run preview writes nothing into the vault");
	};
	return {
		list: () => source.list(),
		stat: (path) => source.stat(path),
		read: (path) => source.read(path),
		process: refuse,
		create: refuse,
		processFrontMatter: refuse,
		watch: () => () => undefined,
	};
}

/**
 * Runs what the welcome's start will run (a full sync that holds ids back, then the list of notes
 * that would get one) on a memory that lives only in this window: no database file, no vault
 * write, no data.json. The same code as the real start, so the figures are what it then does.
 */
export async function previewFirstRun(app: App, pluginFolder: string, settings: PluginSettings): Promise<FirstRunPreview> {
	const profile = loadBundledProfile(settings.profile, activeModules(settings));
	const config = engineConfig({ ...settings, backend: "sqlite", embedding: { ...settings.embedding, provider: "none" } }, "engrama-preview.db");
	// A snapshot store that keeps nothing: the database exists in memory only.
	const backend = await createBackend(config, { snapshot: { read: () => Promise.resolve(null), write: () => Promise.resolve() } });
	const gate = new WorkGate();
	try {
		const memory = new Memory({ graph: gatedGraphStore(backend.graph, gate, "task"), vectors: null, embedder: null, profile });
		const scope = await resolveIdentity(memory, config);
		const source = new ObsidianVaultSource(app, {
			includeFolders: () => settings.sync.includeFolders,
			alwaysInclude: () => [settings.sync.notesFolder, settings.sync.insightsFolder],
			gate,
		});
		const moduleLabels = await bundledModuleLabels(profile, () => Promise.resolve());
		const sync = createVaultSync({
			memory,
			source: readOnly(source),
			scope,
			settings: { ...syncSettingsOf(settings, app.vault.configDir, pluginFolder), writeGraphToVault: false, moduleLabels },
		});
		const report = await sync.fullSync({ writeIds: false });
		const idPaths = settings.sync.writeEngramaIds ? await idsToWrite(app, sync, { dryRun: true }) : [];
		return {
			notes: report.counts.nodesCreated,
			ids: idPaths.length,
			idPaths,
			stubs: report.counts.stubsCreated,
			relations: report.counts.relationsAdded,
			skipped: skipReasons(app, sync, report.counts.filesSkipped, report.problems),
			git: await vaultUnderGit(app),
			languages: await sampleLanguages(source, (path) => sync.isSyncedPath(path)),
		};
	} finally {
		await backend.graph.close();
	}
}

/** Notes read for the language guess: enough to tell a vault's languages, few enough to stay quick on 50,000 notes. */
const LANGUAGE_SAMPLE = 300;

/** The languages of an even sample of the synced notes (the model offered depends on them). */
async function sampleLanguages(source: VaultSource, synced: (path: string) => boolean): Promise<LanguageShare[]> {
	const paths = (await source.list()).map((f) => f.path).filter(synced).sort();
	const step = Math.max(1, Math.floor(paths.length / LANGUAGE_SAMPLE));
	const texts: string[] = [];
	for (let i = 0; i < paths.length && texts.length < LANGUAGE_SAMPLE; i += step) {
		// A note that cannot be read is reported by the dry run's sync; here it only leaves the sample.
		texts.push(await source.read(paths[i]).catch(() => ""));
	}
	return languageShares(texts);
}

function skipReasons(app: App, sync: VaultSync, untyped: number, problems: readonly SyncProblem[]): SkipReason[] {
	const out: SkipReason[] = [];
	const leftOut = app.vault
		.getMarkdownFiles()
		.map((f) => f.path)
		.filter((path) => !sync.isSyncedPath(path));
	if (leftOut.length > 0) out.push({ reason: "in folders left out", count: leftOut.length, examples: leftOut.slice(0, 3) });
	if (untyped > 0) out.push({ reason: "untyped or over the size limit", count: untyped, examples: [] });
	const errors = problems.filter((p) => p.severity === "error");
	const offModule = errors.filter((p) => p.module !== undefined);
	const unreadable = errors.filter((p) => p.module === undefined);
	const modules = [...new Set(offModule.map((p) => p.module))].join(", ");
	if (offModule.length > 0) out.push({ reason: `their type belongs to a module that is off (${modules}); turn it on in the settings after the start to index them`, count: offModule.length, examples: offModule.slice(0, 3).map((p) => p.path) });
	if (unreadable.length > 0) out.push({ reason: "they cannot be read as notes; after the start the sync report names each one and what to do", count: unreadable.length, examples: unreadable.slice(0, 3).map((p) => `${p.path}: ${sentence(p.problem)}`) });
	return out;
}

/** A problem as a clause of a list joined with "; " (no closing full stop). */
function sentence(problem: string): string {
	return problem.replace(/[.\s]+$/, "");
}
