// Runs inside Chromium: the fake `obsidian` over an in-memory vault, and the built main.js
// evaluated as Obsidian does (CommonJS, `require("obsidian")` only).
import * as fake from "../../fakes/obsidian";

interface BootedPlugin {
	fakeLoad(): Promise<void>;
	unload(): void;
	closed: Promise<void>;
	controller: { ready(): Promise<unknown>; tasks: { current: unknown } } | null;
}

export interface Booted {
	readonly fake: typeof fake;
	readonly app: fake.App;
	readonly plugin: BootedPlugin;
}

async function boot(files: Record<string, string>, mainJs: string, manifest: Record<string, unknown>): Promise<void> {
	const { app, plugin } = await load(files, mainJs, manifest);
	await plugin.controller?.ready();
	for (let i = 0; i < 600 && plugin.controller?.tasks.current; i++) await new Promise((r) => setTimeout(r, 50));
	(window as unknown as { engrama: Booted }).engrama = { fake, app, plugin };
}

/** A vault that never had the plugin (no data.json): the panel opens by itself on the welcome and its dry run. */
async function bootWelcome(files: Record<string, string>, mainJs: string, manifest: Record<string, unknown>): Promise<void> {
	const { app, plugin } = await load(files, mainJs, manifest);
	(window as unknown as { engrama: Booted }).engrama = { fake, app, plugin };
	await until(() => app.workspace.getLeavesOfType("engrama-panel").length > 0, "the panel", 60_000);
	const leaf = app.workspace.getLeavesOfType("engrama-panel")[0];
	document.getElementById("sidebar")!.appendChild(leaf.containerEl);
	await until(() => leaf.containerEl.querySelectorAll(".engrama-welcome-figures li").length > 0, "the dry run's figures", 120_000);
}

/** Evaluates main.js as Obsidian does and loads the plugin up to layout ready. */
async function load(files: Record<string, string>, mainJs: string, manifest: Record<string, unknown>): Promise<{ app: fake.App; plugin: BootedPlugin }> {
	const app = fake.createFakeApp(fake.memoryFileSystem(files), { mobile: true });
	const module = { exports: {} as { default?: new (app: unknown, manifest: unknown) => BootedPlugin } };
	const requireShim = (id: string): unknown => {
		if (id === "obsidian") return fake;
		throw new Error(`Cannot find module '${id}'`);
	};
	// eslint-disable-next-line @typescript-eslint/no-implied-eval -- this is how Obsidian evaluates a plugin's main.js
	const evaluate = new Function("module", "exports", "require", mainJs) as (m: unknown, e: unknown, r: unknown) => void;
	evaluate(module, module.exports, requireShim);
	const Plugin = module.exports.default;
	if (!Plugin) throw new Error("main.js exports no plugin class");
	const plugin = new Plugin(app, manifest);
	await plugin.fakeLoad();
	await app.workspace.fakeLayoutReady();
	return { app, plugin };
}

(window as unknown as { engramaBoot: typeof boot; engramaBootWelcome: typeof bootWelcome }).engramaBoot = boot;
(window as unknown as { engramaBootWelcome: typeof bootWelcome }).engramaBootWelcome = bootWelcome;

// ---- scenes the browser test drives (each leaves the page ready for a screenshot) ----

function booted(): Booted {
	return (window as unknown as { engrama: Booted }).engrama;
}

async function until(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
	const started = Date.now();
	while (!check()) {
		if (Date.now() - started > timeoutMs) throw new Error(`Timed out waiting for ${what}`);
		await new Promise((r) => setTimeout(r, 25));
	}
}

/** Opens a note in the main area (its text shown as Obsidian's reading view would). */
async function openNote(path: string): Promise<void> {
	const { app } = booted();
	const file = app.vault.getFileByPath(path);
	if (!file) throw new Error(`No note ${path}`);
	await app.workspace.getLeaf(false).openFile(file);
	const main = document.getElementById("main")!;
	main.empty();
	const text = await app.vault.read(file);
	const front = /^---\n([\s\S]*?)\n---\n/.exec(text)?.[1] ?? "";
	const body = text.replace(/^---[\s\S]*?---\n/, "");
	const heading = /^# (.+)$/m.exec(body)?.[1] ?? file.basename;
	main.createDiv({ cls: "inline-title", text: file.basename });
	// Obsidian's Properties block: each frontmatter key and its value (lists joined), engrama_id included.
	if (front !== "") {
		const box = main.createDiv({ cls: "metadata-container" });
		box.createDiv({ cls: "metadata-properties-heading", text: "Properties" });
		let current: HTMLElement | null = null;
		for (const line of front.split("\n")) {
			const item = /^\s+-\s+(.*)$/.exec(line);
			if (item && current) {
				current.createSpan({ cls: "multi-select-pill", text: item[1].replace(/^"|"$/g, "") });
				continue;
			}
			const pair = /^([\w-]+):\s*(.*)$/.exec(line);
			if (!pair) continue;
			const row = box.createDiv({ cls: "metadata-property", attr: { "data-property-key": pair[1] } });
			row.createDiv({ cls: "metadata-property-key", text: pair[1] });
			current = row.createDiv({ cls: "metadata-property-value" });
			if (pair[2] !== "") current.createSpan({ text: pair[2].replace(/^"|"$/g, "") });
		}
	}
	if (heading !== file.basename) main.createEl("h1", { text: heading });
	main.createEl("pre", { text: body.replace(/^# .+\n+/m, "") });
}

/** Opens the panel in the right sidebar on a tab. */
async function showPanel(tab: "Insights" | "Context" | "Search"): Promise<void> {
	const { app, fake: f } = booted();
	for (const n of f.fakeNotices) n.hide();
	app.commands.executeCommandById("engrama:open-panel");
	await until(() => app.workspace.getLeavesOfType("engrama-panel").length > 0, "the panel");
	const leaf = app.workspace.getLeavesOfType("engrama-panel")[0];
	const sidebar = document.getElementById("sidebar")!;
	if (leaf.containerEl.parentElement !== sidebar) sidebar.appendChild(leaf.containerEl);
	const button = Array.from(leaf.containerEl.querySelectorAll<HTMLButtonElement>(".engrama-tab")).find((b) => b.textContent === tab)!;
	button.click();
	await until(() => !leaf.containerEl.querySelector(".is-loading"), "the tab to load");
}

async function reflect(): Promise<void> {
	const { app, fake: f } = booted();
	app.commands.executeCommandById("engrama:reflect-now");
	await until(() => f.fakeNotices.some((n) => n.text.includes("reflect proposed")), "reflect");
	for (const n of f.fakeNotices) n.hide();
}

async function search(query: string): Promise<void> {
	await showPanel("Search");
	const input = document.querySelector<HTMLInputElement>("#sidebar input.engrama-search-input")!;
	input.value = query;
	input.dispatchEvent(new Event("input"));
	await until(() => document.querySelectorAll("#sidebar .engrama-result-row").length > 0, "search results");
}

function showSettings(): void {
	const { app } = booted();
	const tab = app.settingTabs[0];
	tab.display();
	const host = document.getElementById("settings")!;
	host.empty();
	host.appendChild(tab.containerEl);
}

interface LocalModelController {
	saveSettings(change: (s: { embedding: Record<string, unknown> }) => void): Promise<string | null>;
	ready(): Promise<{ embedderNote: string; scope: unknown; memory: { search(scope: unknown, text: string): Promise<{ degraded: boolean; reason?: string; results: { name: string; scores: Record<string, number> }[] }> } }>;
	host: { engine: { embedderNote: string } | null };
	models: { state: { kind: string; progress?: { loaded: number; total: number } | null; error?: string } };
	tasks: { current: unknown };
}

/**
 * The local embedding model in Chromium (Obsidian's renderer engine): choose it, click Download
 * model (the page serves the hub at `hub`), then search with vectors.
 */
async function localModel(hub: string): Promise<{ progress: string[]; state: string; note: string; degraded: boolean; reason?: string; vectorHits: number; status: string; worker: boolean }> {
	const { app, plugin } = booted();
	const controller = plugin.controller as unknown as LocalModelController;
	await controller.saveSettings((s) => {
		s.embedding = { ...s.embedding, provider: "local", model: "engrama/tiny-encoder", hubUrl: hub, runtimeUrl: `${hub}/npm/onnxruntime-web@{version}/dist` };
	});
	await until(() => controller.host.engine?.embedderNote.includes("not downloaded") === true, "the engine with the local model chosen");
	showSettings();
	const files = Array.from(document.querySelectorAll<HTMLElement>("#settings .setting-item")).find((el) => el.querySelector(".setting-item-name")?.textContent === "Model files")!;
	const progress: string[] = [];
	const watch = window.setInterval(() => progress.push(files.querySelector(".engrama-model-state")?.textContent ?? ""), 20);
	Array.from(files.querySelectorAll("button"))
		.find((b) => b.textContent === "Download model")!
		.click();
	await until(() => ["done", "failed", "idle"].includes(controller.models.state.kind) && progress.length > 0, "the download", 120_000);
	window.clearInterval(watch);
	const state = controller.models.state.kind === "failed" ? `failed: ${controller.models.state.error ?? ""}` : controller.models.state.kind;
	if (state === "done") {
		await until(() => controller.host.engine?.embedderNote === "local engrama/tiny-encoder", "the engine with the model", 120_000);
		// The download ends by embedding the notes already in memory.
		await until(() => booted().fake.fakeNotices.some((n) => /embedded [\d,]+ nodes|every node already has a vector/.test(n.text)) && !controller.tasks.current, "the notes embedded", 120_000);
	}
	const engine = await controller.ready();
	const view = await engine.memory.search(engine.scope, "search the graph database");
	return {
		progress: [...new Set(progress)],
		state,
		note: engine.embedderNote,
		degraded: view.degraded,
		...(view.reason !== undefined ? { reason: view.reason } : {}),
		vectorHits: view.results.filter((r) => (r.scores.vector ?? 0) > 0).length,
		status: app.statusBarEl.textContent ?? "",
		worker: (globalThis as { __engramaOrtWorker?: unknown }).__engramaOrtWorker !== undefined,
	};
}

(window as unknown as { engramaScenes: unknown }).engramaScenes = { openNote, showPanel, reflect, search, showSettings, localModel };
