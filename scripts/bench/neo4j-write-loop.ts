// One acknowledged write on Neo4j, over a memory neo4j-scale.ts kept (--namespace NAME --keep):
// keyed Memory.remember calls with their hash embedding, as the scale bench's single writes, with
// each write's wall time, client CPU, the server's CPU (/proc, --server-pid) and its COMMIT's time.
// --vector-index OPTIONS makes the database's node vector index again with those indexConfig
// entries first (JSON, e.g. '{"vector.quantization.enabled":false}'; '{}' for Neo4j's defaults),
// so index settings can be compared A B A B on one memory. --no-digits takes the digits out of the
// descriptions (the bench's "bm25" lets every description through chrono's prefilter).
// Usage: npm run bench -- neo4j-write-loop --namespace NAME [--writes 100] [--server-pid PID]
//        [--vector-index JSON] [--no-digits] [--tag LABEL]

import { bindNeo4jOptions } from "../../src/backends/neo4j/neo4j-backend";
import { Neo4jGraphStore } from "../../src/backends/neo4j/neo4j-graph-store";
import { VECTOR_INDEX, vectorIndexDimensions } from "../../src/backends/neo4j/schema";
import { configFromEnv, parseConfig } from "../../src/config/engrama-config";
import { HashEmbeddingProvider } from "../../src/engine/embedding/hash-embedding-provider";
import { Memory } from "../../src/engine/memory";
import { openMemory } from "../../src/nodejs/open-memory";
import { arg } from "./args";
import { fmt, percentile, seededRandom, sentence } from "./stats";
import { loadAverage, ownCpuMs, processCpuMs } from "./proc-cpu";

const namespace = arg("namespace", "");
const writes = Number(arg("writes", "100"));
const serverPid = arg("server-pid", "");
const indexOptions = arg("vector-index", "");
const noDigits = process.argv.includes("--no-digits");
const tag = arg("tag", "");
if (!namespace) throw new Error("--namespace is required (the kept memory of a neo4j-scale run)");

const serverCpuMs = () => processCpuMs(serverPid);
const clientCpuMs = ownCpuMs;
const load = loadAverage;

const config = parseConfig({ ...configFromEnv(process.env, { dbPath: "/nonexistent" }), backend: "neo4j", orgId: "bench", userId: "scale", profile: "base" });
bindNeo4jOptions(config, { namespace });
const opened = await openMemory(config, { embedder: null });
const graph = opened.memory.graph;
if (!(graph instanceof Neo4jGraphStore)) throw new Error("not a Neo4j memory");
const memory = new Memory({ graph: opened.stores.graph, vectors: opened.stores.vectors, embedder: new HashEmbeddingProvider(384), profile: opened.memory.profile });
const scope = opened.scope;
const ctx = { scope, source: "cli" as const };

if (indexOptions) {
	const dims = await vectorIndexDimensions(graph.conn);
	const entries = Object.entries({ "vector.dimensions": dims, "vector.similarity_function": "cosine", ...(JSON.parse(indexOptions) as Record<string, unknown>) });
	const text = entries.map(([k, v]) => `\`${k}\`: ${typeof v === "string" ? `'${v}'` : String(v)}`).join(", ");
	const t0 = performance.now();
	const s0 = serverCpuMs();
	await graph.conn.schema(`DROP INDEX ${VECTOR_INDEX} IF EXISTS`);
	await graph.conn.schema(`CREATE VECTOR INDEX ${VECTOR_INDEX} FOR (n:Embedded) ON n.embedding OPTIONS {indexConfig: {${text}}}`);
	await graph.conn.schema(`CALL db.awaitIndex('${VECTOR_INDEX}', 3600)`);
	console.log(`vector index made again with {${text}}: ${((performance.now() - t0) / 1000).toFixed(1)} s, server CPU ${((serverCpuMs() - s0) / 1000).toFixed(1)} s`);
	// Its population's work after it is online (Lucene merges) would count in the writes.
	let before = serverCpuMs();
	for (let i = 0; i < 200 && serverPid; i++) {
		await new Promise((resolve) => setTimeout(resolve, 3_000));
		const now = serverCpuMs();
		if (now - before < 150) break;
		before = now;
	}
}

// A run's keys are its own (a new node each write), as the scale bench's single writes.
const stamp = Date.now().toString(36);
const rand = seededRandom(writes);
const wall: number[] = [];
const client: number[] = [];
const commits: number[] = [];
await memory.remember(ctx, { label: "Concept", key: `Loop warm-up ${stamp}`, props: { description: sentence(rand, 10) } });
const [s0, load0] = [serverCpuMs(), load()];
for (let i = 0; i < writes; i++) {
	let description = sentence(rand, 10);
	if (noDigits) description = description.replace(/\d/g, "x");
	graph.conn.trace = "full";
	graph.conn.resetCounts();
	const [c, t] = [clientCpuMs(), performance.now()];
	await memory.remember(ctx, { label: "Concept", key: `Loop write ${stamp} ${i}`, props: { description } });
	wall.push(performance.now() - t);
	client.push(clientCpuMs() - c);
	commits.push(...graph.conn.resetCounts().commitsMs);
}
graph.conn.trace = false;
const server = (serverCpuMs() - s0) / writes;
console.log(
	`${tag ? `${tag}: ` : ""}${writes} writes: p50 ${fmt(percentile(wall, 50))}, p95 ${fmt(percentile(wall, 95))}; COMMIT p50 ${fmt(percentile(commits, 50))}, p95 ${fmt(percentile(commits, 95))}; client CPU a write ${fmt(client.reduce((a, b) => a + b, 0) / writes)}; server CPU a write ${fmt(server)} (load ${load0} → ${load()})`,
);
await opened.close();
