// LoCoMo retrieval benchmark: every conversation becomes a memory (turns, sessions, speakers as
// nodes; turns linked to their session, speaker and next turn), every question of categories 1-4
// goes through the real hybrid search, and we report turn-level evidence recall@5/@10.
// Usage: npm run bench -- locomo <locomo.json> [--context none|previous] [--embedder use-lite|config]
//        [--model-dir <models>/<org>/<name> [--dtype q8|fp32]]
//        [--modes fulltext,vector,rrf,rrf-graph,linear] [--conversations n] [--set key=value]
//        [--cache .bench-out/locomo] [--json <out.json>]
// --context previous stores each turn with the turn it answers; --embedder config uses the
// EMBEDDING_* variables (e.g. EMBEDDING_PROVIDER=local for all-MiniLM-L6-v2, or openai); --model-dir
// runs the local (transformers.js) provider on a model folder on disk with remote loading off.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadProfile } from "../../src/engine/profile";
import type { SearchOptions } from "../../src/engine/memory";
import { DEFAULT_SEARCH_SETTINGS, HybridSearch, type SearchSettings } from "../../src/engine/search/hybrid-search";
import type { OpenedMemory } from "../../src/node/open-memory";
import { CATEGORY_NAMES, parseLocomo } from "./locomo/dataset";
import { benchEmbedder } from "./locomo/embedder";
import { loadConversation, textsToEmbed, type TurnContext } from "./locomo/load-conversation";
import profileText from "./locomo/profile.yaml";
import { fmt, percentile } from "./stats";

function arg(name: string): string | undefined {
	const i = process.argv.indexOf(`--${name}`);
	return i >= 0 ? process.argv[i + 1] : undefined;
}

const MODES: Readonly<Record<string, { title: string; options: SearchOptions }>> = {
	fulltext: { title: "fulltext only", options: { channels: { vector: false }, graph: false, temporal: false } },
	vector: { title: "vector only", options: { channels: { fulltext: false }, graph: false, temporal: false } },
	rrf: { title: "RRF", options: { fusion: "rrf", graph: false, temporal: false } },
	"rrf-graph": { title: "RRF + graph + temporal", options: { fusion: "rrf", graph: true, temporal: true } },
	linear: { title: "legacy linear", options: { fusion: "linear", graph: true, temporal: true } },
};

const file = process.argv[2];
if (!file || file.startsWith("--")) {
	console.error("usage: npm run bench -- locomo <locomo.json> [--modes a,b] [--conversations n] [--cache dir] [--json out.json]");
	process.exit(2);
}
const modes = (arg("modes") ?? Object.keys(MODES).join(",")).split(",").filter((m) => m in MODES);
const cacheDir = arg("cache") ?? join(".bench-out", "locomo");
const conversations = parseLocomo(JSON.parse(readFileSync(file, "utf8"))).slice(0, Number(arg("conversations") ?? Infinity));
const profile = loadProfile([{ file: "scripts/bench/locomo/profile.yaml", text: profileText }]);
const context = (arg("context") ?? "none") as TurnContext;
if (context !== "none" && context !== "previous") throw new Error(`--context must be none or previous, got ${String(context)}`);
const { embedder, label } = await benchEmbedder(process.argv, cacheDir);
const K = [5, 10] as const;

/** `--set graphExpand=5 --set rrfK=30`: search settings for this run (JSON values). */
const overrides: Partial<SearchSettings> = Object.fromEntries(
	process.argv.flatMap((a, i) => (a === "--set" && process.argv[i + 1] ? [process.argv[i + 1].split("=")] : [])).map(([k, v]) => [k, JSON.parse(v) as unknown]),
);

/** The real hybrid search over the conversation's memory, with this run's settings on top of the config's. */
async function search(opened: OpenedMemory, text: string, options: SearchOptions) {
	const { memory, scope } = opened;
	const engine = new HybridSearch({ graph: memory.graph, vectors: memory.vectors, embedder: memory.embedder, clock: memory.clock, settings: { ...memory.searcher.settings, ...overrides } });
	const outcome = await engine.search(scope, { ...options, text });
	return { results: outcome.hits.map((h) => ({ node_id: h.node.id })) };
}

interface Tally {
	questions: number;
	any: Record<number, number>;
	all: Record<number, number>;
	frac: Record<number, number>;
}
const tally = (): Tally => ({ questions: 0, any: { 5: 0, 10: 0 }, all: { 5: 0, 10: 0 }, frac: { 5: 0, 10: 0 } });
const results: Record<string, Record<string, Tally>> = Object.fromEntries(modes.map((m) => [m, {}]));
const latency: Record<string, number[]> = Object.fromEntries(modes.map((m) => [m, []]));
let skipped = 0;
let missingEvidence = 0;

const started = performance.now();
let embedMs = 0;
let loadMs = 0;
for (const conv of conversations) {
	const t0 = performance.now();
	await embedder.embedBatch(textsToEmbed(conv, context));
	embedMs += performance.now() - t0;
	const t1 = performance.now();
	const { opened, turnIds } = await loadConversation(conv, profile, embedder, context);
	loadMs += performance.now() - t1;
	const known = new Set(turnIds.values());
	for (const q of conv.questions) {
		if (q.category < 1 || q.category > 4) continue;
		if (q.evidence.length === 0) {
			skipped++;
			continue;
		}
		missingEvidence += q.evidence.filter((e) => !known.has(e)).length;
		for (const mode of modes) {
			const s0 = performance.now();
			const view = await search(opened, q.question, { ...MODES[mode].options, limit: 10 });
			latency[mode].push(performance.now() - s0);
			const ranked = view.results.map((r) => turnIds.get(r.node_id));
			for (const key of [String(q.category), "all"]) {
				const t = (results[mode][key] ??= tally());
				t.questions++;
				for (const k of K) {
					const top = new Set(ranked.slice(0, k));
					const found = q.evidence.filter((e) => top.has(e)).length;
					if (found > 0) t.any[k]++;
					if (found === q.evidence.length) t.all[k]++;
					t.frac[k] += found / q.evidence.length;
				}
			}
		}
	}
	await opened.close();
	embedder.save();
	process.stderr.write(`${conv.id}: ${[...known].length} turns loaded\n`);
}

const pct = (n: number, d: number) => (d > 0 ? (n / d).toFixed(3) : "-");
const out: Record<string, unknown> = {};
console.log(`\nLoCoMo turn-level evidence recall, ${conversations.length} conversations, categories 1-4 (${file})`);
console.log(`embedder ${label}; turn context: ${context}; settings: ${JSON.stringify({ ...DEFAULT_SEARCH_SETTINGS, ...overrides })}`);
console.log(`questions without usable evidence (skipped): ${skipped}; evidence ids naming no turn: ${missingEvidence}`);
for (const mode of modes) {
	console.log(`\n### ${MODES[mode].title}  (search p50 ${fmt(percentile(latency[mode], 50))}, p95 ${fmt(percentile(latency[mode], 95))})`);
	console.log("| category | questions | any@5 | any@10 | all@5 | all@10 | mean@5 | mean@10 |");
	console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
	for (const key of ["1", "2", "3", "4", "all"]) {
		const t = results[mode][key];
		if (!t) continue;
		const name = key === "all" ? "**overall**" : `${key} ${CATEGORY_NAMES[Number(key)]}`;
		console.log(
			`| ${name} | ${t.questions} | ${pct(t.any[5], t.questions)} | ${pct(t.any[10], t.questions)} | ${pct(t.all[5], t.questions)} | ${pct(t.all[10], t.questions)} | ${pct(t.frac[5], t.questions)} | ${pct(t.frac[10], t.questions)} |`,
		);
	}
	out[mode] = { latencyP50: percentile(latency[mode], 50), latencyP95: percentile(latency[mode], 95), categories: results[mode] };
}
console.log(
	`\nembedding ${fmt(embedMs)} (cache: ${embedder.hits} hits, ${embedder.misses} misses), loading ${fmt(loadMs)}, total ${fmt(performance.now() - started)}`,
);
const jsonOut = arg("json");
if (jsonOut) writeFileSync(jsonOut, JSON.stringify({ file, conversations: conversations.length, skipped, missingEvidence, modes: out }, null, 2));
