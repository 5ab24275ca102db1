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
	await plugin.controller?.ready();
	for (let i = 0; i < 600 && plugin.controller?.tasks.current; i++) await new Promise((r) => setTimeout(r, 50));
	(window as unknown as { engrama: Booted }).engrama = { fake, app, plugin };
}

(window as unknown as { engramaBoot: typeof boot }).engramaBoot = boot;

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
	const body = text.replace(/^---[\s\S]*?---\n/, "");
	const heading = /^# (.+)$/m.exec(body)?.[1] ?? file.basename;
	main.createEl("h1", { text: heading });
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

(window as unknown as { engramaScenes: unknown }).engramaScenes = { openNote, showPanel, reflect, search, showSettings };
