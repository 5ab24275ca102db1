// The built main.js in the desktop renderer as Obsidian runs it (harness: require serves obsidian
// and Node built-ins, import() of a bare specifier rejects as in Chromium): the MCP bridge starts and
// a real MCP client uses it; and reloads as Obsidian drives them (onunload not awaited, a new
// instance at once, on the same vault) never fail.
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { TOOL_NAMES } from "../../src/mcp/tools";
import { connectClient, ok } from "../mcp/mcp-harness";
import { PLUGIN_DIR, TEST_HOME, loadPlugin, makeVault, manifest, vaultIdOf, waitFor, type LoadedPlugin, type PluginInstance } from "./harness";
import { freePort } from "../helpers/free-port";

let h: LoadedPlugin;
beforeAll(async () => {
	h = await loadPlugin({ mode: "desktop" });
});
afterAll(() => h.fake.fakeReset());

type McpListening = { kind: "listening"; port: number; url: string };

/** Waits for a state; a failed state fails the test at once (waitFor would keep polling). */
async function until<T>(read: () => { failed: string } | T | null, what: string): Promise<T> {
	const value = await waitFor(read, what, 60_000);
	if (typeof value === "object" && "failed" in value) throw new Error(`${what} failed: ${value.failed}`);
	return value;
}

function listening(plugin: PluginInstance): Promise<McpListening> {
	return until(() => {
		const state = plugin.controller?.bridge.state;
		if (state?.kind === "failed") return { failed: state.error };
		return state?.kind === "listening" ? state : null;
	}, "the MCP bridge");
}

/** Every notice the plugin showed that reports a failure. */
function failureNotices(): string[] {
	return h.fake.fakeNotices.map((n) => n.text).filter((text) => /fail|could not|did not|already open|waited/i.test(text));
}

test("desktop renderer: the MCP bridge starts inside the app and a real MCP client lists the 15 tools and calls one", async () => {
	const port = await freePort();
	const vault = makeVault({ settings: { modules: ["teaching"], sync: { debounceMs: 30 }, mcp: { enabled: true, port } } });
	const app = h.fake.createFakeApp(vault.path);
	const plugin = new h.Plugin(app, manifest());
	try {
		await plugin.fakeLoad();
		await app.workspace.fakeLayoutReady();
		const state = await listening(plugin);
		expect(state.port).toBe(port);
		// The stdio proxy's token file, written through require("fs") on desktop, outside the vault.
		const tokenFile = join(TEST_HOME, ".engrama", "vaults", vaultIdOf(vault.path), "mcp-token");
		expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
		expect(readFileSync(tokenFile, "utf8").trim()).toBe(plugin.controller!.mcpToken());
		expect(existsSync(join(vault.path, PLUGIN_DIR, "mcp-token"))).toBe(false);

		const client = await connectClient(state.url, plugin.controller!.mcpToken());
		try {
			const tools = await client.listTools();
			expect(tools.tools.map((t) => t.name).sort()).toEqual([...TOOL_NAMES].sort());
			expect(tools.tools).toHaveLength(16);
			const status = await ok<{ backend: { name: string; ok: boolean } }>(client, "engrama_status");
			expect(status.backend).toMatchObject({ name: "sqlite", ok: true });
		} finally {
			await client.close();
		}
		// On desktop main.js asked require only for what Electron has.
		expect(h.refusedRequires).toEqual([]);
		expect(failureNotices()).toEqual([]);
	} finally {
		plugin.unload();
		await plugin.closed;
		vault.cleanup();
	}
});

test("20 disable→enable cycles without awaiting onunload, on the same vault: no error, data intact, the bridge back on the same port", async () => {
	const CYCLES = 20;
	const port = await freePort();
	// A long debounce: the notes written before each unload are still pending, so the old instance's
	// close has real work to finish (it syncs them) while the new instance is already starting.
	const vault = makeVault({ settings: { modules: ["teaching"], sync: { debounceMs: 60_000 }, mcp: { enabled: true, port } } });
	const app = h.fake.createFakeApp(vault.path);
	let plugin = new h.Plugin(app, manifest());
	let Plugin = h.Plugin;
	const NOTES_PER_CYCLE = 10;
	const closings: Promise<void>[] = [];
	try {
		await app.vault.createFolder("Reloads");
		await plugin.fakeLoad();
		await app.workspace.fakeLayoutReady();
		let engine = await plugin.controller!.ready();
		await waitFor(() => plugin.controller!.tasks.current === null && plugin.controller!.counts !== null, "the startup sync");
		await listening(plugin);
		const client = await connectClient(`http://127.0.0.1:${port}/mcp`, plugin.controller!.mcpToken());
		await ok(client, "engrama_remember", { label: "Decision", properties: { title: "Reload safely", summary: "Wait for the old instance." } });
		await client.close();
		await engine.sync.idle();
		const before = await engine.memory.graph.counts(engine.scope);

		for (let cycle = 1; cycle <= CYCLES; cycle++) {
			for (let i = 1; i <= NOTES_PER_CYCLE; i++) await app.vault.create(`Reloads/Cycle ${cycle} note ${i}.md`, `Written before reload ${cycle}.\n`);
			// Obsidian: unload() calls onunload and does not wait for what it started.
			plugin.unload();
			closings.push(plugin.closed);
			// Every fourth cycle is a plugin update: main.js evaluated afresh, a new class.
			if (cycle % 4 === 0) Plugin = (await loadPlugin({ mode: "desktop" })).Plugin;
			plugin = new Plugin(app, manifest());
			// Layout is already ready: onLayoutReady runs the start at once, as in Obsidian.
			await plugin.fakeLoad();
			engine = await until(() => {
				const state = plugin.controller!.host.state;
				if (state.kind === "failed") return { failed: state.error };
				return state.kind === "ready" ? state.engine : null;
			}, `the engine of cycle ${cycle}`);
			const state = await listening(plugin);
			expect(state.port).toBe(port);
			expect(failureNotices()).toEqual([]);
		}

		await waitFor(() => plugin.controller!.tasks.current === null, "the last catch-up sync");
		await engine.sync.idle();
		const after = await engine.memory.graph.counts(engine.scope);
		// Every note written before a reload made it in, nothing else changed.
		expect(after.nodes).toBe(before.nodes + CYCLES * NOTES_PER_CYCLE);
		expect(await engine.memory.graph.listNodes(engine.scope, { where: { obsidian_path: "Reloads/Cycle 7 note 3.md" } })).toHaveLength(1);
		expect(await engine.memory.get(engine.scope, "Decision", "Reload safely")).not.toBeNull();
		const client2 = await connectClient(`http://127.0.0.1:${port}/mcp`, plugin.controller!.mcpToken());
		const found = await ok<{ results: { name: string }[] }>(client2, "engrama_search", { query: "reload safely" });
		expect(found.results.map((r) => r.name)).toContain("Reload safely");
		await client2.close();
		expect(h.fake.fakeErrors).toEqual([]);
	} finally {
		plugin.unload();
		await plugin.closed;
		await Promise.all(closings);
		vault.cleanup();
	}
}, 300_000);
