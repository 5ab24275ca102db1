// Obsidian mobile: no Node built-ins, no file system path. The built main.js must still load,
// keep its database as snapshots through the vault adapter, and leave the MCP bridge out.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { makeTempDir } from "../helpers/temp-dir";
import { writeTinyModel } from "../nodejs/embedders/tiny-onnx-model";
import { PLUGIN_DIR, TEST_HOME, loadPlugin, makeVault, manifest, waitFor, type LoadedPlugin } from "./harness";
import { startHubServer } from "./model-hub-server";

let h: LoadedPlugin;

beforeAll(async () => {
	// main.js's require knows only `obsidian`, as in the mobile apps.
	h = await loadPlugin({ mode: "mobile" });
	h.fake.Platform.isDesktopApp = false;
	h.fake.Platform.isDesktop = false;
	h.fake.Platform.isMobileApp = true;
	h.fake.Platform.isMobile = true;
});

afterAll(() => {
	Object.assign(h.fake.Platform, { isDesktopApp: true, isDesktop: true, isMobileApp: false, isMobile: false });
});

test("on mobile the plugin syncs into an in-memory database kept as snapshots through the adapter, without the MCP bridge", async () => {
	const vault = makeVault({ settings: { modules: ["teaching"], sync: { debounceMs: 30 }, mcp: { enabled: true } } });
	const app = h.fake.createFakeApp(vault.path, { mobile: true });
	const plugin = new h.Plugin(app, manifest());
	await plugin.fakeLoad();
	await app.workspace.fakeLayoutReady();
	const engine = await plugin.controller!.ready();
	expect(engine.location).toBe(`${PLUGIN_DIR}/engrama.db (snapshot)`);
	await waitFor(() => plugin.controller!.tasks.current === null, "the startup sync");
	await engine.sync.idle();
	const counts = await engine.memory.graph.counts(engine.scope);
	expect(counts.nodes).toBeGreaterThanOrEqual(60);

	// The MCP bridge stays off even though enabled: its commands are unavailable, the status bar has no MCP part.
	expect(plugin.controller!.bridge.state.kind).toBe("off");
	expect(app.commands.isAvailable("engrama:start-mcp-bridge")).toBe(false);
	expect(app.commands.isAvailable("engrama:copy-mcp-config")).toBe(false);
	expect(app.statusBarEl.textContent).not.toContain("MCP");
	const tab = app.settingTabs[0];
	tab.display();
	expect(tab.containerEl.textContent).toContain("Desktop only");
	tab.hide();

	// Reflect, search and the panel work on mobile too.
	expect(app.commands.executeCommandById("engrama:reflect-now")).toBe(true);
	await waitFor(() => h.fake.fakeNotices.some((n) => n.text.includes("reflect proposed")), "reflect");
	const found = await engine.memory.search(engine.scope, "idempotency", { limit: 5 });
	expect(found.results.length).toBeGreaterThan(0);

	plugin.unload();
	await plugin.closed;
	const snapshot = join(vault.path, PLUGIN_DIR, "engrama.db");
	expect(existsSync(snapshot)).toBe(true);
	expect(readFileSync(snapshot).subarray(0, 15).toString("latin1")).toBe("SQLite format 3");
	expect(h.fake.fakeActiveTimers()).toEqual({ timeouts: 0, intervals: 0 });

	// The next session starts from the snapshot: same graph, same identity.
	const again = new h.Plugin(h.fake.createFakeApp(vault.path, { mobile: true }), manifest());
	await again.fakeLoad();
	await (again.controller!.app.workspace as unknown as { fakeLayoutReady(): Promise<void> }).fakeLayoutReady();
	const reopened = await again.controller!.ready();
	expect(reopened.scope).toEqual(engine.scope);
	expect((await reopened.memory.graph.counts(reopened.scope)).nodes).toBeGreaterThanOrEqual(counts.nodes);
	await waitFor(() => again.controller!.tasks.current === null, "the catch-up sync");
	again.unload();
	await again.closed;

	// main.js never asked require for anything but obsidian: not at load, not for the database, not for the bridge.
	expect(h.refusedRequires).toEqual([]);
	vault.cleanup();
});

test("on mobile a synced data.json that chooses Neo4j opens SQLite with one notice, and settings offer SQLite only", async () => {
	const settings = { backend: "neo4j", neo4j: { uri: "bolt://desktop.example:7687", username: "neo4j", password: "secret", database: "neo4j" } };
	const vault = makeVault({ settings });
	try {
		h.fake.fakeReset();
		const app = h.fake.createFakeApp(vault.path, { mobile: true });
		const plugin = new h.Plugin(app, manifest());
		await plugin.fakeLoad();
		await app.workspace.fakeLayoutReady();
		const engine = await plugin.controller!.ready();
		expect(engine.config.backend).toBe("sqlite");
		expect(engine.location).toBe(`${PLUGIN_DIR}/engrama.db (snapshot)`);
		await waitFor(() => plugin.controller!.tasks.current === null, "the startup sync");
		expect((await engine.memory.graph.counts(engine.scope)).nodes).toBeGreaterThan(0);
		const told = () => h.fake.fakeNotices.filter((n) => n.text.includes("this device uses SQLite instead")).map((n) => n.text);
		expect(told()).toEqual([expect.stringContaining("Neo4j is desktop only")]);

		const tab = app.settingTabs[0];
		tab.display();
		const options = [...tab.containerEl.querySelectorAll("option")].map((o) => o.value);
		expect(options).toContain("sqlite");
		expect(options).not.toContain("neo4j");
		expect(tab.containerEl.textContent).toContain("the desktop keeps Neo4j");
		expect(tab.containerEl.textContent).not.toContain("Neo4j URI");
		tab.hide();

		// A reopen (a settings change) does not repeat the notice; data.json keeps the desktop's choice.
		await plugin.controller!.host.restart();
		expect(told()).toHaveLength(1);
		plugin.unload();
		await plugin.closed;
		expect(JSON.parse(readFileSync(join(vault.path, PLUGIN_DIR, "data.json"), "utf8"))).toMatchObject({ backend: "neo4j" });
		expect(h.refusedRequires).toEqual([]);
	} finally {
		vault.cleanup();
	}
}, 120_000);

test("on mobile the local model downloads through the adapter and embeds, with no Node built-in", async () => {
	const hub = makeTempDir("engrama-mobile-hub-");
	writeTinyModel(hub.path, "engrama/tiny-encoder");
	const server = await startHubServer(hub.path);
	const vault = makeVault({ example: false, settings: { embedding: { provider: "local", model: "engrama/tiny-encoder", hubUrl: server.url, runtimeUrl: server.runtimeUrl } } });
	writeFileSync(join(vault.path, "Cats.md"), "the cat sat on the mat\n");
	writeFileSync(join(vault.path, "Dogs.md"), "the dog ran in the park\n");
	try {
		const app = h.fake.createFakeApp(vault.path, { mobile: true });
		const plugin = new h.Plugin(app, manifest());
		await plugin.fakeLoad();
		await app.workspace.fakeLayoutReady();
		await plugin.controller!.ready();
		expect(await plugin.actions!.downloadLocalModel()).toBe(true);
		const engine = await plugin.controller!.ready();
		expect(engine.embedderNote).toBe("local engrama/tiny-encoder");
		await server.close();
		const found = await engine.memory.search(engine.scope, "the cat sat");
		expect(found.degraded).toBe(false);
		expect(found.results[0]?.name).toBe("Cats");
		expect(existsSync(join(vault.path, PLUGIN_DIR, "models", "engrama", "tiny-encoder", "engrama-model.json"))).toBe(true);
		// Mobile has no folder outside the vault: the plugin folder, and the settings say what that means.
		expect(await plugin.controller!.models.store.location()).toBe(`${PLUGIN_DIR}/models`);
		expect(existsSync(join(TEST_HOME, ".engrama", "obsidian-models"))).toBe(false);
		const tab = app.settingTabs[0];
		tab.display();
		expect(tab.containerEl.textContent).toContain("On this device the files stay in this plugin's folder, inside the vault: a sync tool copies them");
		tab.hide();
		plugin.unload();
		await plugin.closed;
		expect(h.refusedRequires).toEqual([]);
	} finally {
		await server.close().catch(() => undefined);
		vault.cleanup();
		hub.cleanup();
	}
}, 120_000);

test("on mobile, disable→enable without awaiting onunload keeps every note: the new instance waits for the old snapshot", async () => {
	const CYCLES = 5;
	const NOTES_PER_CYCLE = 10;
	const vault = makeVault({ settings: { modules: ["teaching"], sync: { debounceMs: 60_000 } } });
	const app = h.fake.createFakeApp(vault.path, { mobile: true });
	let plugin = new h.Plugin(app, manifest());
	const closings: Promise<void>[] = [];
	try {
		await app.vault.createFolder("Reloads");
		await plugin.fakeLoad();
		await app.workspace.fakeLayoutReady();
		let engine = await plugin.controller!.ready();
		await waitFor(() => plugin.controller!.tasks.current === null, "the startup sync");
		await engine.sync.idle();
		const before = (await engine.memory.graph.counts(engine.scope)).nodes;
		for (let cycle = 1; cycle <= CYCLES; cycle++) {
			// Pending (long debounce): the old instance syncs them and writes its last snapshot while closing.
			for (let i = 1; i <= NOTES_PER_CYCLE; i++) await app.vault.create(`Reloads/Cycle ${cycle} note ${i}.md`, `Written before reload ${cycle}.\n`);
			plugin.unload();
			closings.push(plugin.closed);
			plugin = new h.Plugin(app, manifest());
			await plugin.fakeLoad();
			// ready() resolves once the catch-up sync has started (an earlier check of tasks.current could pass before it).
			engine = await waitFor(() => plugin.controller!.ready(), `the engine of cycle ${cycle}`, 60_000);
			await plugin.controller!.tasks.whenIdle();
			await engine.sync.idle();
			// Each instance finds what the one before it synced (from the snapshot or by catching up).
			expect((await engine.memory.graph.counts(engine.scope)).nodes).toBe(before + cycle * NOTES_PER_CYCLE);
		}
		plugin.unload();
		await plugin.closed;
		await Promise.all(closings);
		// The last snapshot holds them all: a fresh start reads it.
		const again = new h.Plugin(h.fake.createFakeApp(vault.path, { mobile: true }), manifest());
		await again.fakeLoad();
		await (again.controller!.app.workspace as unknown as { fakeLayoutReady(): Promise<void> }).fakeLayoutReady();
		const reopened = await again.controller!.ready();
		expect((await reopened.memory.graph.counts(reopened.scope)).nodes).toBe(before + CYCLES * NOTES_PER_CYCLE);
		again.unload();
		await again.closed;
		expect(h.refusedRequires).toEqual([]);
	} finally {
		vault.cleanup();
	}
}, 300_000);

/**
 * The startup sync stops at its first note read, so it is still running when the plugin unloads;
 * notes written meanwhile (long debounce) are synced by the closing instance, before its last
 * snapshot. `queued`: their batch was already waiting behind the sync when unload came.
 */
async function pendingNotesAtUnload(queued: boolean): Promise<string[]> {
	const NOTES = 10;
	const vault = makeVault({ settings: { modules: ["teaching"], sync: { debounceMs: 60_000 } } });
	const app = h.fake.createFakeApp(vault.path, { mobile: true });
	const plugin = new h.Plugin(app, manifest());
	const hold = h.fake.fakeHoldReads();
	try {
		await app.vault.createFolder("Pending");
		await plugin.fakeLoad();
		await app.workspace.fakeLayoutReady();
		const engine = await plugin.controller!.ready();
		await hold.waiting;
		expect(plugin.controller!.tasks.current?.title).toBe("Syncing the vault");
		for (let i = 1; i <= NOTES; i++) await app.vault.create(`Pending/Pending note ${i}.md`, `Written just before the reload.\n`);
		// As when the debounce ends during the sync: the batch waits behind it.
		if (queued) void engine.sync.flush();
		plugin.unload();
		hold.release();
		await plugin.closed;

		// What the last snapshot holds, with no catch-up sync to fill gaps.
		const data = join(vault.path, PLUGIN_DIR, "data.json");
		writeFileSync(data, JSON.stringify({ ...(JSON.parse(readFileSync(data, "utf8")) as object), sync: { debounceMs: 60_000, autoSync: false } }));
		const again = new h.Plugin(h.fake.createFakeApp(vault.path, { mobile: true }), manifest());
		await again.fakeLoad();
		await (again.controller!.app.workspace as unknown as { fakeLayoutReady(): Promise<void> }).fakeLayoutReady();
		const reopened = await again.controller!.ready();
		const missing: string[] = [];
		for (let i = 1; i <= NOTES; i++) {
			if ((await reopened.memory.graph.findByKey(reopened.scope, `Pending note ${i}`)).length === 0) missing.push(`Pending note ${i}`);
		}
		again.unload();
		await again.closed;
		expect(h.refusedRequires).toEqual([]);
		return missing;
	} finally {
		hold.release();
		vault.cleanup();
	}
}

test("on mobile, notes waiting for sync at unload reach the last snapshot even when unload cancels a running sync", async () => {
	expect(await pendingNotesAtUnload(false)).toEqual([]);
}, 300_000);

test("on mobile, a batch of notes queued behind a sync that unload cancels is not cancelled with it", async () => {
	expect(await pendingNotesAtUnload(true)).toEqual([]);
}, 300_000);
