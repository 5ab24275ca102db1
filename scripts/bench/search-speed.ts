// Hybrid search latency at several graph sizes (384-d vectors), with and without the graph rerank.
// Nodes hold 2 + 12 words of Zipf-distributed text; each links to 2 earlier nodes and every 50th
// node is a hub with 100 more links.
// Usage: npm run bench -- search-speed [--sizes 1000,10000,50000] [--queries 100] [--json]
//   [--reuse DIR]: keep each size's file as DIR/search-<size>.db and, when it is there, search a
//   copy of it instead of loading again (interleaved before/after runs on the same data).
//   [--answers FILE]: write every query's Memory.search answer (ids and scores) to FILE, to check
//   that a change to the search's speed left its results alone.
//   [--profile]: also print where a default search's time goes, channel by channel (search-profile.ts),
//   with warm read caches and with caches emptied before each search (as after a write).
//   [--spanish]: the hash vectors under an English-only model's name (all-MiniLM-L6-v2) and every
//   query in Spanish (its words + "de las"): the vector channel weighs foreignVectorShare. A file
//   kept by --reuse must have been made with the same flag (the model's name is stored with it).
//   [--search-settings JSON]: settings over the engine's for the engine's columns (not Memory.search),
//   e.g. '{"foreignVectorShare":5e-324}': the vector channel is asked but each of its terms rounds
//   to 0, so the results are the skipped channel's and only the work differs.
//   [--engine-answers FILE]: the same as --answers for the engine's default search (with --search-settings).
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseConfig, type SqliteEngine } from "../../src/config/engrama-config";
import { HashEmbeddingProvider } from "../../src/engine/embedding/hash-embedding-provider";
import { queryLanguage } from "../../src/engine/embedding/text-language";
import type { SearchOptions } from "../../src/engine/memory";
import type { EmbedderHealth, EmbeddingProvider } from "../../src/engine/protocols";
import { HybridSearch, type SearchSettings } from "../../src/engine/search/hybrid-search";
import type { VectorStore } from "../../src/engine/protocols";
import type { WriteContext } from "../../src/engine/write/write-pipeline";
import { openMemory } from "../../src/nodejs/open-memory";
import { arg } from "./args";
import { profileSearch } from "./search-profile";
import { fmt, percentile, seededRandom } from "./stats";

const sizes = arg("sizes", "1000,10000,50000").split(",").map(Number);
const queries = Number(arg("queries", "100"));
const reuse = arg("reuse", "");
const answersFile = arg("answers", "");
const spanish = process.argv.includes("--spanish");
const searchSettings = JSON.parse(arg("search-settings", "{}")) as Partial<SearchSettings>;
const engineAnswersFile = arg("engine-answers", "");
const LABELS = ["Project", "Concept", "Technology", "Problem", "Decision", "Person"] as const;
const MODES: Record<string, SearchOptions> = {
	fulltext: { channels: { vector: false }, graph: false },
	"rrf, no graph": { graph: false },
	"rrf + graph": { graph: true },
	"linear + graph": { fusion: "linear", graph: true },
};

/**
 * Text with a natural word-frequency curve: 8,000 pronounceable pseudo-words drawn by Zipf's law
 * (s = 1.1), so queries mix a few common words with rarer ones, as real queries do.
 */
function zipfText(seed: number): (words: number) => string {
	const rand = seededRandom(seed);
	const syllables = "ka lo mi nu pe ra si to va ze bri cho dra fle gru klo pla stri tve xan".split(" ");
	const vocabulary = Array.from({ length: 8000 }, (_, i) => {
		let w = "";
		for (let n = i + 1; n > 0; n = Math.floor(n / syllables.length)) w += syllables[n % syllables.length];
		return w;
	});
	const weights = vocabulary.map((_, i) => 1 / (i + 1) ** 1.1);
	const total = weights.reduce((a, b) => a + b, 0);
	const cumulative: number[] = [];
	weights.reduce((acc, w, i) => (cumulative[i] = acc + w / total), 0);
	const pick = () => {
		const r = rand();
		let lo = 0;
		let hi = cumulative.length - 1;
		while (lo < hi) {
			const mid = (lo + hi) >> 1;
			if (cumulative[mid] < r) lo = mid + 1;
			else hi = mid;
		}
		return vocabulary[lo];
	};
	return (words) => Array.from({ length: words }, pick).join(" ");
}

/** The hash embedder under the name of an English-only model (--spanish). */
class EnglishOnlyHashEmbedder implements EmbeddingProvider {
	readonly name = "local";
	readonly model = "Xenova/all-MiniLM-L6-v2";
	private readonly hash = new HashEmbeddingProvider(384);
	readonly dimensions = this.hash.dimensions;
	embed(text: string): Promise<Float32Array> {
		return this.hash.embed(text);
	}
	embedBatch(texts: readonly string[]): Promise<Float32Array[]> {
		return this.hash.embedBatch(texts);
	}
	health(): Promise<EmbedderHealth> {
		return this.hash.health();
	}
}

/** `count` queries of 3 words; with --spanish each ends "de las" and is one queryLanguage calls another language. */
function queryTexts(words: (n: number) => string, count: number): string[] {
	const out: string[] = [];
	while (out.length < count) {
		const q = spanish ? `${words(3)} de las` : words(3);
		if (!spanish || queryLanguage(q) === "other") out.push(q);
	}
	return out;
}

/** CPU time (user + system) of this process since `start`, in ms: the wall time minus waiting. */
function cpuMs(start: NodeJS.CpuUsage): number {
	const d = process.cpuUsage(start);
	return (d.user + d.system) / 1000;
}

const rows: Record<string, unknown>[] = [];
for (const size of sizes) {
	const dir = mkdtempSync(join(tmpdir(), "engrama-search-bench-"));
	const kept = reuse ? join(reuse, `search-${size}.db`) : "";
	const reused = kept !== "" && existsSync(kept);
	if (reused) copyFileSync(kept, join(dir, "bench.db"));
	const config = parseConfig({ backend: "sqlite", sqliteEngine: (process.env.ENGRAMA_SQLITE_ENGINE || "auto") as SqliteEngine, dbPath: process.env.BENCH_MEMORY ? ":memory:" : join(dir, "bench.db"), orgId: "bench", userId: "search" });
	const embedder = spanish ? new EnglishOnlyHashEmbedder() : new HashEmbeddingProvider(384);
	const opened = await openMemory(config, { embedder });
	const { memory, scope } = opened;
	const ctx: WriteContext = { scope, source: "cli" };
	const rand = seededRandom(size);
	const text = zipfText(size);
	const t0 = performance.now();
	const refs: { label: string; key: string }[] = [];
	for (let start = 0; start < (reused ? 0 : size); start += 500) {
		await memory.pipeline.transaction(async () => {
			for (let i = start; i < Math.min(size, start + 500); i++) {
				const label = LABELS[i % LABELS.length];
				const key = `${label} ${i} ${text(2)}`;
				await memory.remember(ctx, { label, key, props: { description: text(12) } });
				refs.push({ label, key });
				// Two links to earlier nodes, and every 50th node is a hub linked from 100 more.
				for (let e = 0; e < 2 && i > 0; e++) await memory.relate(ctx, refs[i], "RELATED_TO", refs[Math.floor(rand() * i)]);
			}
		});
	}
	if (!reused) await memory.pipeline.transaction(async () => {
		for (let h = 0; h < size; h += 50) for (let e = 0; e < 100; e++) await memory.relate(ctx, refs[Math.floor(rand() * size)], "RELATED_TO", refs[h]);
	});
	const loadMs = performance.now() - t0;
	const query = zipfText(7);
	const texts = queryTexts(query, queries);
	const searcher = new HybridSearch({ graph: memory.graph, vectors: memory.vectors, embedder, clock: memory.clock, settings: { ...memory.searcher.settings, ...searchSettings } });
	const row: Record<string, unknown> = { nodes: size, loadSeconds: +(loadMs / 1000).toFixed(1) };
	// The hybrid engine itself; Memory.search adds the proactive hint (its own fulltext queries).
	for (const [mode, options] of Object.entries(MODES)) {
		await searcher.search(scope, texts[0], options);
		const samples: number[] = [];
		const c0 = process.cpuUsage();
		for (const q of texts) {
			const s0 = performance.now();
			await searcher.search(scope, q, { ...options, limit: 10 });
			samples.push(performance.now() - s0);
		}
		row[mode] = { p50: percentile(samples, 50), p95: percentile(samples, 95), cpu: cpuMs(c0) / texts.length };
	}
	// The quantised vector channel against the exact float scan (SQLite stores that have both).
	const exact = (memory.vectors as { knnFloat?: VectorStore["knn"] } | null)?.knnFloat?.bind(memory.vectors);
	if (memory.vectors && exact) {
		let overlap = 0;
		for (const q of texts) {
			const v = await embedder.embed(q);
			const truth = (await exact(scope, v, 10)).map((h) => h.nodeId);
			const got = new Set((await memory.vectors.knn(scope, v, 10)).map((h) => h.nodeId));
			overlap += truth.filter((id) => got.has(id)).length / Math.max(1, truth.length);
		}
		row.vectorOverlap = overlap / texts.length;
	}
	if (engineAnswersFile) {
		const lines: string[] = [];
		for (const q of texts) lines.push(`${q}\t${(await searcher.search(scope, q, { limit: 10 })).hits.map((h) => `${h.node.id}:${h.score}`).join(" ")}`);
		writeFileSync(engineAnswersFile.replace("{size}", String(size)), `${lines.join("\n")}\n`);
	}
	const full: number[] = [];
	const answers: string[] = [];
	const c0 = process.cpuUsage();
	for (const q of texts) {
		const s0 = performance.now();
		const view = await memory.search(scope, q, { limit: 10 });
		full.push(performance.now() - s0);
		answers.push(`${q}\t${view.results.map((r) => `${r.node_id}:${r.score}`).join(" ")}`);
	}
	if (answersFile) writeFileSync(answersFile.replace("{size}", String(size)), `${answers.join("\n")}\n`);
	row["Memory.search"] = { p50: percentile(full, 50), p95: percentile(full, 95), cpu: cpuMs(c0) / texts.length };
	if (process.argv.includes("--profile")) {
		row.profile = `${await profileSearch(memory, embedder, scope, texts)}\n\nThe same searches, each after the store's read caches were emptied (as a write empties them):\n${await profileSearch(memory, embedder, scope, texts, true)}`;
	}
	rows.push(row);
	await opened.close();
	if (kept !== "" && !reused) copyFileSync(join(dir, "bench.db"), kept);
	rmSync(dir, { recursive: true, force: true });
	process.stderr.write(`${size} nodes done (load ${(loadMs / 1000).toFixed(1)} s)\n`);
}

if (process.argv.includes("--json")) {
	console.log(JSON.stringify(rows, null, 2));
} else {
	const how = `${spanish ? ", in Spanish (+ \"de las\") against an English-only model's name" : ""}${arg("search-settings", "") ? `, engine settings ${arg("search-settings", "")}` : ""}`;
	console.log(`\nSearch latency (p50 / p95 wall, mean CPU per query), ${queries} queries of 3 Zipf-distributed words${how}, limit 10, 384-d hash vectors, SQLite ${process.env.ENGRAMA_SQLITE_ENGINE || "auto"} engine (file)`);
	const columns = [...Object.keys(MODES), "Memory.search"];
	console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
	console.log(`| nodes | ${columns.map((m) => `${m} p50 / p95 / CPU`).join(" | ")} |`);
	console.log(`| ---: | ${columns.map(() => "---:").join(" | ")} |`);
	for (const row of rows) {
		const cells = columns.map((m) => {
			const v = row[m] as { p50: number; p95: number; cpu: number };
			return `${fmt(v.p50)} / ${fmt(v.p95)} / ${fmt(v.cpu)}`;
		});
		console.log(`| ${String(row.nodes)} | ${cells.join(" | ")} |`);
	}
	const overlaps = rows.filter((r) => r.vectorOverlap !== undefined).map((r) => `${String(r.nodes)}: ${(r.vectorOverlap as number).toFixed(3)}`);
	if (overlaps.length > 0) console.log(`\nQuantised vector channel, top-10 overlap with the float scan: ${overlaps.join(", ")}`);
	for (const row of rows.filter((r) => r.profile !== undefined)) console.log(`\nMemory.search at ${String(row.nodes)} nodes, per channel:\n${String(row.profile)}`);
}
