// The Neo4j load alone, for before/after runs on one server: N nodes through the write pipeline's
// batch path with their search indexes deferred (as a first sync and neo4j-scale write them), the
// deferred build in pages, then the entity resolver's name-candidate read for typo'd names; each
// step's wall time, this process's CPU and the server's (/proc); the memory is dropped after.
// Needs a Neo4j (NEO4J_* env). Usage: npm run bench -- neo4j-load --nodes 10000 --server-pid P
//   [--batch 1000] [--page 4000] [--reads 200]

import { bindNeo4jOptions } from "../../src/backends/neo4j/neo4j-backend";
import { Neo4jGraphStore } from "../../src/backends/neo4j/neo4j-graph-store";
import { configFromEnv, parseConfig } from "../../src/config/engrama-config";
import { normaliseName, queryFragments } from "../../src/engine/resolver";
import type { EntityInput, WriteContext } from "../../src/engine/write/write-pipeline";
import { openMemory } from "../../src/nodejs/open-memory";
import { arg } from "./args";
import { fmt, percentile, seededRandom, sentence } from "./stats";
import { loadAverage, ownCpuMs, processCpuMs } from "./proc-cpu";

const nodes = Number(arg("nodes", "10000"));
const batch = Number(arg("batch", "1000"));
const page = Number(arg("page", String(batch * 4)));
const reads = Number(arg("reads", "200"));
const serverPid = arg("server-pid", "");
const LABELS = ["Project", "Concept", "Technology", "Problem", "Decision", "Person"] as const;

// In seconds here.
const serverCpu = () => processCpuMs(serverPid) / 1000;
const clientCpu = () => ownCpuMs() / 1000;
const loadavg = loadAverage;

async function step(name: string, fn: () => Promise<string>): Promise<void> {
	const [c0, s0, t0] = [clientCpu(), serverCpu(), performance.now()];
	const detail = await fn();
	const wall = (performance.now() - t0) / 1000;
	const server = serverCpu() - s0;
	console.log(`${name}: ${wall.toFixed(1)} s wall, client CPU ${(clientCpu() - c0).toFixed(1)} s, server CPU ${server.toFixed(1)} s (${((server * 1000) / nodes).toFixed(2)} ms a node); ${detail} (load ${loadavg()})`);
}

const dbPath = ":memory:";
const config = parseConfig({ ...configFromEnv(process.env, { dbPath }), backend: "neo4j", dbPath, orgId: "bench", userId: "load", profile: "base" });
bindNeo4jOptions(config, { namespace: `load-${nodes}-${Date.now()}`, retry: { maxElapsedMs: 120_000 } });
const opened = await openMemory(config, { embedder: null });
const memory = opened.memory;
const ctx: WriteContext = { scope: opened.scope, source: "cli" };
const rand = seededRandom(nodes);
const keyOf = (i: number) => `${LABELS[i % LABELS.length]} ${i} ${sentence(seededRandom(i + 1), 2)}`;

await step("load nodes", async () => {
	for (let start = 0; start < nodes; start += batch) {
		const inputs: EntityInput[] = [];
		for (let i = start; i < Math.min(nodes, start + batch); i++) {
			inputs.push({ label: LABELS[i % LABELS.length], key: keyOf(i), props: { description: sentence(rand, 12), tags: [sentence(rand, 1)] } });
		}
		await memory.write(() => memory.pipeline.mergeEntities(ctx, inputs, { deferIndexes: true }));
	}
	return `${nodes} nodes, ${batch} per transaction`;
});
await step("build search indexes", async () => {
	let pages = 0;
	while (await memory.write(() => memory.pipeline.buildDeferredIndexes(page))) pages++;
	return `pages of ${page} (${pages + 1})`;
});

// Typo'd names of loaded nodes, as an agent's remember looks them up.
const qrand = seededRandom(11);
const wall: number[] = [];
let found = 0;
await step("name candidates", async () => {
	for (let r = 0; r < reads; r++) {
		const key = keyOf(Math.floor(qrand() * nodes));
		const at = 1 + Math.floor(qrand() * (key.length - 2));
		const normalised = normaliseName(`${key.slice(0, at)}x${key.slice(at + 1)}`);
		const t = performance.now();
		const hits = await memory.graph.nameCandidates(opened.scope, { normalised, fragments: queryFragments(normalised), limit: 10 });
		wall.push(performance.now() - t);
		if (hits.some((n) => normaliseName(n.key) === normaliseName(key))) found++;
	}
	return `${reads} reads: p50 ${fmt(percentile(wall, 50))}, p95 ${fmt(percentile(wall, 95))}; the typo'd node among the 10 in ${found}`;
});

if (memory.graph instanceof Neo4jGraphStore) await memory.graph.dropNamespace();
await opened.close();
