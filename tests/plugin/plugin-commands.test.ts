// Every command of the built main.js, run the way Obsidian runs them (executeCommandById), modals included.
import { existsSync, readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, test, vi } from "vitest";
import { PLUGIN_DIR, TEST_HOME, loadPlugin, makeVault, manifest, vaultIdOf, waitFor, type LoadedPlugin, type PluginInstance, type VaultCopy } from "./harness";
import type { Engine } from "../../src/plugin/engine-host";
import { freePort } from "../helpers/free-port";

let h: LoadedPlugin;
let vault: VaultCopy;
let app: ReturnType<LoadedPlugin["fake"]["createFakeApp"]>;
let plugin: PluginInstance;
let port: number;

beforeAll(async () => {
	h = await loadPlugin();
	port = await freePort();
	// Auto-sync off: the first sync happens through the command, with its dry-run preview.
	vault = makeVault({ settings: { modules: ["teaching"], sync: { autoSync: false, debounceMs: 30 }, mcp: { port } } });
	app = h.fake.createFakeApp(vault.path);
	plugin = new h.Plugin(app, manifest());
	await plugin.fakeLoad();
	await app.workspace.fakeLayoutReady();
	await plugin.controller!.ready();
});

afterAll(async () => {
	plugin.unload();
	await plugin.closed;
	vault.cleanup();
});

beforeEach(() => h.fake.fakeReset());

function engine(): Engine {
	const e = plugin.controller!.host.engine;
	if (!e) throw new Error("engine not open");
	return e;
}

function run(id: string): void {
	expect(app.commands.executeCommandById(`engrama:${id}`)).toBe(true);
}

function notices(): string[] {
	return h.fake.fakeNotices.map((n) => n.text);
}

async function noticeMatching(pattern: RegExp, timeoutMs?: number): Promise<string> {
	return waitFor(() => notices().find((t) => pattern.test(t)), `a notice matching ${pattern}`, timeoutMs);
}

type FakeModal = InstanceType<LoadedPlugin["fake"]["Modal"]>;
type FakeSuggest = InstanceType<LoadedPlugin["fake"]["SuggestModal"]>;
interface SearchItem {
	readonly kind: string;
	readonly result?: { readonly name: string };
}

/** The modal opened last (modals close when one of their buttons is pressed). */
function latestModal(what: string): Promise<FakeModal> {
	return waitFor(() => h.fake.fakeOpenModals[h.fake.fakeOpenModals.length - 1], what);
}

function button(root: HTMLElement, text: string): HTMLButtonElement {
	const found = Array.from(root.querySelectorAll("button")).find((b) => b.textContent === text);
	if (!found) throw new Error(`No button "${text}" in ${root.textContent ?? ""}`);
	return found;
}

async function openNote(path: string): Promise<void> {
	const file = app.vault.getFileByPath(path);
	if (!file) throw new Error(`no note ${path}`);
	await app.workspace.getLeaf(false).openFile(file);
}

describe("command names", () => {
	test("no name repeats the plugin name: Obsidian shows each as \"Engrama: <name>\"", () => {
		const names = Object.values(app.commands.commands).map((c) => c.name);
		expect(names.length).toBeGreaterThan(10);
		expect(names.filter((n) => /engrama/i.test(n))).toEqual([]);
		expect(app.commands.commands["engrama:open-panel"]?.name).toBe("Open panel");
	});
});

describe("sync", () => {
	test("Sync vault to graph previews the changes, then applies them", async () => {
		expect((await engine().memory.graph.counts(engine().scope)).nodes).toBe(0);
		run("sync-vault");
		const preview = await latestModal("the sync preview");
		expect(preview.titleEl.textContent).toBe("Sync vault to graph");
		const text = preview.contentEl.textContent ?? "";
		expect(text).toMatch(/Create nodes\s*6\d/);
		expect(text).toContain("Write engrama_id into notes");
		// The dry run wrote nothing.
		expect((await engine().memory.graph.counts(engine().scope)).nodes).toBe(0);
		expect(readFileSync(join(vault.path, "Concepts/Idempotency.md"), "utf8")).not.toContain("engrama_id");

		button(preview.contentEl, "Apply").click();
		await noticeMatching(/synced: 6\d created/);
		const counts = await engine().memory.graph.counts(engine().scope);
		expect(counts.nodes).toBeGreaterThanOrEqual(60);
		expect(readFileSync(join(vault.path, "Concepts/Idempotency.md"), "utf8")).toContain("engrama_id");
		await waitFor(() => app.statusBarEl.textContent?.includes(`${counts.nodes} nodes`), "the node count in the status bar");
	});

	test("Sync current note picks up an edit made while auto-sync is off", async () => {
		const file = app.vault.getFileByPath("Concepts/CRDTs.md")!;
		const before = await app.vault.read(file);
		await app.vault.modify(file, before.replace(/^> .*$/m, "> Conflict-free replicated data types merge without coordination."));
		await openNote("Concepts/CRDTs.md");
		run("sync-current-note");
		await noticeMatching(/synced CRDTs/);
		const node = await engine().memory.get(engine().scope, "Concept", "CRDTs");
		expect(node?.props.description).toBe("Conflict-free replicated data types merge without coordination.");
		run("sync-current-note");
		await noticeMatching(/CRDTs is already up to date/);
	});
});

describe("search and context", () => {
	test("Search memory shows hybrid results with a score breakdown and opens the chosen note", async () => {
		run("search-memory");
		const modal = (await latestModal("the search modal")) as FakeSuggest;
		const items = (await modal.fakeType("idempotent webhook retries")) as SearchItem[];
		const names = items.filter((i: SearchItem) => i.kind === "result").map((i: SearchItem) => i.result?.name);
		expect(names).toContain("Duplicate charges on webhook retries");
		const row = modal.resultContainerEl.querySelector(".engrama-result")!;
		// A match percentage against the best result, explained on hover in words; no raw score.
		expect(row.getAttribute("title")).toMatch(/^Match \d+% of the best result of this search\.\nFound by words [\d.]+/);
		expect(row.querySelector(".engrama-result-pct")!.textContent).toMatch(/^\d+%$/);
		expect(modal.resultContainerEl.querySelector(".engrama-result-pct")!.textContent).toBe("100%");
		// The words-only hint is a plain sentence for a note-taker: no environment variables, no CLI, no "..".
		const hint = modal.resultContainerEl.querySelector(".engrama-hint")!.textContent ?? "";
		expect(hint).toBe("Search matches words only. To also find notes by meaning, choose an embedding provider in Settings → Engrama → Embeddings.");
		expect(modal.resultContainerEl.textContent).not.toMatch(/EMBEDDING_PROVIDER|engrama reindex|\.\./);
		const at = items.findIndex((i: SearchItem) => i.result?.name === "Duplicate charges on webhook retries");
		(modal.resultContainerEl.querySelectorAll(".suggestion-item")[at] as HTMLElement).click();
		await waitFor(() => app.workspace.getActiveFile()?.path === "Problems/Duplicate charges on webhook retries.md", "the chosen note opened");
	});

	test("Show graph context of the current note opens the panel on the note's node", async () => {
		await openNote("Projects/Billing Portal.md");
		run("show-context");
		const panel = await waitFor(() => app.workspace.getLeavesOfType("engrama-panel")[0], "the panel");
		await waitFor(() => panel.containerEl.querySelector(".engrama-node-name")?.textContent === "Billing Portal", "the context of Billing Portal");
		const text = panel.containerEl.textContent ?? "";
		expect(text).toContain("Uses");
		expect(text).not.toMatch(/USES|BELONGS_TO/);
		expect(text).toContain("TypeScript");
		expect(panel.containerEl.querySelectorAll("svg.engrama-graph .engrama-graph-node").length).toBeGreaterThan(3);
	});

	test("Add a relation from the current note writes it into the note's relations and the graph", async () => {
		await openNote("Projects/Billing Portal.md");
		run("add-relation");
		const modal = await latestModal("the relation modal");
		const select = modal.contentEl.querySelector("select")!;
		expect(Array.from(select.options).map((o) => o.value)).toContain("USES");
		select.value = "USES";
		select.dispatchEvent(new window.Event("change"));
		const input = modal.contentEl.querySelector<HTMLInputElement>("input.engrama-relation-target")!;
		input.value = "RabbitMQ";
		input.dispatchEvent(new window.Event("input"));
		const suggestion = await waitFor(() => modal.contentEl.querySelector<HTMLElement>(".engrama-suggestion"), "a resolver suggestion");
		expect(suggestion.textContent).toContain("RabbitMQ");
		suggestion.click();
		button(modal.contentEl, "Add relation").click();
		await noticeMatching(/added "uses RabbitMQ" to Billing Portal/);
		const text = readFileSync(join(vault.path, "Projects/Billing Portal.md"), "utf8");
		expect(text).toMatch(/USES:[\s\S]*\[\[RabbitMQ\]\]/);
		const portal = await engine().memory.get(engine().scope, "Project", "Billing Portal");
		const uses = await engine().memory.graph.edgesOf(engine().scope, portal!.id, "out", ["USES"]);
		expect(uses.map((e) => e.node.key)).toContain("RabbitMQ");
	});

	test("Open panel reveals the side panel", async () => {
		app.workspace.detachLeavesOfType("engrama-panel");
		await waitFor(() => app.workspace.getLeavesOfType("engrama-panel").length === 0, "the panel closed");
		run("open-panel");
		await waitFor(() => app.workspace.getLeavesOfType("engrama-panel").length === 1, "the panel open");
	});
});

describe("reflect and review", () => {
	test("Reflect now proposes Insights; approve and dismiss act on the Insight under review", async () => {
		run("reflect-now");
		await noticeMatching(/reflect proposed \d+ new Insights/);
		const { listInsights } = await import("../../src/engine/reflect");
		const pending = await listInsights(engine().memory, engine().scope, { status: "pending" });
		expect(pending.length).toBeGreaterThan(5);

		plugin.controller!.selectedInsight = pending[1].title;
		run("approve-insight");
		await noticeMatching(/approved "/);
		const approved = await listInsights(engine().memory, engine().scope, { status: "approved" });
		expect(approved.map((i) => i.title)).toEqual([pending[1].title]);

		run("dismiss-insight");
		const prompt = await latestModal("the reason prompt");
		const input = prompt.contentEl.querySelector("input")!;
		input.value = "Already handled";
		input.dispatchEvent(new window.Event("input"));
		button(prompt.contentEl, "Dismiss").click();
		await noticeMatching(/dismissed "/);
		const dismissed = await listInsights(engine().memory, engine().scope, { status: "dismissed" });
		expect(dismissed).toHaveLength(1);
		expect(dismissed[0].reason).toBe("Already handled");
		expect(dismissed[0].title).not.toBe(pending[1].title);
	});
});

describe("maintenance", () => {
	test("Run decay changes nothing any more and says how many nodes are old", async () => {
		run("run-decay");
		// Everything was synced moments ago: nothing is 90 days old.
		await noticeMatching(/no longer changes stored confidence.*half-life 30 days\)\. 0 of \d+ nodes not updated for 90 days/);
		expect(await plugin.controller!.saveSettings((s) => (s.decay.maxAgeDays = 0))).toBeNull();
		h.fake.fakeReset();
		run("run-decay");
		const text = await noticeMatching(/(\d+) of \d+ nodes not updated for 0 days/);
		const [, aged] = /(\d+) of \d+ nodes/.exec(text) ?? [];
		expect(Number(aged)).toBeGreaterThan(0);
	});

	test("Compact the memory database rewrites the file and says how big it is now; the memory reads the same", async () => {
		const e = engine();
		const before = await e.memory.graph.counts(e.scope);
		run("compact-memory");
		await noticeMatching(/Obsidian may pause/);
		const text = await noticeMatching(/compacted the memory file: [\d.]+ MB → [\d.]+ MB\./);
		const [, from, to] = /([\d.]+) MB → ([\d.]+) MB/.exec(text) ?? [];
		expect(Number(to)).toBeLessThanOrEqual(Number(from));
		expect(await engine().memory.graph.counts(engine().scope)).toEqual(before);
	});

	test("Re-embed missing vectors needs an embedder, then embeds every node", async () => {
		run("reembed-missing");
		await noticeMatching(/embeddings are off/);
		// A settings change reopens the engine without restarting Obsidian.
		expect(await plugin.controller!.saveSettings((s) => (s.embedding.provider = "hash"))).toBeNull();
		await waitFor(() => plugin.controller!.host.engine?.embedder !== null && plugin.controller!.host.engine !== null, "the engine reopened with the hash embedder");
		run("reembed-missing");
		await noticeMatching(/embedded \d+ nodes/);
		const e = engine();
		const nodes = (await e.memory.graph.counts(e.scope)).nodes;
		expect(await e.memory.vectors!.count(e.scope)).toBeGreaterThanOrEqual(nodes - 10);
		run("reembed-missing");
		await noticeMatching(/every node already has a vector/);
	});

	test("Re-embed missing vectors says how long is left once the rate is known", async () => {
		// The previous test left every node embedded by the hash embedder: another model's name on
		// the vectors makes every node and passage due again, as after changing the model.
		const e = engine();
		await e.memory.write(() => e.memory.pipeline.setMeta("embedding_model", "hash:an-earlier-model"));
		await plugin.controller!.tasks.whenIdle();
		const details: string[] = [];
		// A clock 20 s further at each reading stands in for a long embed of a large vault (the
		// estimate waits for 10 s of work); restored before anything else reads it.
		const realNow = Date.now.bind(Date);
		let skew = 0;
		const clock = vi.spyOn(Date, "now").mockImplementation(() => realNow() + (skew += 20_000));
		const finished = new Promise<void>((resolve) => {
			const off = plugin.controller!.tasks.onChange(() => {
				const task = plugin.controller!.tasks.current;
				if (task?.title === "Embedding missing vectors") details.push(task.detail);
				else if (!task && details.length > 0) {
					off();
					resolve();
				}
			});
		});
		try {
			run("reembed-missing");
			await finished;
		} finally {
			clock.mockRestore();
		}
		await noticeMatching(/embedded [\d,]+ nodes/);
		expect(details.some((d) => /^[\d,]+ \/ [\d,]+$/.test(d)), details.join(" | ")).toBe(true);
		expect(details.some((d) => /^[\d,]+ \/ [\d,]+ · (about \d+ min|less than a minute) left$/.test(d)), details.join(" | ")).toBe(true);
	});

	test("Rebuild the graph from the vault empties it and rebuilds the same nodes", async () => {
		const e = engine();
		const before = await e.memory.graph.counts(e.scope);
		const labelsBefore = await e.memory.graph.labelCounts(e.scope);
		const portal = await e.memory.get(e.scope, "Project", "Billing Portal");
		run("rebuild-graph");
		const confirmModal = await latestModal("the confirmation");
		expect(confirmModal.contentEl.textContent).toContain(`${before.nodes} nodes`);
		button(confirmModal.contentEl, "Rebuild").click();
		await noticeMatching(/synced: \d+ created/);
		// Every node documented by a note (and every stub) comes back; Insight reviews do not (the modal said so).
		expect(await e.memory.graph.labelCounts(e.scope)).toEqual(labelsBefore);
		// Identity lives in the notes: the same engrama_id comes back.
		expect((await e.memory.get(e.scope, "Project", "Billing Portal"))?.id).toBe(portal?.id);
	});
});

describe("copy memory to Neo4j", () => {
	test("an unreachable Neo4j is named at once and nothing is copied", async () => {
		expect(await plugin.controller!.saveSettings((s) => (s.neo4j.uri = "bolt://127.0.0.1:1"), { apply: false })).toBeNull();
		run("copy-memory-to-neo4j");
		const text = await noticeMatching(/Neo4j did not answer/);
		expect(text).toContain("127.0.0.1:1");
		expect(h.fake.fakeOpenModals).toHaveLength(0);
	});

	const realServer = process.env.NEO4J_URI;
	test.runIf(!!realServer && (process.env.ENGRAMA_TEST_BACKENDS ?? "").includes("neo4j"))(
		"copies the memory into the real test server with progress and a verified count, then replaces it on a second run",
		async () => {
			expect(await plugin.controller!.saveSettings((s) => (s.neo4j.uri = realServer!), { apply: false })).toBeNull();
			const e = engine();
			const here = await e.memory.graph.counts(e.scope);
			run("copy-memory-to-neo4j");
			const first = await latestModal("the confirmation");
			expect(first.contentEl.textContent).toContain("The SQLite file is not changed");
			button(first.contentEl, "Copy").click();
			const done = await noticeMatching(/copied [\d,]+ nodes and [\d,]+ relations to Neo4j and verified them/, 120_000);
			expect(done).toContain(`copied ${here.nodes.toLocaleString("en-US")} nodes`);
			// A second copy finds the first one and offers to replace it.
			h.fake.fakeReset();
			run("copy-memory-to-neo4j");
			const second = await latestModal("the replace confirmation");
			expect(second.contentEl.textContent).toContain(`already holds ${here.nodes.toLocaleString("en-US")} nodes`);
			button(second.contentEl, "Replace and copy").click();
			await noticeMatching(/verified them/, 120_000);
			// The copy is read back through a backend of its own, in this memory's scope.
			const { createNeo4jBackend } = await import("../../src/backends/neo4j/neo4j-backend");
			const target = await createNeo4jBackend({ ...e.config, backend: "neo4j", neo4j: { ...e.config.neo4j, uri: realServer! } });
			try {
				expect(await target.graph.counts(e.scope)).toEqual(here);
				await target.graph.forgetScope(e.scope);
			} finally {
				await target.graph.close();
			}
		},
		300_000,
	);
});

describe("MCP bridge", () => {
	const post = (token: string | null) =>
		fetch(`http://127.0.0.1:${port}/mcp`, {
			method: "POST",
			headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...(token ? { authorization: `Bearer ${token}` } : {}) },
			body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "test", version: "1" } } }),
		});

	test("start, copy configuration, regenerate the token, stop", async () => {
		run("start-mcp-bridge");
		await noticeMatching(/the MCP bridge is listening on http:\/\/127\.0\.0\.1:\d+\/mcp/);
		expect(app.statusBarEl.textContent).toContain(`MCP :${port}`);
		const token = plugin.controller!.mcpToken();
		expect(token.length).toBeGreaterThanOrEqual(40);
		expect((await post(null)).status).toBe(401);
		expect((await post(token)).status).toBe(200);

		run("copy-mcp-config");
		await noticeMatching(/copied the MCP client configuration/);
		expect(h.fake.fakeClipboard.text).toContain(`"Authorization": "Bearer ${token}"`);
		expect(h.fake.fakeClipboard.text).toContain("mcp-proxy");
		// The stdio proxy's token file is outside the vault (sync tools never copy it).
		const tokenFile = join(TEST_HOME, ".engrama", "vaults", vaultIdOf(vault.path), "mcp-token");
		expect(h.fake.fakeClipboard.text).toContain(tokenFile);
		expect(readFileSync(tokenFile, "utf8").trim()).toBe(token);
		expect(existsSync(join(vault.path, PLUGIN_DIR, "mcp-token"))).toBe(false);

		run("regenerate-mcp-token");
		const confirmModal = await latestModal("the confirmation");
		button(confirmModal.contentEl, "Regenerate").click();
		await noticeMatching(/a new MCP token is in place/);
		const fresh = plugin.controller!.mcpToken();
		expect(fresh).not.toBe(token);
		// The token lives in Obsidian's keychain, never in data.json.
		expect(app.secretStorage.getSecret("engrama-mcp-token")).toBe(fresh);
		expect(readFileSync(join(vault.path, PLUGIN_DIR, "data.json"), "utf8")).not.toContain(fresh);
		expect((await post(token)).status).toBe(401);
		expect((await post(fresh)).status).toBe(200);

		// An agent's memory over MCP reaches the same graph and is written into the vault as a note.
		const client = new Client({ name: "plugin-test", version: "1" });
		await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${fresh}` } } }));
		const result = await client.callTool({
			name: "engrama_remember",
			arguments: { label: "Concept", properties: { name: "Backpressure", summary: "Slow consumers push back on fast producers." }, relations: { RELATED_TO: ["Idempotency"] } },
		});
		expect(result.isError).toBeFalsy();
		await waitFor(() => existsSync(join(vault.path, "Engrama/Concept/Backpressure.md")), "the agent's memory written as a note");
		// The note now documents the node: a rebuild from the vault would bring it back.
		await waitFor(async () => (await engine().memory.get(engine().scope, "Concept", "Backpressure"))?.props.obsidian_path === "Engrama/Concept/Backpressure.md", "the node linked to its note");
		expect(readFileSync(join(vault.path, "Engrama/Concept/Backpressure.md"), "utf8")).toContain("Slow consumers push back on fast producers.");
		await client.close();

		expect(app.commands.isAvailable("engrama:start-mcp-bridge")).toBe(false);
		run("stop-mcp-bridge");
		await noticeMatching(/the MCP bridge is stopped/);
		await expect(post(fresh)).rejects.toThrow();
		expect(app.statusBarEl.textContent).toContain("MCP off");
	});

	test("unloading the plugin closes a running bridge", async () => {
		const other = makeVault({ settings: { modules: ["teaching"], sync: { autoSync: false }, mcp: { enabled: true, port: await freePort() } } });
		const otherApp = h.fake.createFakeApp(other.path);
		const otherPlugin = new h.Plugin(otherApp, manifest());
		await otherPlugin.fakeLoad();
		await otherApp.workspace.fakeLayoutReady();
		await otherPlugin.controller!.ready();
		const state = await waitFor(() => (otherPlugin.controller!.bridge.state.kind === "listening" ? otherPlugin.controller!.bridge.state : null), "the bridge");
		const url = "url" in state ? state.url : "";
		expect((await fetch(url, { method: "POST" })).status).toBe(401);
		otherPlugin.unload();
		await otherPlugin.closed;
		await expect(fetch(url, { method: "POST" })).rejects.toThrow();
		other.cleanup();
	});
});
