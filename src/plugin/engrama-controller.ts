import { FileSystemAdapter, Platform, type App, type Plugin } from "obsidian";
import { loadNodeModules } from "../platform/node-builtins";
import { defaultVaultDataDir, preparePrivateDir } from "./db-location";
import type { SyncReport } from "../engine";
import { ValidationError } from "../engine/errors";
import { EngineHost, type Engine } from "./engine-host";
import { localModelOf } from "./local-model/catalogue";
import { ModelDownloads } from "./local-model/model-downloads";
import { modelStoreFor } from "./local-model/model-location";
import { releaseRuntime } from "./local-model/runtime";
import { applyChoices, notesWithoutId, vaultUnderGit, type FirstRunChoices, type FirstRunPreview } from "./first-run";
import { writeIdsPaced, type IdBackfillResult } from "./id-backfill";
import { afterEarlierInstancesClosed, markClosing } from "./instance-handover";
import { McpBridge } from "./mcp-bridge";
import { mcpToken, missingSecrets } from "./secrets";
import { offerModule, offModulesOf } from "./module-offer";
import { formatCount, noticeError, noticeInfo } from "./notices";
import { pluginFolder, settingsImpact, updateSettings, type PluginSettings } from "./settings";
import { TaskRunner, type TaskControl } from "./task-runner";
import { CancelledError } from "./work-gate";

export interface GraphCounts {
	readonly nodes: number;
	readonly edges: number;
}

/** What the status bar and the panel show besides the engine state. */
export interface SyncActivity {
	/** The last event batch or full sync, for the status bar's tooltip. */
	readonly lastReport: SyncReport | null;
	readonly lastError: string | null;
}

/**
 * The plugin's state and the operations every surface shares (commands, panel, settings tab,
 * status bar): settings that validate and apply without a restart, the engine host, long tasks,
 * the MCP bridge and the Insight under review.
 */
export class EngramaController {
	readonly host: EngineHost;
	readonly tasks: TaskRunner;
	readonly bridge: McpBridge;
	/** Local embedding model downloads (settings tab, status bar). */
	readonly models: ModelDownloads;
	readonly folder: string;
	counts: GraphCounts | null = null;
	activity: SyncActivity = { lastReport: null, lastError: null };
	/** Title of the Insight under review (selected in the panel); commands act on it. */
	selectedInsight: string | null = null;
	private current: PluginSettings;
	private readonly listeners = new Set<() => void>();
	private restartTimer: number | undefined;
	private countsTimer: number | undefined;
	private starting: Promise<void> | null = null;
	private unloaded = false;
	/** While restart() closes the engine: no counts are read from it. */
	private stopping = false;
	/** Modules already offered this session: the offer is made once, not after every sync. */
	private readonly offeredModules = new Set<string>();

	constructor(
		readonly plugin: Plugin,
		settings: PluginSettings,
		readonly version: string,
	) {
		this.current = settings;
		this.folder = pluginFolder(plugin.manifest.dir, plugin.app.vault.configDir, plugin.manifest.id);
		this.host = new EngineHost({
			app: plugin.app,
			pluginFolder: this.folder,
			settings: () => this.current,
			onSyncBatch: (report) => this.afterBatch(report),
			onSyncError: (error) => {
				// Unloading cancels the running sync; that is not a failure to tell anyone about.
				if (this.unloaded && error instanceof CancelledError) return;
				this.activity = { ...this.activity, lastError: error instanceof Error ? error.message : String(error) };
				noticeError("syncing changed notes failed", error);
				this.emit();
			},
		});
		this.tasks = new TaskRunner(this.host.gate);
		this.bridge = new McpBridge(plugin.app, version);
		this.models = new ModelDownloads(modelStoreFor(plugin.app.vault.adapter, this.folder));
		this.models.onChange(() => this.emit());
		this.host.onChange(() => this.emit());
		this.tasks.onChange(() => this.emit());
		this.bridge.onChange(() => this.emit());
	}

	get app(): App {
		return this.plugin.app;
	}

	get settings(): PluginSettings {
		return this.current;
	}

	onChange(listener: () => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	emit(): void {
		for (const listener of this.listeners) listener();
	}

	/** After layout ready: open the engine, catch up with the vault, start the bridge if enabled. */
	start(): Promise<void> {
		this.starting ??= (async () => {
			// Obsidian still calls onLayoutReady callbacks of a plugin unloaded before layout ready.
			if (this.unloaded) return;
			// A reload: the previous instance may still hold the database and the bridge's port.
			await afterEarlierInstancesClosed(this.instanceKey()).catch((error: unknown) => noticeError("waited too long for its previous instance", error));
			if (this.unloaded) return;
			// A first run: the welcome in the panel waits for the person (begin); nothing is written before.
			if (this.awaitingStart) {
				this.emit();
				return;
			}
			await this.ensureIds();
			await this.bringUp();
		})();
		return this.starting;
	}

	/** True until the person starts Engrama in this vault from the welcome (no data.json yet). */
	get awaitingStart(): boolean {
		return this.current.firstRun === "pending";
	}

	/** The welcome's figures: a dry run in memory that writes nothing (first-run-preview.ts, loaded with the engine). */
	async preview(choices: FirstRunChoices): Promise<FirstRunPreview> {
		const draft = structuredClone(this.current);
		applyChoices(draft, choices);
		const { previewFirstRun } = await import("./first-run-preview");
		return previewFirstRun(this.app, this.folder, draft);
	}

	/**
	 * The welcome's start: saves the choices (the first write of data.json), opens the memory,
	 * indexes the vault by path and then, when ids were chosen, writes them paced. Resolves when
	 * that is done (or was cancelled); the ids written are in the result.
	 */
	async begin(choices: FirstRunChoices): Promise<IdBackfillResult | null> {
		await this.starting;
		if (this.unloaded || !this.awaitingStart) return null;
		await this.saveSettings((s) => {
			applyChoices(s, choices);
			s.firstRun = "done";
		}, { apply: false });
		return this.openFirst();
	}

	private async openFirst(): Promise<IdBackfillResult | null> {
		await this.ensureIds();
		let engine: Engine | null = null;
		// Commands and the panel wait for the memory to open, not for the first sync.
		this.starting = this.bringUp({ first: true }).then((opened) => void (engine = opened));
		await this.starting;
		return engine && !this.unloaded ? this.firstSync(engine) : null;
	}

	/** The vault's id, generated once (data.json); secrets another device chose but this one lacks are named. */
	private async ensureIds(): Promise<void> {
		if (this.current.vaultId === "") await this.saveSettings((s) => (s.vaultId = newVaultId(this.app.vault.getName())), { apply: false });
		await this.prepareTokenFile().catch((error: unknown) => console.error("Engrama: preparing the MCP token file's folder failed", error));
		const missing = missingSecrets(this.app, this.current);
		if (missing.length > 0) noticeInfo(`this device does not have ${missing.join(" or ")}: secrets stay on the device that entered them. Choose or create it in the Engrama settings.`, 15_000);
	}

	/** The MCP bridge's token on this device (secret storage; created on first use). */
	mcpToken(): string {
		return mcpToken(this.app);
	}

	/** The engine, once layout ready has opened it; throws a message for people otherwise. */
	async ready(): Promise<Engine> {
		if (this.starting) await this.starting;
		if (this.awaitingStart) throw new ValidationError("Engrama has not started in this vault yet: open its panel, check the choices and press Start.");
		return this.host.ready();
	}

	/**
	 * Writes engrama_id into the synced notes that lack one, paced, as a long task with Cancel (the
	 * first run with ids, the switch from paths to ids, or finishing a cancelled run).
	 */
	async writeMissingIds(open?: Engine): Promise<IdBackfillResult | null> {
		const engine = open ?? (await this.ready());
		await this.tasks.whenIdle();
		if (await vaultUnderGit(this.app)) noticeInfo("this vault is a git repository: each note that gets an engrama_id shows as changed. Commit them on their own to keep your history readable.", 10_000);
		const result = await this.tasks.run("Writing engrama_id into notes", (control) => writeIdsPaced(this.app, engine.sync, control), {
			afterCancel: "The notes written keep their id; the rest are followed by their path for now. The next start finishes them, or run “Write missing note ids into frontmatter”.",
		});
		if (result) noticeInfo(`wrote engrama_id into ${formatCount(result.written.length)} notes${result.problems.length > 0 ? `; ${formatCount(result.problems.length)} could not be written (see the sync report)` : ""}.`);
		return result;
	}

	/** Opens the engine and the bridge; then the catch-up sync, or (first) nothing: firstSync follows. */
	private async bringUp(options: { first?: boolean } = {}): Promise<Engine | null> {
		// Unloaded while settings were being written: open nothing.
		if (this.unloaded) return null;
		const engine = await this.host.start();
		if (!engine) {
			const state = this.host.state;
			// A second-writer refusal already says what to do; other failures point at the settings.
			const hint = state.kind === "failed" && state.error.includes("on this device") ? "" : " Check the backend in the Engrama settings.";
			if (state.kind === "failed") noticeError("could not open its memory", new Error(`${state.error}${hint}`));
			return null;
		}
		await this.refreshCounts();
		// Unloaded while it opened: shutdown closes this engine; starting the sync on it would leave
		// vault listeners behind and fail on the closed database.
		if (this.unloaded) return null;
		if (this.current.mcp.enabled && this.bridge.available) {
			await this.startBridgeOn(engine).catch((error: unknown) => noticeError("the MCP bridge did not start", error));
		}
		if (options.first) return engine;
		if (this.current.sync.autoSync && !this.unloaded) {
			engine.sync.start();
			void this.catchUp(engine);
		}
		return engine;
	}

	/**
	 * Catches up with what changed while Obsidian was closed (unchanged notes cost one stat each),
	 * then writes the ids still missing, paced with progress: a first run cancelled halfway, notes
	 * that lost theirs, or a database rebuilt under notes that never had one. In the sync itself
	 * they would be written in unpaced bursts.
	 */
	private async catchUp(engine: Engine): Promise<void> {
		const report = await this.fullSync(engine, { quiet: true, writeIds: false });
		if (!report || this.unloaded || !this.current.sync.writeEngramaIds) return;
		const missing = await engine.sync.indexedPaths(notesWithoutId(this.app, (path) => engine.sync.isSyncedPath(path)));
		if (missing.length > 0 && !this.unloaded) await this.writeMissingIds(engine);
	}

	/** The first sync after the welcome: the whole vault by path (no note written), then the ids, paced. */
	private async firstSync(engine: Engine): Promise<IdBackfillResult | null> {
		if (this.current.sync.autoSync) engine.sync.start();
		const report = await this.fullSync(engine, { writeIds: false, title: "Indexing the vault" });
		if (!report || this.unloaded) return null;
		this.notifySynced(report);
		return this.current.sync.writeEngramaIds ? this.writeMissingIds(engine) : null;
	}

	/**
	 * Saves a validated change; returns the error message when the change was refused. `save: false`
	 * applies settings that are already on disk (another device changed data.json).
	 */
	async saveSettings(change: (draft: PluginSettings) => void, options: { apply?: boolean; save?: boolean } = {}): Promise<string | null> {
		const result = updateSettings(this.current, change);
		if (!result.ok) return result.error;
		const before = this.current;
		this.current = result.settings;
		if (options.save !== false) await this.plugin.saveData(this.current);
		if (options.apply !== false) this.applyChange(before, this.current);
		this.emit();
		return null;
	}

	/** Engine changes wait for typing to settle; the bridge and auto-sync follow at once. */
	private applyChange(before: PluginSettings, after: PluginSettings): void {
		// Before the welcome's start nothing is open, and nothing opens for a settings change.
		if (!this.starting || after.firstRun === "pending") return;
		// Another device's start reached this data.json (Obsidian Sync): start here too, the same way.
		if (before.firstRun === "pending") {
			void this.starting.then(() => this.openFirst());
			return;
		}
		const impact = settingsImpact(before, after);
		const engineNeeded = impact.engine || (impact.sync && !onlyAutoSyncChanged(before, after));
		if (engineNeeded) {
			if (this.restartTimer !== undefined) window.clearTimeout(this.restartTimer);
			this.restartTimer = window.setTimeout(() => {
				this.restartTimer = undefined;
				void this.restart();
			}, 800);
			return;
		}
		const engine = this.host.engine;
		if (impact.sync && engine) {
			if (after.sync.autoSync) engine.sync.start();
			else void engine.sync.stop();
		}
		if (impact.mcp && engine) {
			const work = after.mcp.enabled && this.bridge.available ? this.startBridge() : this.bridge.stop();
			void work.catch((error: unknown) => noticeError("the MCP bridge did not start", error));
		}
	}

	/** Reopens the engine with the current settings (backend, profile, embeddings, sync). */
	async restart(): Promise<void> {
		this.stopping = true;
		if (this.countsTimer !== undefined) window.clearTimeout(this.countsTimer);
		this.countsTimer = undefined;
		try {
			// A running task (reflect, re-embed, a sync) works on the engine about to close: stop it at its
			// next step and let it unwind (its transaction rolls back) before the database closes under it.
			this.tasks.cancel();
			await this.tasks.whenIdle();
			await this.bridge.stop();
			await this.host.stop();
		} finally {
			this.stopping = false;
		}
		this.counts = null;
		if (this.unloaded) return;
		await this.bringUp();
	}

	/** Reopens the memory for this device although another device wrote it last (the person chose so). */
	async takeOver(): Promise<void> {
		this.host.requestTakeOver();
		await this.restart();
	}

	async startBridge(): Promise<void> {
		await this.startBridgeOn(await this.ready());
	}

	private async startBridgeOn(engine: Engine): Promise<void> {
		await this.prepareTokenFile();
		return this.bridge.start(engine, this.current.mcp.port, this.mcpToken(), this.tokenFile());
	}

	/**
	 * Where the stdio proxy reads the token (desktop): beside the database, outside the vault
	 * (~/.engrama/vaults/<vault id>/mcp-token, 0600), which sync tools do not copy. Null before the
	 * bridge first started in this session, and where there is no file system.
	 */
	tokenFile(): string | null {
		return this.tokenPath;
	}

	private tokenPath: string | null = null;

	/** Finds the token file's place and removes the copy an earlier version kept in the plugin folder. */
	private async prepareTokenFile(): Promise<void> {
		const adapter = this.app.vault.adapter;
		if (this.tokenPath !== null || !(adapter instanceof FileSystemAdapter) || !Platform.isDesktopApp || this.current.vaultId === "") return;
		const node = await loadNodeModules();
		if (!node) return;
		const dir = defaultVaultDataDir(node, this.current.vaultId);
		preparePrivateDir(node, dir);
		this.tokenPath = node.path.join(dir, "mcp-token");
		const legacy = `${this.folder}/mcp-token`;
		if (await adapter.exists(legacy)) await adapter.remove(legacy);
	}

	/** A full vault sync as a long task; `dryRun` reports without writing, `writeIds: false` holds the ids back. */
	fullSync(engine: Engine, options: { dryRun?: boolean; quiet?: boolean; writeIds?: boolean; title?: string } = {}): Promise<SyncReport | null> {
		const title = options.title ?? (options.dryRun ? "Checking what a sync would change" : "Syncing the vault");
		const gate = this.host.gate;
		return this.tasks.run(
			title,
			async () => {
				const report = await engine.sync.fullSync({ dryRun: options.dryRun, writeIds: options.writeIds });
				if (!options.dryRun) {
					this.afterBatch(report);
					await this.refreshCounts();
				}
				return report;
			},
			{ poll: (control) => syncProgress(control, gate), quiet: options.quiet },
		);
	}

	private afterBatch(report: SyncReport): void {
		this.activity = { lastReport: report, lastError: null };
		this.scheduleCounts();
		this.offerModules(report);
		this.emit();
	}

	/** Notes typed with a label of a module that is off: say why once, with a button that turns it on. */
	private offerModules(report: SyncReport): void {
		// Modules add to the base profile only (activeModules): elsewhere there is nothing to turn on.
		if (this.unloaded || this.current.profile !== "base") return;
		for (const [module, paths] of offModulesOf(report)) {
			if (this.offeredModules.has(module) || this.current.modules.includes(module)) continue;
			this.offeredModules.add(module);
			offerModule(module, paths, () => this.enableModule(module, paths));
		}
	}

	/** Turns a profile module on (saved), reopens the engine with it and re-syncs the notes that need it. */
	async enableModule(module: string, paths: readonly string[]): Promise<void> {
		try {
			const refused = await this.saveSettings((s) => (s.modules = [...new Set([...s.modules, module])]), { apply: false });
			if (refused !== null) throw new Error(refused);
			await this.restart();
			const engine = await this.ready();
			const report = await engine.sync.syncPaths(paths);
			this.afterBatch(report);
			noticeInfo(`turned on module ${module}: ${EngramaController.describe(report)}.`);
		} catch (error) {
			noticeError(`could not turn on module ${module}`, error);
		}
	}

	/** Node and edge counts for the status bar (throttled: sync batches come in bursts). */
	scheduleCounts(): void {
		// Stopping sync flushes a last batch during shutdown: no timer may outlive the plugin.
		if (this.countsTimer !== undefined || this.unloaded) return;
		this.countsTimer = window.setTimeout(() => {
			this.countsTimer = undefined;
			void this.refreshCounts();
		}, 500);
	}

	async refreshCounts(): Promise<void> {
		const engine = this.host.engine;
		if (!engine || this.stopping) return;
		try {
			const { counts } = await engine.skills.status(engine.scope, { health: false, search: false, counts: true });
			if (counts) this.counts = counts;
		} catch (error) {
			// The engine closing under a count (restart, unload) is not a failure worth reporting.
			if (!this.stopping && !this.unloaded && this.host.engine === engine) console.error("Engrama: counting nodes failed", error);
		}
		this.emit();
	}

	/**
	 * Downloads a local embedding model (default: the one in settings) with progress; when it is
	 * the model in use, the engine reopens with it. Resolves true when the model is ready.
	 */
	async downloadLocalModel(model = localModelOf(this.current.embedding.model)): Promise<boolean> {
		const { hubUrl, runtimeUrl } = this.current.embedding;
		const installed = await this.models.download(model, { hubUrl, runtimeUrl });
		if (!installed || this.unloaded) return false;
		const inUse = this.current.embedding.provider === "local" && localModelOf(this.current.embedding.model) === model;
		if (inUse && this.starting) await this.restart();
		return true;
	}

	/** Everything released: timers, the bridge, the engine (database closed). */
	shutdown(): Promise<void> {
		const done = this.release();
		// Synchronously, so that a new instance created right after onunload sees it.
		markClosing(this.instanceKey(), done);
		return done;
	}

	/** One instance of this plugin in this vault (the key the next instance waits on). */
	private instanceKey(): string {
		const adapter = this.app.vault.adapter;
		const vault = adapter instanceof FileSystemAdapter ? adapter.getBasePath() : this.app.vault.getName();
		return `${vault}\u0000${this.folder}`;
	}

	private async release(): Promise<void> {
		this.unloaded = true;
		this.models.cancel();
		if (this.restartTimer !== undefined) window.clearTimeout(this.restartTimer);
		if (this.countsTimer !== undefined) window.clearTimeout(this.countsTimer);
		this.restartTimer = undefined;
		this.countsTimer = undefined;
		// Notes still waiting for sync are synced before the last snapshot, but only once the
		// cancelled task has unwound: until then every call through the shared work gate is
		// cancelled with it, and a batch run meanwhile would be dropped.
		this.host.engine?.sync.pause();
		this.tasks.cancel();
		await this.tasks.whenIdle();
		this.listeners.clear();
		await this.bridge.stop();
		await this.host.stop();
		releaseRuntime();
	}

	/** Tells the person how a sync went. */
	static describe(report: SyncReport): string {
		const c = report.counts;
		const parts = [
			`${formatCount(c.nodesCreated)} created`,
			`${formatCount(c.nodesUpdated)} updated`,
			`${formatCount(c.nodesArchived)} archived`,
			`${formatCount(c.relationsAdded)} relations added`,
		];
		if (c.relationsRemoved > 0) parts.push(`${formatCount(c.relationsRemoved)} removed`);
		if (report.problems.length > 0) parts.push(`${formatCount(report.problems.length)} notes need attention`);
		return parts.join(", ");
	}

	notifySynced(report: SyncReport): void {
		noticeInfo(`${report.dryRun ? "a sync would make" : "synced"}: ${EngramaController.describe(report)}.`);
	}
}

function onlyAutoSyncChanged(before: PluginSettings, after: PluginSettings): boolean {
	return JSON.stringify({ ...before.sync, autoSync: after.sync.autoSync }) === JSON.stringify(after.sync);
}

/** "reading 1,234 / 10,000", then "writing …", from the gate's counters. */
function syncProgress(control: TaskControl, gate: EngineHost["gate"]): void {
	const total = gate.count("sync.total");
	const read = gate.count("vault.read");
	const written = gate.count("graph.mergeNode");
	const ids = gate.count("vault.frontmatter");
	if (ids > 0) control.report(`writing engrama_id ${formatCount(ids)}`);
	else if (written > 0) control.report(`writing ${formatCount(written)} / ${formatCount(Math.max(read, written))}`);
	else if (read > 0) control.report(`reading ${formatCount(read)}${total > 0 ? ` / ${formatCount(total)}` : ""}`);
}

/** "My Vault" → "my-vault-3f9a1c2b": readable in ~/.engrama/vaults, unique by its random tail. */
export function newVaultId(vaultName: string): string {
	const slug = vaultName
		.toLowerCase()
		.replace(/[^a-z0-9]+/g, "-")
		.replace(/^-+|-+$/g, "")
		.slice(0, 40);
	const tail = Array.from(crypto.getRandomValues(new Uint8Array(4)), (b) => b.toString(16).padStart(2, "0")).join("");
	return slug === "" ? `vault-${tail}` : `${slug}-${tail}`;
}
