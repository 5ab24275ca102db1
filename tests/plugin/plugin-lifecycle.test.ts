// The built main.js against the fake: load, sync examples/vault, follow vault events, unload cleanly.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, beforeAll, describe, expect, test } from "vitest";
import { PLUGIN_DIR, TEST_HOME, desktopDbPath, loadPlugin, makeVault, manifest, waitFor, type LoadedPlugin, type PluginInstance, type VaultCopy } from "./harness";
import { freePort } from "../helpers/free-port";

let h: LoadedPlugin;
beforeAll(async () => {
	h = await loadPlugin();
});

const SETTINGS = { modules: ["teaching"], sync: { debounceMs: 30 } };

interface Running {
	readonly vault: VaultCopy;
	readonly app: ReturnType<LoadedPlugin["fake"]["createFakeApp"]>;
	readonly plugin: PluginInstance;
}

const running: Running[] = [];

function text(value: unknown): string {
	return typeof value === "string" ? value : "";
}

async function start(settings: unknown = SETTINGS, vault = makeVault({ settings })): Promise<Running> {
	const app = h.fake.createFakeApp(vault.path);
	const plugin = new h.Plugin(app, manifest());
	await plugin.fakeLoad();
	await app.workspace.fakeLayoutReady();
	const r = { vault, app, plugin };
	running.push(r);
	return r;
}

/** Waits for the engine and the catch-up sync that follows it. */
async function settled(r: Running) {
	const controller = r.plugin.controller!;
	const engine = await controller.ready();
	await waitFor(() => controller.tasks.current === null && controller.counts !== null, "the startup sync");
	await engine.sync.idle();
	return engine;
}

afterEach(async () => {
	for (const r of running.splice(0)) {
		r.plugin.unload();
		await r.plugin.closed;
		r.vault.cleanup();
	}
	h.fake.fakeReset();
});

describe("loading", () => {
	test("onload registers the commands, view, settings tab and status bar but opens nothing before layout ready", async () => {
		const vault = makeVault({ settings: SETTINGS });
		const app = h.fake.createFakeApp(vault.path);
		const plugin = new h.Plugin(app, manifest());
		running.push({ vault, app, plugin });
		await plugin.fakeLoad();

		const ids = Object.keys(app.commands.commands).sort();
		expect(ids).toEqual(
			[
				"add-relation",
				"approve-insight",
				"compact-memory",
				"copy-mcp-config",
				"copy-memory-to-neo4j",
				"dismiss-insight",
				"open-panel",
				"rebuild-graph",
				"reembed-missing",
				"reflect-now",
				"regenerate-mcp-token",
				"run-decay",
				"search-memory",
				"show-context",
				"start-mcp-bridge",
				"stop-mcp-bridge",
				"sync-current-note",
				"sync-vault",
				"take-over-memory",
				"write-missing-ids",
			].map((id) => `engrama:${id}`),
		);
		for (const command of Object.values(app.commands.commands)) {
			expect(command.hotkeys ?? []).toEqual([]);
			// Sentence case: only the first word (and names like MCP, Engrama, Insight) capitalised.
			expect(command.name).toMatch(/^[A-Z][a-z-]+( ([a-z-]+|MCP|Engrama|Insight|Neo4j))*$/);
		}
		expect(app.settingTabs).toHaveLength(1);
		expect(app.statusBarEl.textContent).toContain("Engrama: starting");
		// Nothing heavy before layout ready: no engine, no database file, no vault listeners.
		expect(plugin.controller!.host.state.kind).toBe("idle");
		expect(existsSync(join(vault.path, PLUGIN_DIR, "engrama.db"))).toBe(false);
		expect(app.vault.listenerCount()).toBe(0);
	});

	test("after layout ready it opens the memory and syncs examples/vault into the graph", async () => {
		const r = await start();
		const engine = await settled(r);
		const counts = await engine.memory.graph.counts(engine.scope);
		expect(counts.nodes).toBeGreaterThanOrEqual(60);
		expect(counts.edges).toBeGreaterThan(100);
		const project = await engine.memory.get(engine.scope, "Project", "Billing Portal");
		expect(project?.props.obsidian_path).toBe("Projects/Billing Portal.md");
		const course = await engine.memory.get(engine.scope, "Course", "Node.js Backend Bootcamp");
		expect(course).not.toBeNull();
		// engrama_id went into the frontmatter through FileManager.processFrontMatter.
		const text = readFileSync(join(r.vault.path, "Concepts/Idempotency.md"), "utf8");
		const idempotency = await engine.memory.get(engine.scope, "Concept", "Idempotency");
		expect(text).toContain(`engrama_id: ${idempotency!.id}`);
		// The template folder is excluded by default.
		expect(await engine.memory.graph.listNodes(engine.scope, { where: { obsidian_path: "Templates/Problem.md" } })).toHaveLength(0);
		expect(r.app.statusBarEl.textContent).toContain(`Engrama: ${counts.nodes} nodes`);
		expect(r.app.statusBarEl.textContent).toContain("vectors off");
		expect(r.app.statusBarEl.textContent).toContain("MCP off");
		// The database is a real file outside the vault (~/.engrama/vaults/<vaultId>/), none in the plugin's folder.
		expect(engine.location).toBe(desktopDbPath(r.vault.path));
		expect(existsSync(desktopDbPath(r.vault.path))).toBe(true);
		expect(existsSync(join(r.vault.path, PLUGIN_DIR, "engrama.db"))).toBe(false);
	});
});

describe("vault events", () => {
	test("create, modify, rename and delete keep the graph in step", async () => {
		const r = await start();
		const engine = await settled(r);
		const { vault } = r.app;

		const file = await vault.create("Concepts/Event Sourcing.md", "---\nengrama_label: Concept\n---\n# Event Sourcing\n\n> Store every change as an event.\n\nRelated: [[Idempotency]]\n");
		const created = await waitFor(() => engine.memory.get(engine.scope, "Concept", "Event Sourcing"), "the created note's node");
		// The batch writes the node before its edges and yields to the UI in between: wait for it to end.
		await engine.sync.idle();
		expect(created.props.obsidian_path).toBe("Concepts/Event Sourcing.md");
		expect(text(created.props.description)).toContain("Store every change");
		const links = await engine.memory.graph.edgesOf(engine.scope, created.id, "out", ["LINKS_TO"]);
		expect(links.map((e) => e.node.key)).toEqual(["Idempotency"]);
		// Its engrama_id was written back, and that write did not cause another update (no loop).
		await waitFor(() => vault.read(file).then((t) => t.includes(`engrama_id: ${created.id}`)), "the id in the frontmatter");
		await engine.sync.idle();
		const afterIdWrite = await engine.memory.graph.getNodeById(engine.scope, created.id);
		expect(afterIdWrite?.updatedAt).toBe(created.updatedAt);

		const current = await vault.read(file);
		await vault.modify(file, current.replace("Store every change as an event.", "Keep every state change as an immutable event."));
		await waitFor(async () => {
			const node = await engine.memory.graph.getNodeById(engine.scope, created.id);
			return text(node?.props.description).includes("immutable event");
		}, "the modified description");

		await vault.rename(file, "Concepts/Event log.md");
		await waitFor(async () => (await engine.memory.graph.getNodeById(engine.scope, created.id))?.props.obsidian_path === "Concepts/Event log.md", "the renamed path");
		const renamed = await engine.memory.graph.getNodeById(engine.scope, created.id);
		// Same node (same id); its name still comes from the H1.
		expect(renamed?.key).toBe("Event Sourcing");
		expect(await engine.memory.graph.listNodes(engine.scope, { label: "Concept", where: { obsidian_path: "Concepts/Event Sourcing.md" } })).toHaveLength(0);

		const moved = vault.getFileByPath("Concepts/Event log.md")!;
		await r.app.fileManager.trashFile(moved);
		await waitFor(async () => (await engine.memory.graph.getNodeById(engine.scope, created.id))?.props.status === "archived", "the archived node");
		// Archived, not deleted.
		expect(await engine.memory.graph.getNodeById(engine.scope, created.id)).not.toBeNull();
	});

	test("an agent's writes keep their provenance through the plugin's vault (engrama_* keys via processFrontMatter)", async () => {
		const r = await start();
		const engine = await settled(r);
		const { vault } = r.app;
		const agent = { scope: engine.scope, source: "mcp" as const, agent: "claude-desktop", session: "s-1" };
		// What the plugin's MCP bridge does for an agent: a write through Memory, replicated into the vault.
		await engine.memory.remember(agent, { label: "Technology", key: "Valkey", props: { description: "A key-value store." } });
		await engine.memory.remember(agent, { label: "Technology", key: "PostgreSQL", props: { version: "17" } });
		await engine.sync.idle();
		const created = vault.getFileByPath("Engrama/Technology/Valkey.md")!;
		expect(await vault.read(created)).toMatch(/engrama_source: mcp\nengrama_agent: claude-desktop\nengrama_session: s-1\nengrama_trust: 0\.5/);
		expect((await engine.memory.get(engine.scope, "Technology", "Valkey"))?.props).toMatchObject({ source: "mcp", source_agent: "claude-desktop", trust_level: 0.5 });
		const mine = vault.getFileByPath("Technologies/PostgreSQL.md")!;
		expect(await vault.read(mine)).toMatch(/engrama_edited_by: claude-desktop/);
		expect((await engine.memory.get(engine.scope, "Technology", "PostgreSQL"))?.props).toMatchObject({ source: "sync", trust_level: 0.5, edited_by_agent: "claude-desktop" });
		// The person deletes the keys in Obsidian: they vouch, and the node becomes theirs.
		await vault.modify(created, (await vault.read(created)).replace(/^engrama_(source|agent|session|trust):.*\n/gm, ""));
		await waitFor(async () => (await engine.memory.get(engine.scope, "Technology", "Valkey"))?.props.trust_level === 1, "the vouched note");
		expect((await engine.memory.get(engine.scope, "Technology", "Valkey"))?.props.source).toBe("sync");
	});

	test("with auto-sync off, vault events are ignored until turned back on", async () => {
		const r = await start({ ...SETTINGS, sync: { ...SETTINGS.sync, autoSync: false } });
		const engine = await r.plugin.controller!.ready();
		expect(r.app.vault.listenerCount()).toBe(0);
		await r.app.vault.create("Ideas.md", "# Ideas\n\nSomething new.\n");
		await new Promise((resolve) => setTimeout(resolve, 150));
		expect(await engine.memory.graph.listNodes(engine.scope, { where: { obsidian_path: "Ideas.md" } })).toHaveLength(0);
		expect(await r.plugin.controller!.saveSettings((s) => (s.sync.autoSync = true))).toBeNull();
		expect(r.app.vault.listenerCount()).toBe(4);
		await r.app.vault.modify(r.app.vault.getFileByPath("Ideas.md")!, "# Ideas\n\nSomething newer.\n");
		await waitFor(async () => (await engine.memory.graph.listNodes(engine.scope, { where: { obsidian_path: "Ideas.md" } })).length === 1, "the note synced after turning auto-sync on");
	});
});

describe("unloading", () => {
	test("unload closes the database, stops listening and leaves no timers; the next load finds the same memory", async () => {
		const vault = makeVault({ settings: SETTINGS });
		const first = await start(SETTINGS, vault);
		const engine = await settled(first);
		const counts = await engine.memory.graph.counts(engine.scope);
		const lock = `${desktopDbPath(vault.path)}.lock`;
		expect(existsSync(lock)).toBe(true);

		first.plugin.unload();
		await first.plugin.closed;
		running.splice(running.indexOf(first), 1);
		expect(existsSync(lock)).toBe(false);
		expect(first.app.vault.listenerCount()).toBe(0);
		expect(first.app.workspace.listenerCount()).toBe(0);
		expect(h.fake.fakeActiveTimers()).toEqual({ timeouts: 0, intervals: 0 });
		expect(Object.keys(first.app.commands.commands)).toHaveLength(0);
		expect(first.app.statusBarEl.querySelector(".engrama-status")).toBeNull();

		// A new Obsidian session over the same vault: same file, same identity, same graph.
		const second = await start(SETTINGS, vault);
		const again = await settled(second);
		expect(again.scope).toEqual(engine.scope);
		expect(await again.memory.graph.counts(again.scope)).toEqual(counts);
	});

	test("notes waiting for sync at unload are in the database even when unload cancels a running sync, queued behind it or not", async () => {
		for (const queued of [false, true]) {
			const settings = { modules: ["teaching"], sync: { debounceMs: 60_000 } };
			const vault = makeVault({ settings });
			// The startup sync stops at its first note read: it is still running at unload.
			const hold = h.fake.fakeHoldReads();
			try {
				const app = h.fake.createFakeApp(vault.path);
				await app.vault.createFolder("Pending");
				const plugin = new h.Plugin(app, manifest());
				await plugin.fakeLoad();
				await app.workspace.fakeLayoutReady();
				const engine = await plugin.controller!.ready();
				await hold.waiting;
				expect(plugin.controller!.tasks.current?.title).toBe("Syncing the vault");
				for (let i = 1; i <= 5; i++) await app.vault.create(`Pending/Pending note ${i}.md`, "Written just before the reload.\n");
				if (queued) void engine.sync.flush();
				plugin.unload();
				hold.release();
				await plugin.closed;

				// No catch-up sync: what the closing instance wrote, only.
				const data = join(vault.path, PLUGIN_DIR, "data.json");
				writeFileSync(data, JSON.stringify({ ...(JSON.parse(readFileSync(data, "utf8")) as object), sync: { debounceMs: 60_000, autoSync: false } }));
				const next = await start(undefined, vault);
				const reopened = await next.plugin.controller!.ready();
				const missing: string[] = [];
				for (let i = 1; i <= 5; i++) if ((await reopened.memory.graph.findByKey(reopened.scope, `Pending note ${i}`)).length === 0) missing.push(`Pending note ${i}`);
				expect({ queued, missing }).toEqual({ queued, missing: [] });
				running.splice(running.indexOf(next), 1);
				next.plugin.unload();
				await next.plugin.closed;
			} finally {
				hold.release();
				vault.cleanup();
			}
		}
	}, 300_000);

	test("unloaded as the engine starts opening: once open it is closed, with no sync started on it and no listener left", async () => {
		const vault = makeVault({ settings: SETTINGS });
		try {
			const app = h.fake.createFakeApp(vault.path);
			const plugin = new h.Plugin(app, manifest());
			await plugin.fakeLoad();
			const controller = plugin.controller!;
			const unloaded: { closed?: Promise<void> } = {};
			controller.host.onChange(() => {
				if (controller.host.state.kind !== "starting" || unloaded.closed) return;
				plugin.unload();
				unloaded.closed = plugin.closed;
			});
			await app.workspace.fakeLayoutReady();
			await controller.start();
			expect(unloaded.closed).toBeDefined();
			await unloaded.closed;
			await controller.tasks.whenIdle();
			expect(app.vault.listenerCount()).toBe(0);
			expect(h.fake.fakeNotices.map((n) => n.text).filter((t) => !t.includes("settings were invalid"))).toEqual([]);
			expect(h.fake.fakeActiveTimers()).toEqual({ timeouts: 0, intervals: 0 });
		} finally {
			vault.cleanup();
		}
	});

	test("unloading while the engine is still opening leaves nothing open", async () => {
		const vault = makeVault({ settings: SETTINGS });
		const app = h.fake.createFakeApp(vault.path);
		const plugin = new h.Plugin(app, manifest());
		await plugin.fakeLoad();
		void app.workspace.fakeLayoutReady();
		plugin.unload();
		await plugin.closed;
		expect(existsSync(join(vault.path, PLUGIN_DIR, "engrama.db.lock"))).toBe(false);
		const id = (JSON.parse(readFileSync(join(vault.path, PLUGIN_DIR, "data.json"), "utf8")) as { vaultId?: string }).vaultId;
		if (id) expect(existsSync(join(TEST_HOME, ".engrama", "vaults", id, "engrama.db.lock"))).toBe(false);
		expect(h.fake.fakeActiveTimers()).toEqual({ timeouts: 0, intervals: 0 });
		vault.cleanup();
	});
});

/** An OpenAI-style embeddings server on a free port; `hold()` keeps answers back until released. */
async function embeddingServer() {
	let held: Promise<void> | null = null;
	let release = () => undefined as void;
	let waiting = () => undefined as void;
	let arrived: Promise<void> = Promise.resolve();
	const server = createServer((req: IncomingMessage, res: ServerResponse) => {
		let body = "";
		req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
		req.on("end", () => {
			void (async () => {
				waiting();
				if (held) await held;
				const input = (JSON.parse(body) as { input: string[] }).input;
				const data = input.map((text, index) => ({ index, embedding: [1, text.length % 7, (text.charCodeAt(0) || 1) % 5, 0.5] }));
				res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ data }));
			})();
		});
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const address = server.address();
	const port = typeof address === "object" && address ? address.port : 0;
	return {
		baseUrl: `http://127.0.0.1:${port}/v1`,
		/** Holds every answer from now on; resolves `arrived` when a request waits. */
		hold() {
			held = new Promise<void>((resolve) => (release = resolve));
			arrived = new Promise<void>((resolve) => (waiting = resolve));
		},
		get arrived() {
			return arrived;
		},
		release() {
			held = null;
			release();
		},
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

describe("restarts and cancelled tasks", () => {
	test("a settings restart cancels a running re-embed and waits for it before it closes the engine", async () => {
		const embedder = await embeddingServer();
		try {
			// Synced without vectors first, then the embedder is chosen: every node misses its vector.
			const r = await start({ ...SETTINGS, embedding: { provider: "none" } });
			await settled(r);
			const controller = r.plugin.controller!;
			expect(await controller.saveSettings((s) => (s.embedding = { ...s.embedding, provider: "openai", model: "m", baseUrl: embedder.baseUrl }), { apply: false })).toBeNull();
			await controller.restart();
			await settled(r);
			h.fake.fakeReset();

			embedder.hold();
			expect(r.app.commands.executeCommandById("engrama:reembed-missing")).toBe(true);
			await embedder.arrived;
			expect(controller.tasks.current?.title).toBe("Embedding missing vectors");
			const order: string[] = [];
			controller.tasks.onChange(() => {
				if (!controller.tasks.current && !order.includes("task ended")) order.push("task ended");
			});
			controller.host.onChange(() => order.push(`engine ${controller.host.state.kind}`));
			// What a backend or database change in settings does (after its debounce).
			const restarting = controller.restart();
			// Time for a restart that does not wait to close the engine under the task.
			await new Promise((resolve) => setTimeout(resolve, 500));
			embedder.release();
			await restarting;
			expect(order.indexOf("task ended")).toBeGreaterThanOrEqual(0);
			expect(order.indexOf("task ended")).toBeLessThan(order.indexOf("engine idle"));
			const texts = h.fake.fakeNotices.map((n) => n.text);
			expect(texts.filter((t) => /failed/i.test(t))).toEqual([]);
			expect(texts.some((t) => t.includes("Embedding missing vectors was cancelled."))).toBe(true);
			expect((await controller.ready()).embedderReady).toBe(true);
		} finally {
			embedder.release();
			await embedder.close();
		}
	}, 120_000);

	test("an agent's MCP write while a cancelled task unwinds at unload is stored and becomes a note: only the task's own calls are cancelled", async () => {
		const port = await freePort();
		const settings = { modules: ["teaching"], sync: { debounceMs: 60_000 }, mcp: { enabled: true, port } };
		const vault = makeVault({ settings });
		// The startup sync stops at its first note read: unload cancels it while it is held there.
		const hold = h.fake.fakeHoldReads();
		let client: Client | null = null;
		try {
			const app = h.fake.createFakeApp(vault.path);
			const plugin = new h.Plugin(app, manifest());
			await plugin.fakeLoad();
			await app.workspace.fakeLayoutReady();
			const controller = plugin.controller!;
			await controller.ready();
			await hold.waiting;
			await waitFor(() => controller.bridge.state.kind === "listening", "the MCP bridge");
			client = new Client({ name: "plugin-test", version: "1" });
			await client.connect(
				new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${controller.mcpToken()}` } } }),
			);

			plugin.unload();
			expect(controller.tasks.current?.title).toBe("Syncing the vault");
			const result = await client.callTool({
				name: "engrama_remember",
				arguments: { label: "Concept", properties: { name: "Backpressure", summary: "Slow consumers push back on fast producers." } },
			});
			expect({ isError: result.isError ?? false, content: result.isError ? result.content : null }).toEqual({ isError: false, content: null });
			hold.release();
			await plugin.closed;
			await client.close().catch(() => undefined);
			client = null;
			// Its note too: the graph → vault writer runs on the agents' lane, not the cancelled task's.
			expect(existsSync(join(vault.path, "Engrama/Concept/Backpressure.md"))).toBe(true);

			const data = join(vault.path, PLUGIN_DIR, "data.json");
			writeFileSync(data, JSON.stringify({ ...(JSON.parse(readFileSync(data, "utf8")) as object), sync: { debounceMs: 60_000, autoSync: false }, mcp: { enabled: false, port } }));
			const next = await start(undefined, vault);
			const reopened = await next.plugin.controller!.ready();
			expect(await reopened.memory.get(reopened.scope, "Concept", "Backpressure")).not.toBeNull();
			running.splice(running.indexOf(next), 1);
			next.plugin.unload();
			await next.plugin.closed;
		} finally {
			hold.release();
			await client?.close().catch(() => undefined);
			vault.cleanup();
		}
	}, 120_000);
});
