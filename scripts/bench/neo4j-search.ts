// Search latency on SQLite and Neo4j over the same memory: built once on SQLite through the write
// pipeline (384-d hash vectors, ~2 relations per node, a hub every 50 nodes), copied to Neo4j with
// `engrama migrate`, then the same queries on both. Needs a Neo4j (NEO4J_* env, e.g. the test server).
// Usage: npm run bench -- neo4j-search [--sizes 1000,10000] [--queries 100] [--json]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBackend } from "../../src/backends/factory";
import { migrateMemory } from "../../src/backends/migration/memory-migration";
import { createNeo4jBackend } from "../../src/backends/neo4j/neo4j-backend";
import { configFromEnv, parseConfig } from "../../src/config/engrama-config";
import { HashEmbeddingProvider } from "../../src/engine/embedding/hash-embedding-provider";
import { Memory, type SearchOptions } from "../../src/engine/memory";
import type { GraphStore, VectorStore } from "../../src/engine/protocols";
import type { WriteContext } from "../../src/engine/write/write-pipeline";
import { loadProfileFromDisk } from "../../src/nodejs/profile-files";
import { arg } from "./args";
import { fmt, percentile, seededRandom, sentence } from "./stats";

const sizes = arg("sizes", "1000,10000").split(",").map(Number);
const queries = Number(arg("queries", "100"));
const LABELS = ["Project", "Concept", "Technology", "Problem", "Decision", "Person"] as const;
const MODES: Record<string, SearchOptions> = {
	fulltext: { channels: { vector: false }, graph: false },
	"rrf, no graph": { graph: false },
	"rrf + graph": { graph: true },
};
const profile = loadProfileFromDisk("base", []);
const embedder = new HashEmbeddingProvider(384);
const scope = { orgId: "bench", userId: "search" };

async function latencies(graph: GraphStore, vectors: VectorStore | null, texts: readonly string[]) {
	const memory = new Memory({ graph, vectors, embedder, profile });
	const out: Record<string, { p50: number; p95: number }> = {};
	for (const [mode, options] of Object.entries(MODES)) {
		await memory.search(scope, texts[0], options);
		const samples: number[] = [];
		for (const q of texts) {
			const t = performance.now();
			await memory.search(scope, q, { ...options, limit: 10 });
			samples.push(performance.now() - t);
		}
		out[mode] = { p50: percentile(samples, 50), p95: percentile(samples, 95) };
	}
	return out;
}

const rows: Record<string, unknown>[] = [];
for (const size of sizes) {
	const dir = mkdtempSync(join(tmpdir(), "engrama-neo4j-search-"));
	const base = parseConfig({ ...configFromEnv(process.env, { dbPath: join(dir, "bench.db") }), dbPath: join(dir, "bench.db") });
	const lite = await createBackend({ ...base, backend: "sqlite" });
	const memory = new Memory({ graph: lite.graph, vectors: lite.vectors, embedder, profile });
	const ctx: WriteContext = { scope, source: "cli" };
	const rand = seededRandom(size);
	const refs: { label: string; key: string }[] = [];
	const t0 = performance.now();
	for (let start = 0; start < size; start += 500) {
		await memory.pipeline.transaction(async () => {
			for (let i = start; i < Math.min(size, start + 500); i++) {
				const label = LABELS[i % LABELS.length];
				const key = `${label} ${i} ${sentence(rand, 2)}`;
				await memory.remember(ctx, { label, key, props: { description: sentence(rand, 12) } });
				refs.push({ label, key });
				for (let e = 0; e < 2 && i > 0; e++) await memory.relate(ctx, refs[i], "RELATED_TO", refs[Math.floor(rand() * i)]);
			}
		});
	}
	await memory.pipeline.transaction(async () => {
		for (let h = 0; h < size; h += 50) for (let e = 0; e < 100; e++) await memory.relate(ctx, refs[Math.floor(rand() * size)], "RELATED_TO", refs[h]);
	});
	const buildSeconds = (performance.now() - t0) / 1000;

	const neo = await createNeo4jBackend({ ...base, backend: "neo4j" }, { namespace: `bench-search-${Date.now()}` });
	const m0 = performance.now();
	const report = await migrateMemory(lite, neo);
	const migrateSeconds = (performance.now() - m0) / 1000;
	if (!report.verified) throw new Error(`migration did not verify: ${JSON.stringify(report.scopes)}`);

	const qrand = seededRandom(7);
	const texts = Array.from({ length: queries }, () => sentence(qrand, 3));
	rows.push({ backend: "sqlite", nodes: size, loadSeconds: +buildSeconds.toFixed(1), ...(await latencies(lite.graph, lite.vectors, texts)) });
	rows.push({ backend: "neo4j", nodes: size, loadSeconds: +migrateSeconds.toFixed(1), ...(await latencies(neo.graph, neo.vectors, texts)) });
	await neo.graph.dropNamespace();
	await neo.graph.close();
	await lite.graph.close();
	rmSync(dir, { recursive: true, force: true });
	process.stderr.write(`${size} nodes done (sqlite build ${buildSeconds.toFixed(1)} s, migrate to neo4j ${migrateSeconds.toFixed(1)} s)\n`);
}

if (process.argv.includes("--json")) {
	console.log(JSON.stringify(rows, null, 2));
} else {
	console.log(`\nSearch latency, ${queries} queries of 3 words, limit 10, 384-d hash vectors, same memory on both backends`);
	console.log(`| backend | nodes | load s | ${Object.keys(MODES).map((m) => `${m} p50 / p95`).join(" | ")} |`);
	console.log(`| --- | ---: | ---: | ${Object.keys(MODES).map(() => "---:").join(" | ")} |`);
	for (const row of rows) {
		const cells = Object.keys(MODES).map((m) => {
			const v = row[m] as { p50: number; p95: number };
			return `${fmt(v.p50)} / ${fmt(v.p95)}`;
		});
		console.log(`| ${String(row.backend)} | ${String(row.nodes)} | ${String(row.loadSeconds)} | ${cells.join(" | ")} |`);
	}
	console.log("\nload s: SQLite = building through the write pipeline; Neo4j = `engrama migrate` of that memory.");
}
