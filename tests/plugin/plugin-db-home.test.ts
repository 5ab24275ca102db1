// The built main.js on desktop: the memory lives outside the vault, an old one in the plugin folder
// moves there intact, and a second device writing the same file is stopped with a message.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, test } from "vitest";
import { PLUGIN_DIR, desktopDbPath, loadPlugin, makeVault, manifest, waitFor, type LoadedPlugin, type PluginInstance, type VaultCopy } from "./harness";

let h: LoadedPlugin;
beforeAll(async () => {
	h = await loadPlugin();
});

interface Running {
	readonly app: ReturnType<LoadedPlugin["fake"]["createFakeApp"]>;
	readonly plugin: PluginInstance;
}
const running: Running[] = [];
const vaults: VaultCopy[] = [];

async function start(vault: VaultCopy): Promise<Running> {
	const app = h.fake.createFakeApp(vault.path);
	const plugin = new h.Plugin(app, manifest());
	await plugin.fakeLoad();
	await app.workspace.fakeLayoutReady();
	const r = { app, plugin };
	running.push(r);
	return r;
}

async function stop(r: Running): Promise<void> {
	running.splice(running.indexOf(r), 1);
	r.plugin.unload();
	await r.plugin.closed;
}

async function settled(r: Running) {
	const controller = r.plugin.controller!;
	const engine = await controller.ready();
	await waitFor(() => controller.tasks.current === null && controller.counts !== null, "the startup sync");
	await engine.sync.idle();
	return engine;
}

function data(vault: VaultCopy): Record<string, unknown> {
	return JSON.parse(readFileSync(join(vault.path, PLUGIN_DIR, "data.json"), "utf8")) as Record<string, unknown>;
}

function vault(settings: unknown): VaultCopy {
	const v = makeVault({ settings });
	vaults.push(v);
	return v;
}

afterEach(async () => {
	for (const r of running.splice(0)) {
		r.plugin.unload();
		await r.plugin.closed;
	}
	for (const v of vaults.splice(0)) v.cleanup();
	h.fake.fakeReset();
	h.fake.fakeNewDevice();
});

const BASE = { modules: ["teaching"], sync: { debounceMs: 30 } };

describe("desktop database location", () => {
	test("an existing memory in the plugin folder moves out of the vault intact; the old file is kept aside", async () => {
		// An earlier version's layout: the database in the plugin folder (written there on purpose here).
		const v = vault({ ...BASE, dbPath: `${PLUGIN_DIR}/engrama.db` });
		const first = await start(v);
		const before = await settled(first);
		const counts = await before.memory.graph.counts(before.scope);
		const scope = before.scope;
		await stop(first);
		expect(existsSync(join(v.path, PLUGIN_DIR, "engrama.db"))).toBe(true);

		// The new default: dbPath empty.
		writeFileSync(join(v.path, PLUGIN_DIR, "data.json"), JSON.stringify({ ...data(v), dbPath: "" }));
		const second = await start(v);
		const after = await settled(second);
		expect(after.location).toBe(desktopDbPath(v.path));
		expect(after.scope).toEqual(scope);
		expect(await after.memory.graph.counts(after.scope)).toEqual(counts);
		expect(existsSync(join(v.path, PLUGIN_DIR, "engrama.db"))).toBe(false);
		expect(readdirSync(join(v.path, PLUGIN_DIR)).some((f) => /^engrama\.db\.moved-.*[^l]$/.test(f))).toBe(true);
		expect(h.fake.fakeNotices.some((n) => n.text.includes("moved its memory out of the synced vault"))).toBe(true);
	});
});

describe("quitting Obsidian", () => {
	test("closes the memory even when no unload follows: the file is left whole and stamped as checked, and a later unload closes nothing twice", async () => {
		const v = vault(BASE);
		const r = await start(v);
		const engine = await settled(r);
		const path = engine.location;
		// A writing open removes the stamp: while the memory is open the file may change.
		expect(existsSync(`${path}.engrama-checked`)).toBe(false);
		await r.app.workspace.fakeQuit();
		expect(r.plugin.controller).toBeNull();
		expect(existsSync(`${path}.engrama-checked`)).toBe(true);
		expect(existsSync(`${path}-wal`)).toBe(false);
		await stop(r);
		expect(h.fake.fakeErrors).toEqual([]);
	});
});

describe("a second writer through a sync tool", () => {
	// A database path inside the vault: the layout where a sync tool copies the file between devices.
	const SYNCED = { ...BASE, dbPath: "Engrama data/engrama.db" };

	test("another device that wrote the file last: this one refuses with a message, and takes over only when told", async () => {
		const v = vault(SYNCED);
		const a = await start(v);
		await settled(a);
		await stop(a);

		h.fake.fakeNewDevice();
		const b = await start(v);
		await waitFor(() => b.plugin.controller!.host.state.kind === "failed", "the refusal");
		const state = b.plugin.controller!.host.state;
		expect(state.kind === "failed" && state.error).toMatch(/last written by another device \(.*Fake vault.*\).*Use this memory on this device/);
		expect(b.app.commands.isAvailable("engrama:take-over-memory")).toBe(true);

		await b.plugin.controller!.takeOver();
		const engine = await settled(b);
		expect((await engine.memory.graph.counts(engine.scope)).nodes).toBeGreaterThan(50);
	});

	test("another device claims the file while this one has it open: writes stop before the next commit, with a message", async () => {
		const v = vault(SYNCED);
		const a = await start(v);
		const engine = await settled(a);
		// What a sync tool delivers when another device opens the same memory: its stamp beside the database.
		const side = join(v.path, "Engrama data", "engrama.db.writer");
		const ours = JSON.parse(readFileSync(side, "utf8")) as { counter: number };
		writeFileSync(side, `${JSON.stringify({ device: "other-device", name: "laptop-2, vault “Fake vault”", counter: ours.counter + 1, at: "2026-12-01T10:00:00.000Z" })}\n`);

		await expect(engine.memory.pipeline.setMeta("probe", "x")).rejects.toThrow(/Another device \(laptop-2.*\) opened .*stopped writing/);
		await waitFor(() => a.plugin.controller!.host.state.kind === "failed", "the engine to stop");
		expect(h.fake.fakeNotices.some((n) => n.text.includes("Another device (laptop-2"))).toBe(true);
	});
});
