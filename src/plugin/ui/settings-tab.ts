import { Platform, PluginSettingTab, SecretComponent, Setting, type ButtonComponent, type Plugin, type TextComponent } from "obsidian";
import { BUNDLED_MODULE_NAMES, BUNDLED_PROFILE_NAMES } from "../profile-texts";
import type { EngramaController } from "../engrama-controller";
import { LOCAL_MODELS, localModelOf, MODELS_DESKTOP_NOTE, MODELS_MOBILE_NOTE } from "../local-model/catalogue";
import { describeProgress, formatMB } from "../local-model/model-downloads";
import { clientConfigurations, mcpUrl } from "../mcp-bridge";
import { withSecrets } from "../secrets";
import { destructive } from "./destructive";
import { noticeError, noticeInfo } from "../notices";
import { formatFolderLabels, MOBILE_DB_NOTE, NEO4J_DESKTOP_ONLY, parseFolderLabels, parseFolderList, type PluginSettings } from "../settings";

type Change = (draft: PluginSettings) => void;

/** The model dropdown's entry for a model id typed by hand. */
const CUSTOM = "custom";

/**
 * Backend, embeddings, profile, sync, MCP bridge and search weights. Every value is validated
 * as it is typed: an invalid one is refused with a message under the field and not saved;
 * valid changes apply at once (the engine reopens in the background when it has to).
 */
/** What the settings tab asks of the command layer (as `PanelActions` for the panel): it never imports the commands. */
export interface SettingsActions {
	downloadLocalModel(): Promise<unknown>;
	regenerateToken(): Promise<void>;
	copyMcpConfig(): Promise<void>;
	switchToIds(): Promise<unknown>;
	openPanel(): Promise<unknown>;
}

export class EngramaSettingTab extends PluginSettingTab {
	private readonly unwatch: (() => void)[] = [];
	/** "Other model" chosen in the dropdown: show the model id field. */
	private customModel = false;

	constructor(
		plugin: Plugin,
		private readonly controller: EngramaController,
		private readonly actions: SettingsActions,
	) {
		super(plugin.app, plugin);
	}

	override display(): void {
		this.render();
	}

	/** Draws the tab (display() is Obsidian's entry; redraws call this, display is deprecated from 1.13). */
	private render(): void {
		const { containerEl } = this;
		for (const off of this.unwatch.splice(0)) off();
		containerEl.empty();
		containerEl.addClass("engrama-settings");
		if (this.controller.awaitingStart) {
			this.beforeStart(containerEl);
			return;
		}
		this.storage(containerEl);
		this.embeddings(containerEl);
		this.profile(containerEl);
		this.sync(containerEl);
		this.mcp(containerEl);
		this.search(containerEl);
	}

	/**
	 * Before the welcome's Start the choices live in the welcome: a change saved here would write
	 * data.json (and the MCP token into the keychain) before the person started, and the welcome
	 * would not show it. So the tab points to the welcome and touches nothing.
	 */
	private beforeStart(el: HTMLElement): void {
		new Setting(el)
			.setName("Engrama has not started in this vault")
			.setDesc("Its panel shows what starting does (from a dry run that writes nothing) and the choices that matter; start it there, and the settings open here afterwards. Until then nothing is saved and no note is touched.")
			.addButton((b) => b.setButtonText("Open the welcome").setCta().onClick(() => void this.actions.openPanel()));
	}

	private get s(): PluginSettings {
		return this.controller.settings;
	}

	/** Saves a change; shows the refusal under the setting, or clears it. */
	private async save(setting: Setting, change: Change, redraw = false): Promise<boolean> {
		const error = await this.controller.saveSettings(change);
		let errorEl = setting.settingEl.querySelector<HTMLElement>(".engrama-setting-error");
		setting.settingEl.toggleClass("is-invalid", error !== null);
		if (error) {
			errorEl ??= setting.infoEl.createDiv({ cls: "engrama-setting-error" });
			errorEl.setText(`Not saved: ${error}.`);
			return false;
		}
		errorEl?.remove();
		if (redraw) this.render();
		return true;
	}

	/** A text field saved on every change (validated). */
	private text(container: HTMLElement, name: string, desc: string, value: string, change: (v: string) => Change, configure?: (t: TextComponent) => void): Setting {
		const setting = new Setting(container).setName(name).setDesc(desc);
		setting.addText((t) => {
			t.setValue(value).onChange((v) => void this.save(setting, change(v)));
			configure?.(t);
		});
		return setting;
	}

	/**
	 * A secret chosen from Obsidian's keychain (SecretComponent): data.json keeps its name only.
	 * The keychain is per device, so another device picks (or creates) the same name once.
	 */
	private secret(container: HTMLElement, name: string, value: string, change: (name: string) => Change): Setting {
		const setting = new Setting(container)
			.setName(name)
			.setDesc("Kept in Obsidian's keychain on this device, never in data.json. Choose a secret or create one; on another device choose or create the same name and enter it there.");
		setting.addComponent((el) => new SecretComponent(this.app, el).setValue(value).onChange((v) => void this.save(setting, change(v))));
		return setting;
	}

	/** A number field: text that must parse as a number before the schema sees it. */
	private number(container: HTMLElement, name: string, desc: string, value: number, change: (v: number) => Change): Setting {
		const setting = new Setting(container).setName(name).setDesc(desc);
		setting.addText((t) => {
			t.inputEl.type = "number";
			t.setValue(String(value)).onChange((v) => {
				const n = Number(v);
				if (v.trim() === "" || !Number.isFinite(n)) {
					this.refuse(setting, "enter a number");
					return;
				}
				void this.save(setting, change(n));
			});
		});
		return setting;
	}

	private refuse(setting: Setting, message: string): void {
		let errorEl = setting.settingEl.querySelector<HTMLElement>(".engrama-setting-error");
		errorEl ??= setting.infoEl.createDiv({ cls: "engrama-setting-error" });
		errorEl.setText(`Not saved: ${message}${/[.!?]$/.test(message) ? "" : "."}`);
		setting.settingEl.addClass("is-invalid");
	}

	private storage(el: HTMLElement): void {
		new Setting(el).setName("Storage").setHeading();
		const state = this.controller.host.state;
		new Setting(el)
			.setName("Memory")
			.setDesc(
				state.kind === "ready"
					? `Open: ${state.engine.location}`
					: state.kind === "failed"
						? `Could not open: ${state.error}`
						: "Opening…",
			)
			.setClass("engrama-engine-state");
		// Same test as the engine host: Neo4j needs the desktop app's Node.
		const neo4jHere = Platform.isDesktopApp;
		const backend = new Setting(el).setName("Backend");
		if (neo4jHere) {
			backend.setDesc("SQLite keeps the whole graph in one file on this computer, outside the vault. Neo4j uses a server you run.");
			backend.addDropdown((d) =>
				d
					.addOptions({ sqlite: "SQLite (built in)", neo4j: "Neo4j (server)" })
					.setValue(this.s.backend)
					.onChange((v) => void this.save(backend, (s) => (s.backend = v === "neo4j" ? "neo4j" : "sqlite"), true)),
			);
		} else {
			backend.setDesc(
				this.s.backend === "neo4j"
					? `This vault's settings choose Neo4j; on this device the memory uses SQLite instead, and the desktop keeps Neo4j. ${NEO4J_DESKTOP_ONLY}`
					: `SQLite keeps the whole graph in one file, in the plugin's folder on this device. ${MOBILE_DB_NOTE} ${NEO4J_DESKTOP_ONLY}`,
			);
			backend.addDropdown((d) => d.addOptions({ sqlite: "SQLite (built in)" }).setValue("sqlite").setDisabled(true));
		}
		if (this.s.backend === "sqlite" || !neo4jHere) {
			const desktop = Platform.isDesktopApp;
			const desc = desktop
				? "Empty: a private folder outside the vault (~/.engrama/vaults/…), which sync tools do not copy. Or an absolute path, or a vault path (then synced with the vault: use it on one device only)."
				: `Empty: engrama.db in this plugin's folder. ${MOBILE_DB_NOTE}`;
			this.text(el, "Database file", desc, this.s.dbPath, (v) => (s) => (s.dbPath = v), (t) => {
				t.setPlaceholder(desktop ? "Outside the vault (default)" : "engrama.db in the plugin folder");
			});
			return;
		}
		this.text(el, "Neo4j URI", "For example bolt://localhost:7687 or neo4j+s://xxxx.databases.neo4j.io.", this.s.neo4j.uri, (v) => (s) => (s.neo4j.uri = v));
		this.text(el, "Neo4j user", "", this.s.neo4j.username, (v) => (s) => (s.neo4j.username = v));
		this.secret(el, "Neo4j password", this.s.neo4j.passwordSecret, (name) => (s) => (s.neo4j.passwordSecret = name));
		this.text(el, "Neo4j database", "", this.s.neo4j.database, (v) => (s) => (s.neo4j.database = v));
		const test = new Setting(el).setName("Test connection").setDesc("Connects with the values above and reports what it finds.");
		test.addButton((b) =>
			b.setButtonText("Test connection").onClick(async () => {
				b.setDisabled(true);
				try {
					const { engineConfig } = await import("../engine-config");
					const config = engineConfig(withSecrets(this.app, this.s), ":memory:");
					// The backends' door is loaded here, not with main.js; it loads the driver on demand, so the
					// driver stays unevaluated unless Neo4j is used. One attempt, no retry window: the person
					// waits for an answer, not for the backoff.
					const { backendHealth, closeBackend, createBackend, testConnection } = await import("../../backends");
					const problem = await testConnection(config);
					if (problem !== null) {
						noticeInfo(`Neo4j did not answer: ${problem}`);
						return;
					}
					const backend = await createBackend(config);
					try {
						const health = await backendHealth(backend);
						if (health.ok) noticeInfo(`Neo4j answered: ${health.nodes ?? 0} nodes, ${health.edges ?? 0} relations.`);
						else noticeInfo(`Neo4j is not usable: ${health.detail ?? "unknown problem"}.`);
					} finally {
						await closeBackend(backend);
					}
				} catch (error) {
					noticeError("could not connect to Neo4j", error);
				} finally {
					b.setDisabled(false);
				}
			}),
		);
	}

	private embeddings(el: HTMLElement): void {
		new Setting(el).setName("Embeddings").setHeading();
		const provider = new Setting(el)
			.setName("Provider")
			.setDesc("Vectors let search find related ideas, not only matching words. Without them search uses fulltext and the graph.");
		provider.addDropdown((d) =>
			d
				.addOptions({ none: "None (fulltext only)", openai: "OpenAI-compatible", ollama: "Ollama", local: "Local model (in Obsidian)" })
				.setValue(this.s.embedding.provider === "hash" ? "none" : this.s.embedding.provider)
				.onChange((v) => void this.save(provider, (s) => (s.embedding.provider = v as PluginSettings["embedding"]["provider"]), true)),
		);
		const p = this.s.embedding.provider;
		if (p === "none" || p === "hash") return;
		if (p === "local") {
			this.localModel(el);
			return;
		}
		this.text(
			el,
			"Base URL",
			p === "ollama" ? "Empty: http://localhost:11434." : "Empty: https://api.openai.com/v1. LM Studio, vLLM and llama.cpp work too.",
			this.s.embedding.baseUrl,
			(v) => (s) => (s.embedding.baseUrl = v),
		);
		this.text(el, "Model", p === "ollama" ? "Empty: nomic-embed-text." : "Empty: text-embedding-3-small.", this.s.embedding.model, (v) => (s) => (s.embedding.model = v));
		if (p === "openai") this.secret(el, "API key", this.s.embedding.apiKeySecret, (name) => (s) => (s.embedding.apiKeySecret = name));
		this.number(el, "Dimensions", "0: ask the model. Set it when the model can shorten its vectors.", this.s.embedding.dimensions, (n) => (s) => (s.embedding.dimensions = n));
		const test = new Setting(el).setName("Test embeddings").setDesc("Embeds one sentence with the values above.");
		test.addButton((b) =>
			b.setButtonText("Test").onClick(async () => {
				b.setDisabled(true);
				try {
					// The configuration's schema and the engine's embedders are loaded on first use, not with main.js.
					const [{ engineConfig }, { createHttpEmbeddingProvider }, { createRequestUrlHttpClient, windowSleep }] = await Promise.all([
						import("../engine-config"),
						import("../../engine/host"),
						import("../request-url-http-client"),
					]);
					const config = engineConfig(withSecrets(this.app, this.s), ":memory:");
					const embedder = createHttpEmbeddingProvider(config.embedding, createRequestUrlHttpClient(), windowSleep);
					const vector = await embedder.embed("Engrama connection test");
					noticeInfo(`the embedder answered with ${vector.length} dimensions.`);
				} catch (error) {
					noticeError("the embedder did not answer", error);
				} finally {
					b.setDisabled(false);
				}
			}),
		);
	}

	/** Model choice, download (progress, cancel), delete, and where the files come from. */
	private localModel(el: HTMLElement): void {
		const current = localModelOf(this.s.embedding.model);
		const known = LOCAL_MODELS.some((m) => m.id === current);
		const choice = new Setting(el).setName("Model").setDesc(`Runs inside Obsidian (WebAssembly). Downloaded once, then works offline. ${Platform.isDesktopApp ? MODELS_DESKTOP_NOTE : MODELS_MOBILE_NOTE}`);
		choice.addDropdown((d) => {
			for (const m of LOCAL_MODELS) d.addOption(m.id, `${m.label}, about ${m.approxMB} MB`);
			d.addOption(CUSTOM, "Another model, by its ID");
			d.setValue(known && !this.customModel ? current : CUSTOM).onChange((v) => {
				this.customModel = v === CUSTOM;
				if (v !== CUSTOM) void this.save(choice, (s) => (s.embedding.model = v), true);
				else this.render();
			});
		});
		if (!known || this.customModel) {
			this.text(el, "Model ID", "owner/name of a sentence-embedding model with ONNX weights (onnx/model_quantized.onnx), e.g. Xenova/gte-small.", known ? "" : current, (v) => (s) => (s.embedding.model = v.trim()));
		}
		const files = new Setting(el).setName("Model files").setClass("engrama-model-status");
		const status = files.descEl.createDiv({ cls: "engrama-model-state", text: "Checking…" });
		const progress = files.descEl.createEl("progress", { cls: "engrama-model-progress" });
		progress.hide();
		let download: ButtonComponent | null = null;
		let cancel: ButtonComponent | null = null;
		let remove: ButtonComponent | null = null;
		files.addButton((b) => {
			download = b.setButtonText("Download model").setCta().onClick(() => void this.actions.downloadLocalModel());
		});
		files.addButton((b) => {
			cancel = b.setButtonText("Cancel").onClick(() => this.controller.models.cancel());
		});
		files.addButton((b) => {
			remove = destructive(b.setButtonText("Delete")).onClick(async () => {
				await this.controller.models.remove(current);
				noticeInfo(`deleted the local model ${current}. Download it again to use it.`);
				if (this.s.embedding.provider === "local") void this.controller.restart();
			});
		});
		const render = async () => {
			const state = this.controller.models.state;
			const busy = state.kind === "downloading";
			download?.setDisabled(busy);
			cancel?.buttonEl.toggle(busy);
			if (busy) {
				remove?.buttonEl.hide();
				progress.show();
				const p = state.progress;
				status.setText(`Downloading ${state.model}${p ? `: ${describeProgress(p)}` : "…"}`);
				if (p && p.total > 0) {
					progress.max = p.total;
					progress.value = p.loaded;
				}
				return;
			}
			progress.hide();
			const { installed, runtime } = await this.controller.models.status(current);
			// A newer render may have started while this one waited.
			if (this.controller.models.state.kind === "downloading") return;
			const size = installed ? installed.files.reduce((n, f) => n + f.size, 0) : 0;
			const failed = state.kind === "failed" && state.model === current ? ` The last download failed: ${state.error}` : "";
			status.setText(
				installed
					? `Downloaded (${formatMB(size)}, ${installed.dimensions} dimensions). Works offline.${failed}`
					: `Not downloaded.${runtime ? "" : " The first download also fetches the ONNX Runtime (about 14 MB)."}${failed}`,
			);
			download?.setButtonText(installed ? "Download again" : "Download model");
			remove?.buttonEl.toggle(installed !== null);
		};
		void render();
		this.watch(() => void render());
		this.text(el, "Model hub", "Empty: https://huggingface.co. A mirror with the same layout (<hub>/<model>/resolve/main/<file>) works too.", this.s.embedding.hubUrl, (v) => (s) => (s.embedding.hubUrl = v));
		this.text(
			el,
			"Runtime download",
			"Empty: jsDelivr's copy of onnxruntime-web ({version} is filled in). Only needed once per plugin version.",
			this.s.embedding.runtimeUrl,
			(v) => (s) => (s.embedding.runtimeUrl = v),
		);
	}

	/** Follows the controller while the tab is shown (download progress); released by hide() and redraws. */
	private watch(listener: () => void): void {
		this.unwatch.push(this.controller.onChange(listener));
	}

	override hide(): void {
		for (const off of this.unwatch.splice(0)) off();
		super.hide();
	}

	private profile(el: HTMLElement): void {
		new Setting(el).setName("Profile and modules").setHeading();
		const profile = new Setting(el).setName("Profile").setDesc("Which entity types and relations the graph knows.");
		profile.addDropdown((d) => {
			for (const name of BUNDLED_PROFILE_NAMES) d.addOption(name, name);
			d.setValue(this.s.profile).onChange((v) => void this.save(profile, (s) => (s.profile = v), true));
		});
		if (this.s.profile !== "base") return;
		for (const module of BUNDLED_MODULE_NAMES) {
			const setting = new Setting(el).setName(`Module: ${module}`).setDesc(`Adds the ${module} entity types to the base profile.`);
			setting.addToggle((t) =>
				t.setValue(this.s.modules.includes(module)).onChange(
					(on) =>
						void this.save(setting, (s) => {
							s.modules = on ? [...new Set([...s.modules, module])] : s.modules.filter((m) => m !== module);
						}),
				),
			);
		}
	}

	private sync(el: HTMLElement): void {
		new Setting(el).setName("Sync").setHeading();
		const toggle = (name: string, desc: string, value: boolean, change: (on: boolean) => Change) => {
			const setting = new Setting(el).setName(name).setDesc(desc);
			setting.addToggle((t) => t.setValue(value).onChange((on) => void this.save(setting, change(on))));
		};
		toggle("Sync automatically", "Keep the graph in step as notes are created, edited, renamed and deleted.", this.s.sync.autoSync, (on) => (s) => (s.sync.autoSync = on));
		const area = (name: string, desc: string, value: string, parse: (text: string) => Change | string) => {
			const setting = new Setting(el).setName(name).setDesc(desc);
			setting.addTextArea((t) => {
				t.setValue(value).onChange((text) => {
					const change = parse(text);
					if (typeof change === "string") this.refuse(setting, change);
					else void this.save(setting, change);
				});
				t.inputEl.rows = 3;
			});
		};
		area("Folders to include", "One per line. Empty: the whole vault.", this.s.sync.includeFolders.join("\n"), (text) => (s) => (s.sync.includeFolders = parseFolderList(text)));
		area("Folders to exclude", "One per line. Templates, for example.", this.s.sync.excludeFolders.join("\n"), (text) => (s) => (s.sync.excludeFolders = parseFolderList(text)));
		area("Folder labels", 'Notes without a type get the label of their folder. One per line: "Projects: Project".', formatFolderLabels(this.s.sync.folderLabels), (text) => {
			const parsed = parseFolderLabels(text);
			return parsed.ok ? (s: PluginSettings) => (s.sync.folderLabels = parsed.value) : parsed.error;
		});
		toggle("Index untyped notes", "Notes without a type become Note nodes: searchable and linked.", this.s.sync.indexUntypedNotes, (on) => (s) => (s.sync.indexUntypedNotes = on));
		const ids = new Setting(el)
			.setName("Write engrama_id")
			.setDesc("Store each note's identity in its frontmatter so renames keep it. Turning it on shows how many notes get the line first, then writes it a few notes at a time. Off: notes are followed by their path and no note is touched.");
		ids.addToggle((t) =>
			t.setValue(this.s.sync.writeEngramaIds).onChange(async (on) => {
				if (!on) return void this.save(ids, (s) => (s.sync.writeEngramaIds = false));
				// From paths to ids: the same preview as the welcome, then the paced writes.
				if (!(await this.actions.switchToIds())) t.setValue(false);
			}),
		);
		toggle(
			"Write agent memories as notes",
			"Memories and relations added by agents are written into notes, so the vault holds the whole graph.",
			this.s.sync.writeGraphToVault,
			(on) => (s) => (s.sync.writeGraphToVault = on),
		);
		this.text(el, "Folder for agent memories", "Notes are written as <folder>/<Label>/<name>.md.", this.s.sync.notesFolder, (v) => (s) => (s.sync.notesFolder = v));
		this.text(el, "Folder for Insight notes", "Where Write to note creates new notes.", this.s.sync.insightsFolder, (v) => (s) => (s.sync.insightsFolder = v));
	}

	private mcp(el: HTMLElement): void {
		new Setting(el).setName("MCP bridge").setHeading();
		if (!this.controller.bridge.available) {
			new Setting(el).setName("Desktop only").setDesc("Agents reach this memory through the MCP bridge of the desktop app; phones and tablets cannot run it.");
			return;
		}
		const state = this.controller.bridge.state;
		const status =
			state.kind === "listening" ? `Listening on ${state.url}` : state.kind === "failed" ? `Not running: ${state.error}` : state.kind === "starting" ? "Starting…" : "Off";
		const enabled = new Setting(el).setName("Enable the MCP bridge").setDesc(`Agents (Claude, Cursor, …) use this memory over 127.0.0.1 with a token. ${status}.`);
		enabled.addToggle((t) => t.setValue(this.s.mcp.enabled).onChange((on) => void this.save(enabled, (s) => (s.mcp.enabled = on), true)));
		this.number(el, "Port", "1024–65535. Only this computer can connect.", this.s.mcp.port, (n) => (s) => (s.mcp.port = n));
		const current = this.controller.mcpToken();
		const token = new Setting(el)
			.setName("Token")
			.setDesc("Agents send it as a bearer token. It is kept in Obsidian's keychain on this device, not in data.json; each computer has its own. Regenerating locks out every agent that has the old one.");
		token.addText((t) => {
			t.setValue(current).setDisabled(true);
			t.inputEl.type = "password";
			t.inputEl.addClass("engrama-token");
		});
		token.addExtraButton((b) =>
			b
				.setIcon("copy")
				.setTooltip("Copy token")
				.onClick(() => void navigator.clipboard.writeText(this.controller.mcpToken()).then(() => noticeInfo("copied the MCP token."))),
		);
		token.addButton((b) => b.setButtonText("Regenerate").onClick(() => void this.actions.regenerateToken().then(() => this.render())));
		const configs = clientConfigurations(this.s.mcp.port, current, this.controller.tokenFile());
		const snippets = new Setting(el).setName("Client configuration").setDesc(`Endpoint ${mcpUrl(this.s.mcp.port)}. Paste into your MCP client.`);
		snippets.addButton((b) => b.setButtonText("Copy").onClick(() => void this.actions.copyMcpConfig()));
		const details = el.createEl("details", { cls: "engrama-snippets" });
		details.createEl("summary", { text: "Show configuration snippets" });
		details.createDiv({ cls: "engrama-muted", text: "Streamable HTTP clients" });
		details.createEl("pre", { text: configs.http });
		details.createDiv({ cls: "engrama-muted", text: "Clients that only speak stdio (through the proxy)" });
		details.createEl("pre", { text: configs.stdio });
		details.createDiv({ cls: "engrama-muted", text: "Registration from a terminal" });
		details.createEl("pre", { text: configs.claudeCode });
	}

	private search(el: HTMLElement): void {
		new Setting(el).setName("Search (advanced)").setHeading();
		const mode = new Setting(el).setName("Fusion").setDesc("How fulltext and vector results are combined.");
		mode.addDropdown((d) =>
			d
				.addOptions({ rrf: "Reciprocal rank fusion", linear: "Linear (legacy)" })
				.setValue(this.s.search.fusionMode)
				.onChange((v) => void this.save(mode, (s) => (s.search.fusionMode = v === "linear" ? "linear" : "rrf"))),
		);
		this.number(el, "RRF k", "Higher values flatten the rank differences (default 30).", this.s.search.rrfK, (n) => (s) => (s.search.rrfK = n));
		this.number(el, "Vector weight (linear)", "α, 0–1 (default 0.6).", this.s.search.alpha, (n) => (s) => (s.search.alpha = n));
		this.number(el, "Graph weight", "β, 0–1 (default 0.05).", this.s.search.graphWeight, (n) => (s) => (s.search.graphWeight = n));
		this.number(el, "Recency weight", "γ, 0–1 (default 0.1).", this.s.search.temporalWeight, (n) => (s) => (s.search.temporalWeight = n));
		this.number(
			el,
			"Recency half-life",
			"Days after which a note's recency counts half when ranking (default 30).",
			this.s.search.halfLifeDays,
			(n) => (s) => (s.search.halfLifeDays = n),
		);
		this.number(el, "Trust weight", "δ, 0–1 (default 0.1).", this.s.search.trustWeight, (n) => (s) => (s.search.trustWeight = n));
		this.number(el, "Decay after days", "Run decay lists nodes not updated for this long (default 90).", this.s.decay.maxAgeDays, (n) => (s) => (s.decay.maxAgeDays = n));
	}
}
