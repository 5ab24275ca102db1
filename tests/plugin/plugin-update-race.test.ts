// An update from a plugin version without the instance handover: the old instance may still hold
// the database lock and the bridge's port for a moment when the new one starts. The new one waits
// and retries instead of failing for good.
import { mkdirSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { dirname } from "node:path";
import { afterEach, beforeAll, expect, test } from "vitest";
import { loadNodeModules } from "../../src/platform/node-builtins";
import { acquireProcessLock } from "../../src/backends/sqlite/wasm/process-lock";
import { desktopDbPath, loadPlugin, makeVault, manifest, waitFor, type LoadedPlugin, type PluginInstance, type VaultCopy } from "./harness";
import { freePort } from "../helpers/free-port";

let h: LoadedPlugin;
beforeAll(async () => {
	h = await loadPlugin();
});

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
	for (const c of cleanups.splice(0).reverse()) await c();
	h.fake.fakeReset();
});

function vaultWith(settings: Record<string, unknown>): VaultCopy {
	const vault = makeVault({ settings: { modules: ["teaching"], sync: { autoSync: false }, vaultId: `race-${Date.now()}`, ...settings } });
	cleanups.push(() => vault.cleanup());
	return vault;
}

async function start(vault: VaultCopy): Promise<PluginInstance> {
	const app = h.fake.createFakeApp(vault.path);
	const plugin = new h.Plugin(app, manifest());
	cleanups.push(async () => {
		plugin.unload();
		await plugin.closed;
	});
	await plugin.fakeLoad();
	await app.workspace.fakeLayoutReady();
	return plugin;
}

test("the database still held by an older instance in this window: the new instance waits, then opens it", async () => {
	const vault = vaultWith({});
	const db = desktopDbPath(vault.path);
	mkdirSync(dirname(db), { recursive: true });
	// What the old instance holds: the lock of this very process on the database.
	const old = acquireProcessLock((await loadNodeModules())!, db);
	let released = false;
	const release = () => {
		if (!released) old.release();
		released = true;
	};
	cleanups.push(release);
	const plugin = await start(vault);
	// The first attempt met the lock: the person is told what is happening, and nothing failed.
	await waitFor(() => h.fake.fakeNotices.some((n) => n.text.includes("waiting for the plugin's previous copy")), "the waiting notice", 30_000);
	expect(plugin.controller!.host.state.kind).toBe("starting");
	release();
	const engine = await waitFor(() => plugin.controller!.host.engine, "the engine after the old instance let go", 30_000);
	expect(engine.location).toBe(db);
});

test("the bridge's port still held by an older instance: the bridge waits for it, then listens", async () => {
	const port = await freePort();
	const squatter: Server = createServer();
	await new Promise<void>((resolve) => squatter.listen(port, "127.0.0.1", resolve));
	let closed = false;
	const free = () =>
		closed
			? Promise.resolve()
			: new Promise<void>((resolve) => {
					closed = true;
					squatter.close(() => resolve());
				});
	cleanups.push(free);
	const vault = vaultWith({ mcp: { enabled: true, port } });
	const plugin = await start(vault);
	// The first bind met the port in use: the person is told, and the bridge keeps trying.
	await waitFor(() => h.fake.fakeNotices.some((n) => n.text.includes(`the MCP bridge is waiting for port ${port}`)), "the waiting notice", 30_000);
	expect(plugin.controller!.bridge.state.kind).toBe("starting");
	await free();
	const state = await waitFor(() => (plugin.controller!.bridge.state.kind === "listening" ? plugin.controller!.bridge.state : null), "the bridge on its port", 30_000);
	expect(state.port).toBe(port);
});
