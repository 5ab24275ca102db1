import { Component, FileSystemAdapter, Platform, type App } from "obsidian";
import { createBackend, type Backend } from "../backends/factory";
import type { EngramaConfig } from "../config/engrama-config";
import { createHttpEmbeddingProvider } from "../engine/embedding/create-embedding-provider";
import { errorMessage, ValidationError } from "../engine/errors";
import { resolveIdentity } from "../engine/identity";
import { Memory } from "../engine/memory";
import type { Profile } from "../engine/profile";
import type { EmbeddingProvider } from "../engine/protocols";
import { createSkills, type Skills } from "../engine/skills";
import { createVaultSync, type VaultSync } from "../engine/sync/vault-sync";
import type { SyncReport } from "../engine/sync/sync-report";
import type { Scope } from "../engine/types";
import { createAdapterSnapshotStorage } from "./adapter-snapshot-storage";
import { bundledModuleLabels, loadBundledProfile } from "./bundled-profiles";
import { ObsidianVaultSource } from "./obsidian-vault-source";
import { localModelOf } from "./local-model/catalogue";
import { LocalEmbeddingProvider, notDownloadedMessage } from "./local-model/local-embedding-provider";
import { ModelStore } from "./local-model/model-store";
import { createRequestUrlHttpClient, windowSleep } from "./request-url-http-client";
import { noticeInfo } from "./notices";
import { activeModules, engineConfig, NEO4J_DESKTOP_ONLY, settingsForDevice, syncSettingsOf, type PluginSettings } from "./settings";
import { gatedEmbedder, gatedGraphStore, gatedVectorStore, WorkGate } from "./work-gate";

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
}

export type EngineState =
	| { readonly kind: "idle" }
	| { readonly kind: "starting" }
	| { readonly kind: "ready"; readonly engine: Engine }
	| { readonly kind: "failed"; readonly error: string };

export interface EngineHostDeps {
	readonly app: App;
	/** The plugin's own folder, vault-relative (data.json and, by default, the database). */
	readonly pluginFolder: string;
	readonly settings: () => PluginSettings;
	/** After each event batch sync ran (status bar, panel). */
	readonly onSyncBatch?: (report: SyncReport) => void;
	readonly onSyncError?: (error: unknown) => void;
}

/**
 * Owns the open engine: database, embedder, profile, skills and the vault sync over the Obsidian
 * API. A Component so that unloading the plugin closes it; `restart` applies settings that need
 * a new engine without restarting Obsidian.
 */
export class EngineHost extends Component {
	readonly gate = new WorkGate();
	private current: EngineState = { kind: "idle" };
	private opening: Promise<Engine | null> | null = null;
	private closing: Promise<void> = Promise.resolve();
	private readonly listeners = new Set<() => void>();
	/** The mobile Neo4j → SQLite fallback is told once per session, not at every reopen. */
	private toldNeo4jFallback = false;

	constructor(private readonly deps: EngineHostDeps) {
		super();
	}

	get state(): EngineState {
		return this.current;
	}

	get engine(): Engine | null {
		return this.current.kind === "ready" ? this.current.engine : null;
	}

	/** Called on every state change (status bar, panel); returns the unsubscribe function. */
	onChange(listener: () => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	changed(): void {
		for (const listener of this.listeners) listener();
	}

	private setState(state: EngineState): void {
		this.current = state;
		this.changed();
	}

	/** Opens the engine (once); resolves with null when it failed (the state says why). */
	start(): Promise<Engine | null> {
		this.opening ??= this.closing.then(() => this.open());
		return this.opening;
	}

	/** The open engine, waiting for it while it starts; throws a message for people otherwise. */
	async ready(): Promise<Engine> {
		const engine = this.current.kind === "idle" ? null : await (this.opening ?? Promise.resolve(null));
		if (engine) return engine;
		if (this.current.kind === "failed") throw new ValidationError(`Engrama could not open its memory: ${this.current.error}`);
		throw new ValidationError("Engrama is still starting. Try again in a moment.");
	}

	/** Closes and reopens with the current settings. */
	async restart(): Promise<Engine | null> {
		await this.stop();
		return this.start();
	}

	/** Closes the engine; safe to call more than once. */
	stop(): Promise<void> {
		const opening = this.opening;
		this.opening = null;
		this.closing = this.closing.then(async () => {
			const engine = opening ? await opening : null;
			if (engine) await closeEngine(engine);
			if (this.current.kind !== "idle") this.setState({ kind: "idle" });
		});
		return this.closing;
	}

	/** Resolves when the last close finished (tests, the unload path). */
	whenClosed(): Promise<void> {
		return this.closing;
	}

	override onunload(): void {
		void this.stop();
	}

	private async open(): Promise<Engine | null> {
		this.setState({ kind: "starting" });
		try {
			// A stop() during opening awaits this promise and closes what it returns.
			const engine = await openEngine(this.deps, this.gate, () => {
				if (this.toldNeo4jFallback) return;
				this.toldNeo4jFallback = true;
				noticeInfo(`this vault's settings choose Neo4j; this device uses SQLite instead. ${NEO4J_DESKTOP_ONLY}`, 10_000);
			});
			this.setState({ kind: "ready", engine });
			return engine;
		} catch (error) {
			console.error("Engrama: opening the memory failed", error);
			this.setState({ kind: "failed", error: errorMessage(error) });
			return null;
		}
	}
}

async function openEngine(deps: EngineHostDeps, gate: WorkGate, onNeo4jFallback: () => void): Promise<Engine> {
	const { app } = deps;
	const { settings, neo4jFallback } = settingsForDevice(deps.settings(), Platform.isDesktopApp);
	if (neo4jFallback) onNeo4jFallback();
	const profile = loadBundledProfile(settings.profile, activeModules(settings));
	const adapter = app.vault.adapter;
	const onDisk = Platform.isDesktopApp && adapter instanceof FileSystemAdapter;
	const vaultDbPath = settings.dbPath !== "" && !isAbsolute(settings.dbPath) ? settings.dbPath : `${deps.pluginFolder}/engrama.db`;
	const dbPath = onDisk ? (isAbsolute(settings.dbPath) ? settings.dbPath : `${adapter.getBasePath()}/${vaultDbPath}`) : vaultDbPath;
	const config = engineConfig(settings, dbPath);
	// Mobile (and any adapter without a real folder): the database lives in memory, snapshots go through the adapter.
	const snapshot = onDisk ? undefined : createAdapterSnapshotStorage(adapter, vaultDbPath);
	if (onDisk && config.backend === "sqlite") await ensureAdapterFolder(app, parentOf(vaultDbPath), isAbsolute(settings.dbPath));
	const backend = await createBackend(config, { snapshot });
	try {
		const scope = await resolveIdentity(backend.graph, config);
		const { embedder, note, ready } = await buildEmbedder(config, new ModelStore(adapter, deps.pluginFolder));
		const memory = new Memory({
			graph: gatedGraphStore(backend.graph, gate),
			vectors: backend.vectors ? gatedVectorStore(backend.vectors, gate) : null,
			embedder: embedder ? gatedEmbedder(embedder, gate) : null,
			profile,
			search: {
				fusion: config.search.fusionMode,
				rrfK: config.search.rrfK,
				alpha: config.search.alpha,
				graphWeight: config.search.graphWeight,
				temporalWeight: config.search.temporalWeight,
				trustWeight: config.search.trustWeight,
			},
		});
		const skills = createSkills(memory, { resolver: config.resolver });
		const notesFolder = settings.sync.notesFolder;
		const source = new ObsidianVaultSource(app, {
			includeFolders: () => deps.settings().sync.includeFolders,
			alwaysInclude: () => [notesFolder, deps.settings().sync.insightsFolder],
			gate,
		});
		const sync = createVaultSync({
			memory,
			source,
			scope,
			settings: { ...syncSettingsOf(settings, app.vault.configDir, deps.pluginFolder), moduleLabels: bundledModuleLabels(profile) },
			timers: { setTimeout: (cb, ms) => window.setTimeout(cb, ms), clearTimeout: (handle) => window.clearTimeout(handle as number) },
			onBatch: (report) => deps.onSyncBatch?.(report),
			onError: (error) => deps.onSyncError?.(error),
		});
		// Memories and relations written by agents (MCP) become notes and frontmatter relations.
		const detachWriter = sync.writer.attach();
		const location = config.backend === "neo4j" ? config.neo4j.uri : onDisk ? dbPath : `${vaultDbPath} (snapshot)`;
		return { memory, skills, scope, profile, config, backend, source, sync, location, embedder, embedderNote: note, embedderReady: ready, detachWriter };
	} catch (error) {
		await backend.graph.close();
		throw error;
	}
}

async function buildEmbedder(config: EngramaConfig, store: ModelStore): Promise<{ embedder: EmbeddingProvider | null; note: string; ready: boolean }> {
	const settings = config.embedding;
	switch (settings.provider) {
		case "none":
			return { embedder: null, note: "off", ready: false };
		case "local": {
			// transformers.js + onnxruntime-web in this renderer; model and runtime come from the plugin folder.
			const embedder = new LocalEmbeddingProvider({ store, model: localModelOf(settings.model) });
			const ready = await embedder.prepare();
			return { embedder, note: ready ? `local ${embedder.model}` : notDownloadedMessage(embedder.model), ready };
		}
		default:
			return { embedder: createHttpEmbeddingProvider(settings, createRequestUrlHttpClient(), windowSleep), note: `${settings.provider}`, ready: true };
	}
}

async function closeEngine(engine: Engine): Promise<void> {
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
