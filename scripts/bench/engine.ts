// Engine benchmark: MERGE throughput, single acknowledged write latency, fulltext and 2-hop
// neighbourhood latency, database size, at several graph sizes.
// Usage: npm run bench -- engine [--sizes 1000,10000,50000] [--backend sqlite|neo4j] [--json]
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bindNeo4jOptions } from "../../src/backends/neo4j/neo4j-backend";
import { Neo4jGraphStore } from "../../src/backends/neo4j/neo4j-graph-store";
import { fts5Query } from "../../src/backends/sqlite/fts-query";
import { BM25 } from "../../src/backends/sqlite/fulltext";
import { SqliteGraphStore } from "../../src/backends/sqlite/sqlite-graph-store";
import { configFromEnv, parseConfig } from "../../src/config/engrama-config";
import { createSkills } from "../../src/engine/skills";
import type { WriteContext } from "../../src/engine/write/write-pipeline";
import { openMemory } from "../../src/nodejs/open-memory";
import { arg } from "./args";
import { fmt, percentile, seededRandom, sentence } from "./stats";

const sizes = arg("sizes", "1000,10000,50000").split(",").map(Number);
const backend = arg("backend", "sqlite") as "sqlite" | "neo4j";
const json = process.argv.includes("--json");
const LABELS = ["Project", "Concept", "Technology", "Problem", "Decision", "Person"] as const;
const BATCH = 500;

interface Row {
	nodes: number;
	mergePerSec: number;
	writeP50: number;
	writeP95: number;
	writeCpuP50: number;
	writeCpuP95: number;
	ftsP50: number;
	ftsP95: number;
	ftsCpuP50: number;
	ftsCpuP95: number;
	/** SQLite: the share of queries whose top-20 scores equal those of ranking every match, and the top-20 score sum against it. */
	ftsExact?: number;
	ftsScoreRecall?: number;
	hopP50: number;
	hopP95: number;
	dbBytes: number;
}

async function measure(size: number): Promise<Row> {
	const dir = mkdtempSync(join(tmpdir(), "engrama-bench-"));
	const env = configFromEnv(process.env, { dbPath: join(dir, "bench.db") });
	const config = parseConfig({ ...env, backend, dbPath: join(dir, "bench.db"), orgId: "bench", userId: `run-${Date.now()}` });
	// Neo4j: a namespace of its own, dropped afterwards, so runs never pile up in a real memory.
	if (backend === "neo4j") bindNeo4jOptions(config, { namespace: `bench-${Date.now()}` });
	const opened = await openMemory(config);
	const { memory, scope } = opened;
	const ctx: WriteContext = { scope, source: "cli" };
	const rand = seededRandom(size);
	const keyOf = (i: number) => `${LABELS[i % LABELS.length]} ${i}`;

	// Bulk load in transactions of BATCH, through the real write pipeline.
	const loadStart = performance.now();
	for (let start = 0; start < size; start += BATCH) {
		await memory.write(() =>
			memory.pipeline.transaction(async () => {
				for (let i = start; i < Math.min(size, start + BATCH); i++) {
					await memory.pipeline.mergeEntity(ctx, {
						label: LABELS[i % LABELS.length],
						key: keyOf(i),
						props: { description: sentence(rand, 12), tags: [sentence(rand, 1)] },
					});
				}
			}),
		);
	}
	const loadMs = performance.now() - loadStart;

	// About two relations per node, between allowed label pairs.
	const pairs: [number, string, number][] = [];
	for (let i = 0; i < size; i++) {
		const label = LABELS[i % LABELS.length];
		if (label === "Project") {
			pairs.push([i, "USES", i + 2 < size ? i + 2 : 2], [i, "HAS", i + 3 < size ? i + 3 : 3]);
		} else if (label === "Problem") {
			pairs.push([i, "SOLVED_BY", i + 1 < size ? i + 1 : 4], [i, "APPLIES", i - 2 >= 0 ? i - 2 : 1]);
		} else if (label === "Concept") {
			pairs.push([i, "RELATED_TO", (i + 6 * (1 + Math.floor(rand() * 50))) % size - (((i + 6 * (1 + Math.floor(rand() * 50))) % size) % 6) + 1]);
		}
	}
	for (let start = 0; start < pairs.length; start += BATCH) {
		await memory.write(() =>
			memory.pipeline.transaction(async () => {
				for (const [from, type, to] of pairs.slice(start, start + BATCH)) {
					if (to < 0 || to >= size) continue;
					await memory.pipeline.mergeRelation(
						ctx,
						{ label: LABELS[from % LABELS.length], key: keyOf(from) },
						type,
						{ label: LABELS[to % LABELS.length], key: keyOf(to) },
					);
				}
			}),
		);
	}

	// Single acknowledged writes: each its own transaction, resolved only once durable.
	const writes: number[] = [];
	const writesCpu: number[] = [];
	for (let i = 0; i < 200; i++) {
		const c = process.cpuUsage();
		const t = performance.now();
		await memory.remember(ctx, { label: "Concept", key: `Single write ${i}`, props: { description: sentence(rand, 10) } });
		writes.push(performance.now() - t);
		const used = process.cpuUsage(c);
		writesCpu.push((used.user + used.system) / 1000);
	}

	// Wall time and this process's CPU time per query (wall is inflated on a busy machine).
	const fts: number[] = [];
	const ftsCpu: number[] = [];
	const ftsTexts: string[] = [];
	for (let i = 0; i < 200; i++) {
		const text = sentence(rand, 3);
		const c = process.cpuUsage();
		const t = performance.now();
		await memory.searchFulltext(scope, text, { limit: 20 });
		fts.push(performance.now() - t);
		const used = process.cpuUsage(c);
		ftsCpu.push((used.user + used.system) / 1000);
		ftsTexts.push(text);
	}
	// Ranking quality (untimed): the planner's top 20 (raw bm25) against scoring every match.
	let ftsExact: number | undefined;
	let ftsScoreRecall: number | undefined;
	if (memory.graph instanceof SqliteGraphStore) {
		const conn = memory.graph.connection();
		let exact = 0;
		let recall = 0;
		for (const text of ftsTexts) {
			const got = (await memory.graph.fulltext(scope, { text, limit: 20 })).map((h) => h.score);
			const match = fts5Query(text);
			const best = match ? conn.all<{ rank: number }>(`SELECT ${BM25} AS rank FROM nodes_fts WHERE nodes_fts MATCH ? ORDER BY rank LIMIT 20`, [match]).map((r) => -r.rank) : [];
			const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
			recall += best.length > 0 ? Math.min(1, sum(got) / sum(best)) : 1;
			if (got.length === best.length && got.every((s, i) => Math.abs(s - best[i]) < 1e-4)) exact++;
		}
		ftsExact = exact / ftsTexts.length;
		ftsScoreRecall = recall / ftsTexts.length;
	}

	const hops: number[] = [];
	const skills = createSkills(memory);
	for (let i = 0; i < 200; i++) {
		const n = Math.floor(rand() * (size / 6)) * 6; // Projects have the richest neighbourhoods
		const t = performance.now();
		await skills.context(scope, { label: "Project", name: keyOf(n) }, 2);
		hops.push(performance.now() - t);
	}

	if (memory.graph instanceof Neo4jGraphStore) await memory.graph.dropNamespace();
	await opened.close();
	const dbBytes = backend === "sqlite" ? statSync(join(dir, "bench.db")).size : 0;
	rmSync(dir, { recursive: true, force: true });
	return {
		nodes: size,
		mergePerSec: Math.round(size / (loadMs / 1000)),
		writeP50: percentile(writes, 50),
		writeP95: percentile(writes, 95),
		writeCpuP50: percentile(writesCpu, 50),
		writeCpuP95: percentile(writesCpu, 95),
		ftsP50: percentile(fts, 50),
		ftsP95: percentile(fts, 95),
		ftsCpuP50: percentile(ftsCpu, 50),
		ftsCpuP95: percentile(ftsCpu, 95),
		ftsExact,
		ftsScoreRecall,
		hopP50: percentile(hops, 50),
		hopP95: percentile(hops, 95),
		dbBytes,
	};
}

const rows: Row[] = [];
for (const size of sizes) {
	const row = await measure(size);
	rows.push(row);
	if (!json) {
		console.error(
			`${backend} ${size} nodes: merge ${row.mergePerSec}/s, write p50 ${fmt(row.writeP50)} p95 ${fmt(row.writeP95)} (CPU ${fmt(row.writeCpuP50)} / ${fmt(row.writeCpuP95)}), ` +
				`fulltext p50 ${fmt(row.ftsP50)} p95 ${fmt(row.ftsP95)} (CPU ${fmt(row.ftsCpuP50)} / ${fmt(row.ftsCpuP95)}; top 20 as exhaustive ${row.ftsExact?.toFixed(2) ?? "-"}, score recall ${row.ftsScoreRecall?.toFixed(4) ?? "-"}), 2-hop p50 ${fmt(row.hopP50)} p95 ${fmt(row.hopP95)}, ` +
				`${(row.dbBytes / 1e6).toFixed(1)} MB`,
		);
	}
}
const first = rows[0];
const last = rows[rows.length - 1];
const ratio = last.writeP50 / first.writeP50;
if (json) {
	console.log(JSON.stringify({ backend, rows, singleWriteRatio: ratio }, null, 2));
} else {
	console.log(`\n| backend | nodes | MERGE/s (batched) | write p50 | write p95 | fulltext p50 | fulltext p95 | fulltext CPU p50 / p95 | top 20 as exhaustive / score recall | 2-hop p50 | 2-hop p95 | DB size |`);
	console.log(`|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|`);
	for (const r of rows) {
		console.log(
			`| ${backend} | ${r.nodes} | ${r.mergePerSec} | ${fmt(r.writeP50)} | ${fmt(r.writeP95)} | ${fmt(r.ftsP50)} | ${fmt(r.ftsP95)} | ${fmt(r.ftsCpuP50)} / ${fmt(r.ftsCpuP95)} | ${r.ftsExact?.toFixed(2) ?? "-"} / ${r.ftsScoreRecall?.toFixed(4) ?? "-"} | ${fmt(r.hopP50)} | ${fmt(r.hopP95)} | ${(r.dbBytes / 1e6).toFixed(1)} MB |`,
		);
	}
	console.log(`\nsingle-write p50 ratio ${last.nodes}/${first.nodes} nodes: ${ratio.toFixed(2)} (target ≤ 1.5); CPU p50 ratio ${(last.writeCpuP50 / first.writeCpuP50).toFixed(2)}`);
}
