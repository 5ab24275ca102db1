// Scale benchmark: one memory of N nodes on Neo4j (and SQLite beside it), loaded through the write
// pipeline in batches, then: load rate, database size, search p50/p95 per mode, one acknowledged
// write, one note's re-sync, reflect, with the CPU of this process and of the Neo4j JVM per step.
// Needs a Neo4j (NEO4J_* env); scripts/bench/neo4j-scale-run.sh starts one sized for N.
// Usage: npm run bench -- neo4j-scale --nodes 100000 [--backend neo4j|sqlite] [--queries 100]
//        [--batch 1000] [--dims 384] [--data-dir DIR] [--server-pid PID] [--json] [--summary FILE]
//        [--profile-writes] (Neo4j: each single write's statements and COMMIT timed, and PROFILEd)
//        [--indexes-inline] (search indexes written in each node batch, not deferred to a pass after)
//        [--namespace NAME --keep] (Neo4j: the memory stays in the server, for neo4j-search-trace.ts)
//        [--no-settle] (Neo4j with --server-pid: search and write at once, while the server still works on the load)
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bindNeo4jOptions } from "../../src/backends/neo4j/neo4j-backend";
import { Neo4jGraphStore } from "../../src/backends/neo4j/neo4j-graph-store";
import { Neo4jVectorStore } from "../../src/backends/neo4j/neo4j-vector-store";
import { configFromEnv, parseConfig } from "../../src/config/engrama-config";
import { HashEmbeddingProvider } from "../../src/engine/embedding/hash-embedding-provider";
import { Memory, type SearchOptions } from "../../src/engine/memory";
import { nodeToText } from "../../src/engine/node-text";
import { reflect } from "../../src/engine/reflect";
import { VaultSync } from "../../src/engine/sync/vault-sync";
import type { EntityInput, RelationInput, WriteContext } from "../../src/engine/write/write-pipeline";
import { FolderVaultSource } from "../../src/nodejs/folder-vault-source";
import { openMemory } from "../../src/nodejs/open-memory";
import { arg } from "./args";
import { WriteProfiler } from "./neo4j-write-profile";
import { fmt, percentile, seededRandom, sentence } from "./stats";
import { loadAverage, processCpuMs } from "./proc-cpu";

const nodes = Number(arg("nodes", "100000"));
const backend = arg("backend", "neo4j") as "neo4j" | "sqlite";
const queries = Number(arg("queries", "100"));
const batch = Number(arg("batch", "1000"));
const dims = Number(arg("dims", "384"));
const dataDir = arg("data-dir", "");
const serverPid = arg("server-pid", "");
const json = process.argv.includes("--json");
// The summary as JSON in a file too (neo4j-scale-run.sh puts both backends side by side from them).
const summaryFile = arg("summary", "");
const LABELS = ["Project", "Concept", "Technology", "Problem", "Decision", "Person"] as const;
const MODES: Record<string, SearchOptions> = {
	fulltext: { channels: { vector: false }, graph: false },
	"rrf, no graph": { graph: false },
	"default (rrf + graph)": {},
};

/** CPU seconds of the Neo4j JVM so far (/proc), or NaN when its pid is unknown. */
function serverCpu(): number {
	return processCpuMs(serverPid) / 1000;
}

function clientCpu(): number {
	const u = process.cpuUsage();
	return (u.user + u.system) / 1e6;
}

interface Step {
	step: string;
	wallS: number;
	clientCpuS: number;
	serverCpuS: number;
	detail: string;
	load: string;
}
const steps: Step[] = [];

async function step<T>(name: string, fn: () => Promise<T>, detail: (value: T, seconds: number) => string): Promise<T> {
	const [c0, s0, t0] = [clientCpu(), serverCpu(), performance.now()];
	const value = await fn();
	const wallS = (performance.now() - t0) / 1000;
	const row = { step: name, wallS, clientCpuS: clientCpu() - c0, serverCpuS: serverCpu() - s0, detail: detail(value, wallS), load: loadAverage() };
	steps.push(row);
	process.stderr.write(`${backend} ${nodes}: ${name}: ${row.wallS.toFixed(1)} s wall, client CPU ${row.clientCpuS.toFixed(1)} s, server CPU ${row.serverCpuS.toFixed(1)} s; ${row.detail} (load ${row.load})\n`);
	return value;
}

/** Waits until the Neo4j JVM uses under 5 % of a core over 3 s (at most 15 min); the seconds it took. */
async function settleServer(): Promise<number> {
	const t0 = performance.now();
	let before = serverCpu();
	while (performance.now() - t0 < 900_000) {
		await new Promise((resolve) => setTimeout(resolve, 3_000));
		const now = serverCpu();
		if (now - before < 0.15) break;
		before = now;
	}
	return (performance.now() - t0) / 1000;
}

function dirBytes(dir: string): number {
	let total = 0;
	for (const entry of readdirSync(dir, { withFileTypes: true })) {
		const path = join(dir, entry.name);
		total += entry.isDirectory() ? dirBytes(path) : statSync(path).size;
	}
	return total;
}

const temp = mkdtempSync(join(tmpdir(), "engrama-scale-"));
const dbPath = join(temp, "scale.db");
const config = parseConfig({ ...configFromEnv(process.env, { dbPath }), backend, dbPath, orgId: "bench", userId: "scale", profile: "base" });
// A fixed namespace with --keep leaves the loaded memory for neo4j-search-trace.ts to reuse.
const namespace = arg("namespace", "") || `scale-${nodes}-${Date.now()}`;
if (backend === "neo4j") bindNeo4jOptions(config, { namespace, retry: { maxElapsedMs: 120_000 } });
const opened = await openMemory(config, { embedder: null });
const embedder = new HashEmbeddingProvider(dims);
// The loader writes without an embedder (vectors go in batches below); searches and single writes embed.
const memory = new Memory({ graph: opened.stores.graph, vectors: opened.stores.vectors, embedder, profile: opened.memory.profile });
const loader = opened.memory;
const scope = opened.scope;
const ctx: WriteContext = { scope, source: "cli" };
const rand = seededRandom(nodes);
const keyOf = (i: number) => `${LABELS[i % LABELS.length]} ${i} ${sentence(seededRandom(i + 1), 2)}`;

// 1. Nodes: the write pipeline's batch path (GraphStore.mergeNodes), `batch` per transaction, as a
// first sync writes them: search indexes deferred (deferIndexes), then built in pages (step 1b).
// --indexes-inline writes them in each batch instead.
const deferIndexes = !process.argv.includes("--indexes-inline");
const ids: string[] = new Array<string>(nodes);
await step(
	"load nodes",
	async () => {
		for (let start = 0; start < nodes; start += batch) {
			const inputs: EntityInput[] = [];
			for (let i = start; i < Math.min(nodes, start + batch); i++) {
				inputs.push({ label: LABELS[i % LABELS.length], key: keyOf(i), props: { description: sentence(rand, 12), tags: [sentence(rand, 1)] } });
			}
			const writes = await loader.write(() => loader.pipeline.mergeEntities(ctx, inputs, { deferIndexes }));
			writes.forEach((w, j) => (ids[start + j] = w.node.id));
		}
	},
	(_, s) => `${Math.round(nodes / s)} nodes/s (batched MERGE, ${batch} per transaction${deferIndexes ? ", search indexes deferred" : ""})`,
);
if (deferIndexes) {
	// Pages of 4 batches, as vault sync builds them (DEFERRED_INDEX_BATCHES).
	await step(
		"build search indexes",
		async () => {
			while (await loader.write(() => loader.pipeline.buildDeferredIndexes(batch * 4)));
		},
		(_, s) => `${Math.round(nodes / s)} nodes/s; with the load ${Math.round(nodes / (steps[steps.length - 1].wallS + s))} nodes/s`,
	);
}

// 2. Relations: two per node to earlier nodes, and a hub (100 more links) every 500 nodes.
const target = (i: number) => ({ id: ids[i], label: LABELS[i % LABELS.length], key: keyOf(i) });
const relations: RelationInput[] = [];
for (let i = 1; i < nodes; i++) for (let e = 0; e < 2; e++) relations.push({ from: target(i), type: "RELATED_TO", to: target(Math.floor(rand() * i)) });
for (let h = 0; h < nodes; h += 500) for (let e = 0; e < 100; e++) relations.push({ from: target(Math.floor(rand() * nodes)), type: "RELATED_TO", to: target(h) });
await step(
	"load relations",
	async () => {
		for (let start = 0; start < relations.length; start += batch * 2) {
			await loader.write(() => loader.pipeline.mergeRelations(ctx, relations.slice(start, start + batch * 2)));
		}
	},
	(_, s) => `${relations.length} relations, ${Math.round(relations.length / s)}/s`,
);

// 3. Vectors (hash embedder, `dims` dimensions), `batch` per statement on Neo4j.
const vectors = opened.memory.vectors;
await step(
	"load vectors",
	async () => {
		if (!vectors) return;
		for (let start = 0; start < nodes; start += batch) {
			const entries: [string, Float32Array][] = [];
			for (let i = start; i < Math.min(nodes, start + batch); i++) {
				entries.push([ids[i], await embedder.embed(nodeToText({ label: LABELS[i % LABELS.length], key: keyOf(i), props: {} }))]);
			}
			if (vectors instanceof Neo4jVectorStore) await vectors.upsertMany(scope, entries);
			else await loader.write(() => loader.pipeline.transaction(async () => { for (const [id, v] of entries) await loader.pipeline.upsertVector(scope, id, v); }));
		}
	},
	(_, s) => `${nodes} vectors of ${dims} dimensions, ${Math.round(nodes / s)}/s`,
);
// 3b. Neo4j goes on working after the last load commit: Lucene applies the eventually consistent
// fulltext updates and merges its segments (fulltext and vector indexes), and a checkpoint flushes
// pages. Searches and writes timed meanwhile time that work too (at 50k, quiet: 100 single writes
// cost the server 9.2 s of CPU unsettled against 4.1 s settled, 100 default searches 17.1 against
// 8.7 s), so the server settles first; the wait counts in the load, and its server CPU is shown.
// --no-settle times them at once.
if (serverPid && !process.argv.includes("--no-settle")) {
	await step("settle (the server's work after the load)", settleServer, (seconds) => `${seconds.toFixed(0)} s until the server used under 5 % of a core for 3 s`);
}
const loadS = steps.reduce((sum, s) => sum + s.wallS, 0);

// 4. Searches: three Zipf-ish words, limit 10, after one warm-up per mode.
const qrand = seededRandom(7);
const texts = Array.from({ length: queries }, () => sentence(qrand, 3));
const search: Record<string, { p50: number; p95: number; cpuP50: number }> = {};
for (const [mode, options] of Object.entries(MODES)) {
	await memory.search(scope, texts[0], options);
	await step(
		`search: ${mode}`,
		async () => {
			const wall: number[] = [];
			const cpu: number[] = [];
			for (const q of texts) {
				const [c, t] = [clientCpu(), performance.now()];
				await memory.search(scope, q, { ...options, limit: 10 });
				wall.push(performance.now() - t);
				cpu.push((clientCpu() - c) * 1000);
			}
			search[mode] = { p50: percentile(wall, 50), p95: percentile(wall, 95), cpuP50: percentile(cpu, 50) };
		},
		() => `p50 ${fmt(search[mode].p50)}, p95 ${fmt(search[mode].p95)} (client CPU p50 ${fmt(search[mode].cpuP50)})`,
	);
}

// 5. One acknowledged write (remember with its embedding), 100 times, one at a time.
const writes: number[] = [];
const graphStore = opened.memory.graph instanceof Neo4jGraphStore ? opened.memory.graph : undefined;
const profiler = process.argv.includes("--profile-writes") && graphStore ? new WriteProfiler(graphStore.conn) : undefined;
await step(
	"single writes",
	async () => {
		for (let i = 0; i < 100; i++) {
			profiler?.start();
			const t = performance.now();
			await memory.remember(ctx, { label: "Concept", key: `Single write ${i}`, props: { description: sentence(rand, 10) } });
			writes.push(performance.now() - t);
			profiler?.stop(writes[writes.length - 1]);
		}
	},
	() => `p50 ${fmt(percentile(writes, 50))}, p95 ${fmt(percentile(writes, 95))}`,
);
if (profiler) console.log(await profiler.report());

// 6. One note's re-sync: a vault note synced once (the note index loads), edited, synced again.
const vault = join(temp, "vault");
mkdirSync(vault, { recursive: true });
const note = (body: string) => `---\nengrama_label: Concept\ntags: [scale]\nrelations:\n  RELATED_TO: ["[[${keyOf(6)}]]"]\n---\n# Scale note\n\n${body}\n`;
writeFileSync(join(vault, "Scale note.md"), note("The first version of the note."));
// Only the note's own sync is timed: the graph's N other nodes are not exported as notes.
const sync = new VaultSync({ memory, source: new FolderVaultSource(vault), scope, settings: { writeGraphToVault: false } });
await step("sync: first sync of a one-note vault", () => sync.fullSync(), (r) => `${r.counts.nodesCreated} created; the note index loaded`);
writeFileSync(join(vault, "Scale note.md"), note("The second version, edited."));
await step("sync: one edited note", () => sync.syncPaths(["Scale note.md"]), (r) => `${r.counts.nodesUpdated} updated`);

// 7. Reflect over the whole memory.
await step("reflect", () => reflect(memory, ctx), (r) => `${r.insights.length} insights`);

// 8. Size on disk.
const bytes = backend === "sqlite" ? statSync(dbPath).size : dataDir ? dirBytes(dataDir) : Number.NaN;

if (opened.memory.graph instanceof Neo4jGraphStore && !process.argv.includes("--keep")) await opened.memory.graph.dropNamespace();
await opened.close();
rmSync(temp, { recursive: true, force: true });

const summary = { backend, nodes, relations: relations.length, dims, batch, loadS, bytes, search, writeP50: percentile(writes, 50), writeP95: percentile(writes, 95), steps };
if (summaryFile) writeFileSync(summaryFile, JSON.stringify(summary));
if (json) console.log(JSON.stringify(summary, null, 2));
else {
	console.log(`\n${backend}, ${nodes} nodes, ${relations.length} relations, ${dims}-d vectors: loaded in ${loadS.toFixed(0)} s, ${(bytes / 1e6).toFixed(0)} MB on disk`);
	console.log("| step | wall | client CPU | server CPU | result | load after |");
	console.log("|---|---:|---:|---:|---|---|");
	for (const s of steps) console.log(`| ${s.step} | ${s.wallS.toFixed(1)} s | ${s.clientCpuS.toFixed(1)} s | ${Number.isNaN(s.serverCpuS) ? "–" : `${s.serverCpuS.toFixed(1)} s`} | ${s.detail} | ${s.load} |`);
}
