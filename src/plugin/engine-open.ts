// Opening and closing the plugin's engine: database, embedder, profile, skills and the vault sync
// over the Obsidian API. EngineHost loads this module with import() when it first starts the engine
// (after layout ready), so evaluating main.js runs none of the engine (tests/plugin/main-js-start.test.ts).
import { FileSystemAdapter, Platform, type App } from "obsidian";
import { createBackend, DatabaseLockedError, type Backend } from "../backends";
import type { EngramaConfig } from "../config/engrama-config";
import { type Skills, type SyncReport, type VaultSync } from "../engine";
import { createHttpEmbeddingProvider, createSkills, createVaultSync, type EmbeddingProvider, Memory, memoryLocalModel, type Profile, recordVectorModel, resolveIdentity } from "../engine/host";
import { ValidationError } from "../engine/errors";
import type { Scope } from "../engine/types";
import { createAdapterSnapshotStorage } from "./adapter-snapshot-storage";
import { bundledModuleLabels, loadBundledProfile } from "./bundled-profiles";
import { ObsidianVaultSource } from "./obsidian-vault-source";
import { localModelOf } from "./local-model/catalogue";
import { LocalEmbeddingProvider, notDownloadedMessage } from "./local-model/local-embedding-provider";
import { modelStoreFor } from "./local-model/model-location";
import type { ModelStore } from "./local-model/model-store";
import { createRequestUrlHttpClient, windowSleep } from "./request-url-http-client";
import { noticeInfo } from "./notices";
import { withSecrets } from "./secrets";
import { engineConfig } from "./engine-config";
import { activeModules, settingsForDevice, syncSettingsOf, type PluginSettings } from "./settings";
import { gatedEmbedder, gatedGraphStore, gatedVectorStore, type Lane, type WorkGate } from "./work-gate";
import { loadNodeModules, type NodeModules } from "../platform/node-builtins";
import { DB_FILE, defaultVaultDataDir, preparePrivateDir } from "./db-location";
import { migrateLegacyDatabase } from "./legacy-database";
import { adapterStampFile, deviceOf, guardedStore, nodeStampFile, type SecondWriterError, WriterGuard } from "./writer-guard";

/** Everything a command or view needs once the engine is open. */
export interface Engine {
	readonly memory: Memory;
	readonly skills: Skills;
	readonly scope: Scope;
	readonly profile: Profile;
	readonly config: EngramaConfig;
	/** The stores without the work gate (copying a memory reads backend internals). */
	readonly backend: Backend;
	readonly source: ObsidianVaultSource;
	readonly sync: VaultSync;
	/** Where the database lives, for people (a file path, "snapshot in …" on mobile, or the Neo4j URI). */
	readonly location: string;
	/** The embedder in use, or null with the reason. */
	readonly embedder: EmbeddingProvider | null;
	readonly embedderNote: string;
	/** False while the chosen local model is not downloaded (embedderNote says so). */
	readonly embedderReady: boolean;
	/** Stops replicating agent writes (MCP remember/relate) into notes. */
	readonly detachWriter: () => void;
	/**
	 * The same engine for agents (the MCP bridge): stores on the work gate's "others" lane, so a
	 * cancelled task that is still unwinding does not fail their calls; writes share `memory`'s queue.
	 */
	readonly forAgents: { readonly memory: Memory; readonly skills: Skills; readonly source: ObsidianVaultSource };
}

export interface EngineHostDeps {
	readonly app: App;
	/** The plugin's own folder, vault-relative (data.json and, by default, the database). */
	readonly pluginFolder: string;
	readonly settings: () => PluginSettings;
	/** After each event batch sync ran (status bar, panel). */
	readonly onSyncBatch?: (report: SyncReport) => void;
	readonly onSyncError?: (error: unknown) => void;
}

/** The host's own hooks into openEngine. */
export interface OpenHooks {
	readonly onNeo4jFallback: () => void;
	/** Once: claim the database even though another device wrote it last. */
	readonly takeOver: boolean;
	/** Another device took the database while it was open: writes stopped. */
	readonly onSecondWriter: (error: SecondWriterError) => void;
}
/** Waits between attempts while another instance in this window still holds the database (~14 s in all). */
export const HELD_HERE_RETRY_MS = [250, 500, 1000, 2000, 4000, 6000];

/**
 * An update from a plugin version without the instance handover (instance-handover.ts) can start
 * this instance while the old one still closes the database: its lock is held by this very
 * process. That resolves itself within moments, so wait and retry; only then fail, saying how to
 * finish the update.
 */
export async function openWhileHeldHere<T>(open: () => Promise<T>, delays: readonly number[] = HELD_HERE_RETRY_MS): Promise<T> {
	for (let attempt = 0; ; attempt++) {
		try {
			return await open();
		} catch (error) {
			if (!(error instanceof DatabaseLockedError && error.sameProcess)) throw error;
			if (attempt >= delays.length) {
				throw new ValidationError(
					`an earlier copy of the plugin in this window still has the memory open (an update from a version without safe reloads). Reload Obsidian to finish the update. (${error.message})`,
				);
			}
			if (attempt === 0) noticeInfo("waiting for the plugin's previous copy in this window to close the memory (a plugin update)…");
			await new Promise((resolve) => window.setTimeout(resolve, delays[attempt]));
		}
	}
}

/** Where the database lives on desktop; the default moves a memory left in the plugin folder out of the synced vault. */
async function desktopDbPath(
	app: App,
	node: NodeModules,
	adapter: FileSystemAdapter,
	settings: PluginSettings,
	legacyVaultPath: string,
	vaultDbPath: string,
): Promise<string> {
	const sqlite = settingsUseSqlite(settings);
	if (settings.dbPath !== "") {
		if (sqlite) await ensureAdapterFolder(app, parentOf(vaultDbPath), isAbsolute(settings.dbPath));
		return isAbsolute(settings.dbPath) ? settings.dbPath : `${adapter.getBasePath()}/${vaultDbPath}`;
	}
	if (settings.vaultId === "") throw new ValidationError("this vault has no id yet (settings were not saved); reload the plugin.");
	const dir = defaultVaultDataDir(node, settings.vaultId);
	if (sqlite) {
		const { moved } = migrateLegacyDatabase(node, `${adapter.getBasePath()}/${legacyVaultPath}`, dir);
		if (moved) noticeInfo(`moved its memory out of the synced vault: ${moved}. The old file was kept beside it, renamed.`, 10_000);
		preparePrivateDir(node, dir);
	}
	return node.path.join(dir, DB_FILE);
}

export async function openEngine(deps: EngineHostDeps, gate: WorkGate, hooks: OpenHooks): Promise<Engine> {
	const { app } = deps;
	const { settings, neo4jFallback } = settingsForDevice(deps.settings(), Platform.isDesktopApp);
	if (neo4jFallback) hooks.onNeo4jFallback();
	// Each step of opening is tens of ms of main-thread work; a macrotask between them keeps every
	// task short (awaits alone only queue microtasks: they run in the same task).
	await nextTask();
	const profile = loadBundledProfile(settings.profile, activeModules(settings));
	await nextTask();
	const adapter = app.vault.adapter;
	const node = Platform.isDesktopApp && adapter instanceof FileSystemAdapter ? await loadNodeModules() : null;
	const onDisk = node !== null && adapter instanceof FileSystemAdapter;
	const legacyVaultPath = `${deps.pluginFolder}/${DB_FILE}`;
	const vaultDbPath = settings.dbPath !== "" && !isAbsolute(settings.dbPath) ? settings.dbPath : legacyVaultPath;
	const sqlite = settingsUseSqlite(settings);
	const dbPath = onDisk ? await desktopDbPath(app, node, adapter, settings, legacyVaultPath, vaultDbPath) : vaultDbPath;
	const config = engineConfig(withSecrets(app, settings), dbPath);
	const guard = sqlite
		? new WriterGuard(
				onDisk ? nodeStampFile(node, `${dbPath}.writer`) : adapterStampFile(adapter, `${vaultDbPath}.writer`),
				deviceOf(app, `${node ? node.os.hostname() : "a mobile device"}, vault “${app.vault.getName()}”`),
				onDisk ? dbPath : vaultDbPath,
				undefined,
				hooks.onSecondWriter,
			)
		: null;
	// Mobile (and any adapter without a real folder): the database lives in memory, snapshots go
	// through the adapter; saving a snapshot is the commit the guard checks first.
	const adapterSnapshot = onDisk ? undefined : createAdapterSnapshotStorage(adapter, vaultDbPath);
	const snapshot = adapterSnapshot && guard ? { ...adapterSnapshot, write: async (bytes: Uint8Array) => (await guard.check(), adapterSnapshot.write(bytes)) } : adapterSnapshot;
	const backend = await createBackend(config, { snapshot });
	try {
		await nextTask();
		// Desktop writes reach the file at once: each one asks the guard first.
		const graph = guard && onDisk ? guardedStore(backend.graph, guard) : backend.graph;
		const vectors = guard && onDisk && backend.vectors ? guardedStore(backend.vectors, guard) : backend.vectors;
		const { embedder, prepare } = createEmbedder(config, modelStoreFor(adapter, deps.pluginFolder), await memoryLocalModel(backend.graph, backend.vectors));
		const search = {
			fusion: config.search.fusionMode,
			rrfK: config.search.rrfK,
			alpha: config.search.alpha,
			graphWeight: config.search.graphWeight,
			temporalWeight: config.search.temporalWeight,
			trustWeight: config.search.trustWeight,
			halfLifeDays: config.search.halfLifeDays,
		};
		const onLane = (lane: Lane, sharesWritesWith?: Memory) =>
			new Memory({
				graph: gatedGraphStore(graph, gate, lane),
				vectors: vectors ? gatedVectorStore(vectors, gate, lane) : null,
				embedder: embedder ? gatedEmbedder(embedder, gate, lane) : null,
				profile,
				search,
				sharesWritesWith,
			});
		// The shared write queue belongs to the agents' face: its begin/commit serve both lanes, so a
		// cancelled task only fails its own jobs (each rolls back its savepoint), never the commit.
		const agentMemory = onLane("others");
		const memory = onLane("task", agentMemory);
		// The session's first writes, through the write queue of the lane no task cancels: the writer
		// stamp (refused before the model loads), the standalone identity, then the vectors' model.
		if (guard) await guard.claim(agentMemory, hooks.takeOver);
		const scope = await resolveIdentity(agentMemory, config);
		const { note, ready } = await prepare();
		await recordVectorModel(agentMemory);
		const skills = createSkills(memory, { resolver: config.resolver });
		const moduleLabels = await bundledModuleLabels(profile, nextTask);
		const notesFolder = settings.sync.notesFolder;
		const sourceOn = (lane: Lane) =>
			new ObsidianVaultSource(app, {
				includeFolders: () => deps.settings().sync.includeFolders,
				alwaysInclude: () => [notesFolder, deps.settings().sync.insightsFolder],
				gate,
				lane,
			});
		const source = sourceOn("task");
		const forAgents = { memory: agentMemory, skills: createSkills(agentMemory, { resolver: config.resolver }), source: sourceOn("others") };
		const sync = createVaultSync({
			memory,
			source,
			// Agents' writes have committed when their notes are written: a cancelled task must not stop those notes.
			replication: forAgents,
			scope,
			settings: { ...syncSettingsOf(settings, app.vault.configDir, deps.pluginFolder), moduleLabels },
			timers: { setTimeout: (cb, ms) => window.setTimeout(cb, ms), clearTimeout: (handle) => window.clearTimeout(handle as number) },
			onBatch: (report) => deps.onSyncBatch?.(report),
			onError: (error) => deps.onSyncError?.(error),
		});
		// Memories and relations written by agents (MCP) become notes and frontmatter relations.
		const detachWriter = sync.writer.attach();
		const location = config.backend === "neo4j" ? config.neo4j.uri : onDisk ? dbPath : `${vaultDbPath} (snapshot)`;
		return { memory, skills, scope, profile, config, backend, source, sync, location, embedder, embedderNote: note, embedderReady: ready, detachWriter, forAgents };
	} catch (error) {
		await backend.graph.close();
		throw error;
	}
}

/** One macrotask: Obsidian paints and handles input before the next step. */
function nextTask(): Promise<void> {
	return new Promise((resolve) => window.setTimeout(resolve, 0));
}

/**
 * The configured embedder, and `prepare` that readies it (a local model loads there) and says how
 * it stands. `memoryModel`: the local model of the memory's vectors, used when settings name none
 * (memoryLocalModel).
 */
function createEmbedder(
	config: EngramaConfig,
	store: ModelStore,
	memoryModel: string | undefined,
): { embedder: EmbeddingProvider | null; prepare: () => Promise<{ note: string; ready: boolean }> } {
	const settings = config.embedding;
	switch (settings.provider) {
		case "none":
			return { embedder: null, prepare: () => Promise.resolve({ note: "off", ready: false }) };
		case "local": {
			// transformers.js + onnxruntime-web in this renderer; model and runtime come from the model store (model-location.ts).
			const embedder = new LocalEmbeddingProvider({ store, model: localModelOf(settings.model || memoryModel || "") });
			const prepare = async () => {
				const ready = await embedder.prepare();
				return { note: ready ? `local ${embedder.model}` : notDownloadedMessage(embedder.model), ready };
			};
			return { embedder, prepare };
		}
		default:
			return { embedder: createHttpEmbeddingProvider(settings, createRequestUrlHttpClient(), windowSleep), prepare: () => Promise.resolve({ note: `${settings.provider}`, ready: true }) };
	}
}

export async function closeEngine(engine: Engine): Promise<void> {
	engine.detachWriter();
	try {
		await engine.sync.stop();
	} catch (error) {
		console.error("Engrama: stopping the vault sync failed", error);
	}
	await engine.memory.close();
	// The local model holds an ONNX session (WASM memory) until it is released.
	if (engine.embedder instanceof LocalEmbeddingProvider) await engine.embedder.close().catch((error: unknown) => console.error("Engrama: releasing the local model failed", error));
}

function settingsUseSqlite(settings: PluginSettings): boolean {
	return settings.backend === "sqlite";
}

function isAbsolute(path: string): boolean {
	return path.startsWith("/") || /^[a-zA-Z]:[\\/]/.test(path);
}

function parentOf(path: string): string {
	const at = path.lastIndexOf("/");
	return at < 0 ? "" : path.slice(0, at);
}

async function ensureAdapterFolder(app: App, folder: string, skip: boolean): Promise<void> {
	if (skip || folder === "" || (await app.vault.adapter.exists(folder))) return;
	await app.vault.adapter.mkdir(folder);
}
