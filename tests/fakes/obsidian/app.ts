// App, commands, plugins (loadData/saveData), local storage and secrets per vault and device, and the
// test helpers that span the fake. Part of the one fake of `obsidian`: import it through tests/fakes/obsidian.ts.
import { Component, fakeErrors } from "./events";
import { type FakeFileSystem, nodeFileSystem } from "./files";
import { FileManager, MetadataCache } from "./metadata";
import { type PluginSettingTab } from "./settings";
import { fakeNotices, fakeOpenModals } from "./ui";
import { fakeRequests, requireApiVersion, setIcon } from "./util";
import { parentOf, Vault } from "./vault";
import { type ViewCreator, Workspace } from "./workspace";

export interface Command {
	id: string;
	name: string;
	hotkeys?: unknown[];
	callback?: () => unknown;
	checkCallback?: (checking: boolean) => boolean | void;
}

export class CommandRegistry {
	readonly commands: Record<string, Command> = {};

	/** Like Obsidian: false when the command is unknown or its checkCallback says it cannot run. */
	executeCommandById(id: string): boolean {
		const command = this.commands[id];
		if (!command) return false;
		if (command.checkCallback) {
			if (!command.checkCallback(true)) return false;
			command.checkCallback(false);
			return true;
		}
		if (command.callback) {
			void command.callback();
			return true;
		}
		return false;
	}

	isAvailable(id: string): boolean {
		const command = this.commands[id];
		if (!command) return false;
		return command.checkCallback ? Boolean(command.checkCallback(true)) : Boolean(command.callback);
	}
}

export interface PluginManifest {
	id: string;
	name: string;
	version: string;
	minAppVersion: string;
	description: string;
	author: string;
	isDesktopOnly?: boolean;
	dir?: string;
}

export class App {
	readonly vault: Vault;
	readonly metadataCache: MetadataCache;
	readonly fileManager: FileManager;
	readonly workspace: Workspace;
	readonly commands = new CommandRegistry();
	/** Settings tabs added by plugins. */
	readonly settingTabs: PluginSettingTab[] = [];
	/** The status bar. */
	readonly statusBarEl: HTMLElement;
	readonly ribbonEl: HTMLElement;
	/** Where modals and notices are attached (document.body in Obsidian). */
	readonly bodyEl: HTMLElement;

	/** Since 1.11.4 (undefined when the fake plays an older app). */
	readonly secretStorage!: SecretStorage;

	constructor(fsys: FakeFileSystem, options: { mobile?: boolean } = {}) {
		this.vault = new Vault(fsys, options);
		if (requireApiVersion("1.11.4")) this.secretStorage = new SecretStorage(() => this.storageId);
		this.metadataCache = new MetadataCache(this.vault);
		this.fileManager = new FileManager(this);
		this.workspace = new Workspace(this);
		this.bodyEl = document.body.createDiv({ cls: "app-container" });
		this.bodyEl.appendChild(this.workspace.containerEl);
		this.statusBarEl = this.bodyEl.createDiv({ cls: "status-bar" });
		this.ribbonEl = this.bodyEl.createDiv({ cls: "side-dock-ribbon" });
	}

	/**
	 * Obsidian's `app.loadLocalStorage`/`saveLocalStorage`: per-vault key-value storage on this
	 * device, kept across restarts (a new App over the same folder sees it); fakeNewDevice() forgets it.
	 */
	private get storageId(): unknown {
		const key = (this.vault.adapter as unknown as { fsys: FakeFileSystem & { basePath?: string } }).fsys;
		return key.basePath ?? key;
	}
	private get local(): Map<string, unknown> {
		const id = this.storageId;
		let map = localStorages.get(id);
		if (!map) localStorages.set(id, (map = new Map<string, unknown>()));
		return map;
	}
	loadLocalStorage(key: string): unknown {
		return this.local.get(key) ?? null;
	}
	saveLocalStorage(key: string, value: unknown): void {
		if (value === null || value === undefined) this.local.delete(key);
		else this.local.set(key, value);
	}
}

export abstract class Plugin extends Component {
	readonly app: App;
	readonly manifest: PluginManifest;

	constructor(app: App, manifest: PluginManifest) {
		super();
		this.app = app;
		this.manifest = manifest;
	}

	private get dataPath(): string {
		return `${this.manifest.dir ?? `${this.app.vault.configDir}/plugins/${this.manifest.id}`}/data.json`;
	}

	async loadData(): Promise<unknown> {
		if (!(await this.app.vault.adapter.exists(this.dataPath))) return null;
		return JSON.parse(await this.app.vault.adapter.read(this.dataPath)) as unknown;
	}

	async saveData(data: unknown): Promise<void> {
		const dir = parentOf(this.dataPath);
		if (!(await this.app.vault.adapter.exists(dir))) await this.app.vault.adapter.mkdir(dir);
		await this.app.vault.adapter.write(this.dataPath, JSON.stringify(data, null, "\t"));
	}

	addCommand(command: Command): Command {
		const full = { ...command, id: `${this.manifest.id}:${command.id}` };
		this.app.commands.commands[full.id] = full;
		this.register(() => delete this.app.commands.commands[full.id]);
		return full;
	}

	addRibbonIcon(icon: string, title: string, callback: (evt: MouseEvent) => unknown): HTMLElement {
		const el = this.app.ribbonEl.createDiv({ cls: ["side-dock-ribbon-action", "clickable-icon"], attr: { "aria-label": title } });
		setIcon(el, icon);
		el.addEventListener("click", (evt) => void callback(evt as MouseEvent));
		this.register(() => el.remove());
		return el;
	}

	addStatusBarItem(): HTMLElement {
		const el = this.app.statusBarEl.createDiv({ cls: ["status-bar-item", `plugin-${this.manifest.id}`] });
		this.register(() => el.remove());
		return el;
	}

	addSettingTab(tab: PluginSettingTab): void {
		this.app.settingTabs.push(tab);
		this.register(() => {
			const at = this.app.settingTabs.indexOf(tab);
			if (at >= 0) this.app.settingTabs.splice(at, 1);
		});
	}

	registerView(type: string, creator: ViewCreator): void {
		this.app.workspace.registerViewCreator(type, creator);
		this.register(() => this.app.workspace.unregisterViewCreator(type));
	}
	onExternalSettingsChange?(): unknown;
}


/** Local storage per vault folder (or in-memory file system), as Obsidian keeps it per vault and device. */
const localStorages = new Map<unknown, Map<string, unknown>>();
/** Secrets per vault and device, like local storage (Obsidian keeps them in the device's keychain, never in the vault). */
const secretStores = new Map<unknown, Map<string, string>>();

/** The next App over any vault behaves as another device: its local storage and secrets start empty. */
export function fakeNewDevice(): void {
	localStorages.clear();
	secretStores.clear();
}

/**
 * Obsidian's `app.secretStorage` (1.11.4): named secrets of this vault on this device, shared by
 * every plugin. Ids are lowercase letters, digits and dashes (setSecret throws otherwise);
 * getSecret answers null for an unknown id. Nothing is written into the vault folder.
 */
export class SecretStorage {
	constructor(private readonly vaultKey: () => unknown) {}
	private get secrets(): Map<string, string> {
		const id = this.vaultKey();
		let map = secretStores.get(id);
		if (!map) secretStores.set(id, (map = new Map<string, string>()));
		return map;
	}
	setSecret(id: string, secret: string): void {
		if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(id)) throw new Error(`Invalid secret ID: ${id}`);
		this.secrets.set(id, secret);
	}
	getSecret(id: string): string | null {
		return this.secrets.get(id) ?? null;
	}
	listSecrets(): string[] {
		return [...this.secrets.keys()];
	}
}

/** Forgets recorded notices, modals, errors and requests (between tests). */
export function fakeReset(): void {
	fakeNotices.splice(0).forEach((n) => n.hide());
	fakeOpenModals.splice(0).forEach((m) => m.close());
	fakeErrors.splice(0);
	fakeRequests.splice(0);
}

/** Builds an App over a folder on disk (Node) or a file system of your choice. */
export function createFakeApp(vault: string | FakeFileSystem, options: { mobile?: boolean } = {}): App {
	return new App(typeof vault === "string" ? nodeFileSystem(vault) : vault, options);
}
