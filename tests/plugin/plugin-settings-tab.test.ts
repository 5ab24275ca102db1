// The settings tab of the built main.js (validation, changes applied without a restart), and long
// work with progress and Cancel.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { PLUGIN_DIR, loadPlugin, makeVault, manifest, waitFor, type LoadedPlugin, type PluginInstance, type VaultCopy, desktopDbPath } from "./harness";

let h: LoadedPlugin;
let vault: VaultCopy;
let app: ReturnType<LoadedPlugin["fake"]["createFakeApp"]>;
let plugin: PluginInstance;
let tab: InstanceType<LoadedPlugin["fake"]["PluginSettingTab"]>;

beforeAll(async () => {
	h = await loadPlugin();
	vault = makeVault({ settings: { modules: ["teaching"], sync: { autoSync: false } } });
	app = h.fake.createFakeApp(vault.path);
	plugin = new h.Plugin(app, manifest());
	await plugin.fakeLoad();
	await app.workspace.fakeLayoutReady();
	await plugin.controller!.ready();
	tab = app.settingTabs[0];
});

afterAll(async () => {
	plugin.unload();
	await plugin.closed;
	vault.cleanup();
});

beforeEach(() => {
	h.fake.fakeReset();
	tab.display();
});

function setting(name: string): HTMLElement {
	const found = Array.from(tab.containerEl.querySelectorAll<HTMLElement>(".setting-item")).find((s) => s.querySelector(".setting-item-name")?.textContent === name);
	if (!found) throw new Error(`No setting "${name}"`);
	return found;
}

function type(name: string, value: string): void {
	const input = setting(name).querySelector<HTMLInputElement | HTMLTextAreaElement>("input, textarea")!;
	input.value = value;
	input.dispatchEvent(new window.Event("input"));
}

function choose(name: string, value: string): void {
	const select = setting(name).querySelector("select")!;
	select.value = value;
	select.dispatchEvent(new window.Event("change"));
}

function saved(): { mcp: { port: number }; neo4j?: { uri: string }; sync: { includeFolders: string[]; folderLabels: Record<string, string> }; profile: string } {
	return JSON.parse(readFileSync(join(vault.path, PLUGIN_DIR, "data.json"), "utf8")) as ReturnType<typeof saved>;
}

describe("settings tab", () => {
	test("shows every section and the open memory", () => {
		const headings = Array.from(tab.containerEl.querySelectorAll(".setting-item-heading .setting-item-name")).map((e) => e.textContent);
		expect(headings).toEqual(["Storage", "Embeddings", "Profile and modules", "Sync", "MCP bridge", "Search (advanced)"]);
		expect(setting("Memory").textContent).toContain(desktopDbPath(vault.path));
	});

	test("an invalid value is refused with a message under the field and is not saved", async () => {
		type("Port", "80");
		await waitFor(() => setting("Port").querySelector(".engrama-setting-error"), "the error message");
		expect(setting("Port").querySelector(".engrama-setting-error")!.textContent).toMatch(/^Not saved: mcp › port /);
		expect(setting("Port").classList.contains("is-invalid")).toBe(true);
		type("Port", "abc");
		expect(setting("Port").querySelector(".engrama-setting-error")!.textContent).toBe("Not saved: enter a number.");
		expect(saved().mcp.port).toBe(27182);
		type("Port", "30123");
		await waitFor(() => saved().mcp.port === 30123, "the valid port saved");
		expect(setting("Port").querySelector(".engrama-setting-error")).toBeNull();

		type("Folder labels", "Projects: Project\nnonsense");
		expect(setting("Folder labels").querySelector(".engrama-setting-error")!.textContent).toBe('Not saved: Line 2: write it as "Folder: Label".');
		type("Folder labels", "Inbox: Note");
		await waitFor(() => saved().sync.folderLabels.Inbox === "Note", "the folder labels saved");
	});

	test("the recency half-life is validated, saved to data.json and used by the reopened engine's search", async () => {
		type("Recency half-life", "0");
		await waitFor(() => setting("Recency half-life").querySelector(".engrama-setting-error"), "the error message");
		expect(setting("Recency half-life").querySelector(".engrama-setting-error")!.textContent).toMatch(/^Not saved: search › halfLifeDays /);
		const before = plugin.controller!.host.engine;
		type("Recency half-life", "180");
		await waitFor(() => (saved() as unknown as { search?: { halfLifeDays?: number } }).search?.halfLifeDays === 180, "the half-life saved");
		await waitFor(() => plugin.controller!.host.engine !== null && plugin.controller!.host.engine !== before, "the engine reopened");
		expect(plugin.controller!.host.engine!.memory.searcher.settings.halfLifeDays).toBe(180);
	});

	test("changes apply without restarting Obsidian: auto-sync at once, the profile by reopening the engine", async () => {
		const toggle = setting("Sync automatically").querySelector<HTMLElement>(".checkbox-container")!;
		expect(app.vault.listenerCount()).toBe(0);
		toggle.click();
		await waitFor(() => app.vault.listenerCount() === 4, "vault events subscribed");
		toggle.click();
		await waitFor(() => app.vault.listenerCount() === 0, "vault events released");

		const before = plugin.controller!.host.engine!;
		expect(before.profile.resolveLabel("Course")).toBeDefined();
		choose("Profile", "developer");
		await waitFor(() => plugin.controller!.host.engine !== null && plugin.controller!.host.engine !== before, "the engine reopened");
		expect(saved().profile).toBe("developer");
		expect(plugin.controller!.host.engine!.profile.name).not.toBe(before.profile.name);
		choose("Profile", "base");
		await waitFor(() => plugin.controller!.host.engine?.profile.resolveLabel("Course") !== undefined, "the base profile with teaching back");
	});

	test("choosing Neo4j shows its connection fields and a Test connection button", async () => {
		const before = plugin.controller!.host.engine;
		choose("Backend", "neo4j");
		await waitFor(() => tab.containerEl.textContent?.includes("Neo4j URI"), "the Neo4j fields");
		expect(setting("Test connection").querySelector("button")!.textContent).toBe("Test connection");
		// Nothing listens on port 1: the answer comes from one attempt, not after the 15 s retry window
		// (the message says how long it retried; no clock, which a busy machine could break).
		type("Neo4j URI", "bolt://127.0.0.1:1");
		await waitFor(() => saved().neo4j?.uri === "bolt://127.0.0.1:1", "the URI saved");
		setting("Test connection").querySelector("button")!.click();
		await waitFor(() => h.fake.fakeNotices.some((n) => n.text.includes("Neo4j did not answer")), "the connection notice");
		expect(h.fake.fakeNotices.find((n) => n.text.includes("Neo4j did not answer"))?.text).toMatch(/retried for 0 s/);
		expect(h.fake.fakeNotices.map((n) => n.text).join("\n")).toMatch(/127\.0\.0\.1:1/);
		const realServer = process.env.NEO4J_URI;
		if (realServer && (process.env.ENGRAMA_TEST_BACKENDS ?? "").includes("neo4j")) {
			// The real test server, through the bundled driver's browser channel (Bolt over WebSocket).
			h.fake.fakeReset();
			type("Neo4j URI", realServer);
			await waitFor(() => saved().neo4j?.uri === realServer, "the real URI saved");
			setting("Test connection").querySelector("button")!.click();
			await waitFor(() => h.fake.fakeNotices.some((n) => /Neo4j (answered|did not answer)/.test(n.text)), "the real server's answer", 30_000);
			expect(h.fake.fakeNotices.map((n) => n.text).join("\n")).toMatch(/Neo4j answered: \d+ nodes, \d+ relations/);
		}
		choose("Backend", "sqlite");
		await waitFor(() => tab.containerEl.textContent?.includes("Database file"), "the SQLite fields");
		// Back on SQLite: the engine reopens on the same file.
		await waitFor(
			() => plugin.controller!.host.engine !== null && plugin.controller!.host.engine !== before && plugin.controller!.host.engine.config.backend === "sqlite",
			"SQLite reopened",
			15_000,
		);
		expect(plugin.controller!.host.engine!.config.backend).toBe("sqlite");
	});
});

describe("settings changed on another device", () => {
	test("data.json written by Obsidian Sync is taken as is, without writing it back", async () => {
		const file = join(vault.path, PLUGIN_DIR, "data.json");
		const data = JSON.parse(readFileSync(file, "utf8")) as { decay: { rate: number } };
		data.decay.rate = 0.05;
		const text = JSON.stringify(data);
		writeFileSync(file, text);
		await plugin.onExternalSettingsChange();
		expect(plugin.controller!.settings.decay.rate).toBe(0.05);
		expect(readFileSync(file, "utf8")).toBe(text);
	});
});

describe("long work", () => {
	test("a full sync shows progress in a notice and the status bar, and Cancel stops it with nothing half-done", async () => {
		const engine = await plugin.controller!.ready();
		const running = plugin.controller!.fullSync(engine);
		const notice = await waitFor(() => h.fake.fakeNotices.find((n) => n.noticeEl.querySelector(".engrama-progress-cancel")), "the progress notice");
		expect(notice.text).toContain("Syncing the vault");
		await waitFor(() => app.statusBarEl.textContent?.includes("syncing the vault"), "the status bar showing the sync");
		notice.noticeEl.querySelector<HTMLButtonElement>(".engrama-progress-cancel")!.click();
		expect(await running).toBeNull();
		await waitFor(() => h.fake.fakeNotices.some((n) => n.text === "Engrama: Syncing the vault was cancelled."), "the cancelled notice");
		expect(notice.hidden).toBe(true);
		expect(app.statusBarEl.textContent).not.toContain("syncing");
		// A later sync finishes the job: same graph as one uninterrupted sync.
		const report = await plugin.controller!.fullSync(engine);
		expect(report).not.toBeNull();
		const again = await plugin.controller!.fullSync(engine);
		expect(again!.counts.nodesCreated + again!.counts.nodesUpdated + again!.counts.relationsAdded).toBe(0);
		expect((await engine.memory.graph.counts(engine.scope)).nodes).toBeGreaterThanOrEqual(60);
	});
});
