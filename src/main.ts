import { Notice, Plugin } from "obsidian";
import { EngramaActions } from "./plugin/actions";
import { registerCommands } from "./plugin/commands";
import { EngramaController } from "./plugin/engrama-controller";
import { moveSecrets } from "./plugin/secrets";
import { loadSettings, type PluginSettings } from "./plugin/settings";
import { EngramaView, VIEW_TYPE_ENGRAMA } from "./plugin/ui/engrama-view";
import { EngramaSettingTab } from "./plugin/ui/settings-tab";
import { StatusBar } from "./plugin/ui/status-bar";

declare const ENGRAMA_VERSION: string;

/**
 * Wires Engrama into Obsidian and nothing more: settings, the controller (engine, sync, tasks,
 * MCP bridge), the panel, the settings tab, commands and the status bar. The engine opens after
 * layout ready, so onload stays short; onunload releases everything (database, server, timers).
 */
export default class EngramaPlugin extends Plugin {
	controller: EngramaController | null = null;
	actions: EngramaActions | null = null;
	/** Resolves once onunload has closed the database and the bridge (tests await it). */
	closed: Promise<void> = Promise.resolve();

	override async onload(): Promise<void> {
		const loaded = loadSettings(await this.loadData());
		const { problems } = loaded;
		const settings = await this.moveSecrets(loaded.settings);
		const controller = new EngramaController(this, settings, typeof ENGRAMA_VERSION === "string" ? ENGRAMA_VERSION : this.manifest.version);
		const actions = new EngramaActions(controller);
		this.controller = controller;
		this.actions = actions;

		this.registerView(VIEW_TYPE_ENGRAMA, (leaf) => new EngramaView(leaf, controller, actions));
		this.addSettingTab(new EngramaSettingTab(this, controller, actions));
		registerCommands(this, controller, actions);
		this.addRibbonIcon("brain-circuit", "Open Engrama panel", () => void actions.openPanel());

		const status = new StatusBar(this.addStatusBarItem(), controller, () => void actions.openPanel());
		this.register(controller.onChange(() => status.render()));

		if (problems.length > 0) {
			new Notice(`Engrama: some settings were invalid and were reset to their defaults (${problems.join("; ")}).`, 10_000);
		}
		// Obsidian may close without unloading its plugins: the memory is closed while its quit tasks
		// run, so the next start finds the file as it was left (no log to replay, its check stamp
		// written beside it) and skips reading every page before it opens.
		this.registerEvent(this.app.workspace.on("quit", (tasks) => tasks.add(() => this.release())));
		this.app.workspace.onLayoutReady(() => {
			void controller.start().then(() => {
				// A first run in this vault: the welcome in the panel says what would happen; nothing runs before Start.
				if (controller.awaitingStart && this.controller === controller) void actions.openPanel();
			});
		});
	}

	/** Plain-text secrets of an earlier data.json go to Obsidian's keychain once; data.json is saved without them. */
	private async moveSecrets(settings: PluginSettings): Promise<PluginSettings> {
		const draft = structuredClone(settings);
		const { moved, failed } = moveSecrets(this.app, draft);
		if (failed.length > 0) new Notice(`Engrama: kept in data.json for now: ${failed.join("; ")}.`, 15_000);
		if (moved.length === 0) return settings;
		await this.saveData(draft);
		new Notice(`Engrama: moved ${moved.join(", ")} from data.json into Obsidian's keychain on this device. Your other devices keep their own keychain: enter it there once (Engrama settings).`, 15_000);
		return draft;
	}

	override onunload(): void {
		void this.release();
	}

	/** Closes the controller once (at quit or at unload, whichever comes first); `closed` settles when it is done. */
	private release(): Promise<void> {
		const controller = this.controller;
		this.controller = null;
		this.actions = null;
		if (controller) this.closed = controller.shutdown().catch((error: unknown) => console.error("Engrama: unloading failed", error));
		return this.closed;
	}

	/** Another device changed data.json (Obsidian Sync): take the new settings. */
	override async onExternalSettingsChange(): Promise<void> {
		const controller = this.controller;
		if (!controller) return;
		const { settings } = loadSettings(await this.loadData());
		await controller.saveSettings((draft) => Object.assign(draft, settings), { save: false });
	}
}
