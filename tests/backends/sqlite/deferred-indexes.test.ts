import { spawn } from "node:child_process";
import { cpSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createNodeBackend } from "../../../src/nodejs/node-backend";
import type { SqliteGraphStore } from "../../../src/backends/sqlite/sqlite-graph-store";
import { parseConfig, type SqliteEngine } from "../../../src/config/engrama-config";
import type { GraphStore, MergeNodeInput } from "../../../src/engine/protocols";
import { normaliseName, queryFragments } from "../../../src/engine/resolver/normalise";
import { openMemory } from "../../../src/nodejs/open-memory";
import { bundleForNode } from "../../helpers/bundle";
import { makeTempDir } from "../../helpers/temp-dir";
import { EXAMPLE_VAULT, SCOPE, openHarness } from "../../engine/sync/sync-fixture";

// A first sync leaves the new nodes' fulltext rows and name index to one pass after the load
// (mergeNodes with deferIndexes, then buildDeferredIndexes). What it builds must be what the
// per-batch path writes, and a load stopped in between must be finished when the file next opens.
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
	for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const NOW = "2026-03-01T00:00:00.000Z";
const ID = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
const PENDING = "SELECT value FROM engrama_meta WHERE key = 'indexes_pending_from'";

// Both Node engines: WASM (the plugin's) and native (the command line's), one SQL.
let engine: SqliteEngine = "wasm";

async function open(dbPath: string): Promise<GraphStore> {
	const { graph } = await createNodeBackend(parseConfig({ backend: "sqlite", sqliteEngine: engine, dbPath, orgId: SCOPE.orgId, userId: SCOPE.userId }));
	await graph.init();
	return graph;
}

function newStore(): { path: string; open: () => Promise<GraphStore> } {
	const temp = makeTempDir("engrama-deferred-");
	cleanups.push(() => temp.cleanup());
	const path = join(temp.path, "m.db");
	return {
		path,
		open: async () => {
			const graph = await open(path);
			cleanups.push(() => graph.close());
			return graph;
		},
	};
}

const inputs: MergeNodeInput[] = [
	{ label: "Technology", keyField: "name", key: "PostgreSQL", set: { name: "PostgreSQL", description: "The relational database", aliases: ["Postgres", "pg"] }, setOnCreate: { engrama_id: ID(1) }, now: NOW },
	{ label: "Concept", keyField: "name", key: "Write-ahead log", set: { name: "Write-ahead log", notes: "durable commits", tags: ["db", "wal"] }, setOnCreate: { engrama_id: ID(2) }, now: NOW },
	{ label: "Decision", keyField: "title", key: "Use SQLite in WASM", set: { title: "Use SQLite in WASM", rationale: "one file, no native addon" }, setOnCreate: { engrama_id: ID(3) }, now: NOW },
	{ label: "Person", keyField: "name", key: "Ana María Núñez", set: { name: "Ana María Núñez", role: "maintainer" }, setOnCreate: { engrama_id: ID(4) }, now: NOW },
	{ label: "Project", keyField: "name", key: "Engrama", set: { name: "Engrama", description: "graph memory" }, setOnCreate: { engrama_id: ID(5) }, now: NOW },
];

/** The fulltext rows and the name index, keyed by label and key (row ids may differ between files). */
function indexes(graph: GraphStore): unknown {
	const conn = (graph as SqliteGraphStore).connection();
	return {
		fts: conn.all("SELECT n.label, n.key_value, f.* FROM nodes_fts f JOIN nodes n ON n.id = f.rowid ORDER BY n.label, n.key_value"),
		names: conn.all("SELECT n.label, n.key_value, x.norm, x.len FROM node_names x JOIN nodes n ON n.id = x.node_id ORDER BY 1, 2, 3"),
		fragments: conn.all("SELECT n.label, n.key_value, x.fragment, x.len FROM node_name_fragments x JOIN nodes n ON n.id = x.node_id ORDER BY 1, 2, 3, 4"),
	};
}

async function candidates(graph: GraphStore, name: string): Promise<string[]> {
	const normalised = normaliseName(name);
	return (await graph.nameCandidates(SCOPE, { normalised, fragments: queryFragments(normalised), limit: 5 })).map((n) => n.key);
}

describe.each(["wasm", "native"] as const)("SQLite (%s): deferred fulltext and name index", (which) => {
	beforeEach(() => {
		engine = which;
	});

	it("builds, in slices, exactly what the per-batch write gives, after later writes to the same nodes", async () => {
		const reference = await newStore().open();
		const deferred = await newStore().open();
		await reference.mergeNodes?.(SCOPE, inputs);
		await deferred.mergeNodes?.(SCOPE, inputs, { deferIndexes: true });
		expect((deferred as SqliteGraphStore).connection().get(PENDING)).toBeDefined();
		expect(await deferred.fulltext(SCOPE, { text: "relational", limit: 5 })).toEqual([]);
		// Writes between the load and the build: they index their own node, the build leaves it be.
		for (const graph of [reference, deferred]) {
			await graph.mergeNode(SCOPE, { label: "Technology", keyField: "name", key: "PostgreSQL", set: { aliases: ["Postgres", "psql"] }, setOnCreate: {}, now: NOW });
			await graph.updateNode(SCOPE, ID(5), { description: "graph memory for agents" }, [], NOW);
		}
		let calls = 0;
		while (await deferred.buildDeferredIndexes?.(2)) calls++;
		expect(calls).toBe(2);
		expect((deferred as SqliteGraphStore).connection().get(PENDING)).toBeUndefined();
		expect(indexes(deferred)).toEqual(indexes(reference));
		expect((await deferred.fulltext(SCOPE, { text: "relational", limit: 5 })).map((h) => h.node.key)).toEqual(["PostgreSQL"]);
		expect(await candidates(deferred, "psql")).toContain("PostgreSQL");
		expect(await candidates(deferred, "Ana Maria Nunez")).toContain("Ana María Núñez");
		expect(await deferred.buildDeferredIndexes?.(2)).toBe(false);
	});

	it("finishes a load that stopped before its build when the file next opens", async () => {
		const reference = await newStore().open();
		await reference.mergeNodes?.(SCOPE, inputs);
		const store = newStore();
		const stopped = await open(store.path);
		await stopped.mergeNodes?.(SCOPE, inputs, { deferIndexes: true });
		// The process goes away here (the nodes are committed, their indexes not built).
		await stopped.close();
		const reopened = await store.open();
		expect((reopened as SqliteGraphStore).connection().get(PENDING)).toBeUndefined();
		expect(indexes(reopened)).toEqual(indexes(reference));
		expect((await reopened.fulltext(SCOPE, { text: "durable", limit: 5 })).map((h) => h.node.key)).toEqual(["Write-ahead log"]);
	});

	it("indexes, at the next open, what a process killed with SIGKILL after the load left unbuilt", async () => {
		const bundle = bundleForNode(join(__dirname, "..", "..", "fixtures", "processes", "deferred-loader.ts"));
		const dbPath = join(newStore().path);
		const child = spawn(process.execPath, [bundle, dbPath, "300", engine], { stdio: "pipe" });
		let stderr = "";
		child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
		await new Promise<void>((resolve, reject) => {
			child.stdout.setEncoding("utf8").on("data", (chunk: string) => chunk.includes("LOADED") && resolve());
			child.on("exit", () => reject(new Error(`the loader exited before loading: ${stderr}`)));
		});
		const exited = new Promise((resolve) => child.on("exit", resolve));
		child.kill("SIGKILL");
		await exited;
		// The killed process's lock is stale; opening takes it over and finishes the indexes.
		const opened = await openMemory(parseConfig({ backend: "sqlite", sqliteEngine: engine, dbPath }));
		cleanups.push(() => opened.close());
		const graph = opened.memory.graph;
		expect((graph as SqliteGraphStore).connection().get(PENDING)).toBeUndefined();
		const conn = (graph as SqliteGraphStore).connection();
		expect(conn.get("SELECT count(*) AS n FROM nodes_fts")).toEqual({ n: 300 });
		expect(conn.get("SELECT count(DISTINCT node_id) AS n FROM node_names")).toEqual({ n: 300 });
		expect((await graph.fulltext(opened.scope, { text: "bulk 299", limit: 1 })).map((h) => h.node.key)).toEqual(["Loaded concept 299"]);
		const normalised = normaliseName("Loaded concept 17");
		expect((await graph.nameCandidates(opened.scope, { normalised, fragments: queryFragments(normalised), limit: 1 })).map((n) => n.key)).toEqual(["Loaded concept 17"]);
	});

	it("a first sync of the example vault indexes the same rows as writing them batch by batch", async () => {
		const deferred = await openHarness({ from: EXAMPLE_VAULT, sqliteEngine: engine });
		cleanups.push(() => deferred.close());
		await deferred.sync.fullSync();
		expect((deferred.memory.graph as SqliteGraphStore).connection().get(PENDING)).toBeUndefined();
		// The same synced vault (ids written), into a store whose mergeNodes never defers.
		const temp = makeTempDir("engrama-deferred-sync-");
		cleanups.push(() => temp.cleanup());
		const vaultDir = join(temp.path, "vault");
		cpSync(deferred.vaultDir, vaultDir, { recursive: true, preserveTimestamps: true });
		let deferredNodes = 0;
		const again = await openHarness({
			from: deferred.vaultDir,
			sqliteEngine: engine,
			wrapGraph: (graph) =>
				new Proxy(graph, {
					get: (target, prop) =>
						prop === "mergeNodes"
							? (scope: never, list: readonly MergeNodeInput[], options?: { deferIndexes?: boolean }) => {
									if (options?.deferIndexes) deferredNodes += list.length;
									return target.mergeNodes?.(scope, list, options);
								}
							: (Reflect.get(target, prop) as unknown),
				}),
		});
		cleanups.push(() => again.close());
		const perBatch = await openHarness({
			vaultDir,
			sqliteEngine: engine,
			wrapGraph: (graph) =>
				new Proxy(graph, {
					get: (target, prop) =>
						prop === "mergeNodes" ? (scope: never, list: never) => target.mergeNodes?.(scope, list) : (Reflect.get(target, prop) as unknown),
				}),
		});
		cleanups.push(() => perBatch.close());
		const [a, b] = [await again.sync.fullSync(), await perBatch.sync.fullSync()];
		expect(a.counts).toEqual(b.counts);
		expect(deferredNodes).toBeGreaterThan(50);
		expect(indexes(again.graph)).toEqual(indexes(perBatch.graph));
		expect(indexes(deferred.graph)).toEqual(indexes(perBatch.graph));
	});
});
