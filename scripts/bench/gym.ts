// The retrieval gym: every corpus, one table. LoCoMo (the seven conversations), obsidian-hub's
// questions, the multilingual fixture, obsidian-tasks' docs and a Spanish notes vault, each with
// no model and with the default model (all-MiniLM-L6-v2, q8, offline); per corpus the default
// search, plain BM25, plain RRF and the default with each term removed, then every term's weight
// chosen leaving one corpus out.
//
// Usage: npm run bench -- gym [--quick] [--json FILE] [--models none,minilm] [--corpora a,b]
//        [--locomo FILE] [--model-root DIR] [--dtype q8|fp32] [--hub-distractors N] [--apuntes-distractors N] [--candidate '{"graphWeight":0.05}' ...]
//        [--save-runs FILE] [--runs FILE,FILE] [--settings '{"channelK":40}'] [--locomo-context previous|none|window2]
// - --quick: no model, two LoCoMo conversations, 300 obsidian-hub distractors (a few minutes).
// - Vaults come from scripts/bench/vault-retrieval/get-obsidian-hub.sh and
//   scripts/bench/get-vaults.sh; a missing one is skipped with a SKIP line.
// - The model: scripts/bench/models/prepare-maven-model.sh minilm q8 (--dtype fp32: the unquantized weights).
// - --save-runs FILE keeps every question's candidates and signals; --runs FILE,FILE prints the
//   tables from saved runs without searching again (weights are re-scored, not re-searched).
import { existsSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { arg } from "./args";
import { benchEmbedder } from "./locomo/embedder";
import { isTurnContext } from "./locomo/load-conversation";
import { percentile } from "./stats";
import { byWeights, chooseLeavingOneOut, groupSpread, leaveOneCorpusOut, measure, noise, plainBm25, plainRrf, type Fold } from "./gym/choose";
import { loadRuns, runLocomo, runVault, saveRuns, type CorpusRun, type VaultCorpus } from "./gym/corpora";
import { DEFAULT_WEIGHTS, TERMS, type Weights } from "./gym/terms";
import type { SearchSettings } from "../../src/engine/search/hybrid-search";
import { MODELS, type ModelName } from "./vault-retrieval/vault-memory";

const quick = process.argv.includes("--quick");
const models = arg("models", quick ? "none" : "none,minilm").split(",") as ModelName[];
const modelRoot = resolve(arg("model-root", ".bench-out/models/models"));
// The shared data folder beside the checkout (../shared from the main one, ../../shared from a worktree under wt/).
const locomoFile = arg("locomo", ["../shared/bench/locomo/locomo7.json", "../../shared/bench/locomo/locomo7.json"].find((f) => existsSync(f)) ?? "../shared/bench/locomo/locomo7.json");
const dtype = arg("dtype", "q8") as "q8" | "fp32";
// `--settings '{"channelK":40}'`: the engine's settings for every search (a change re-scoring cannot show).
const settings = JSON.parse(arg("settings", "{}")) as Partial<SearchSettings>;
// What a LoCoMo turn holds besides its words (load-conversation.ts): the turn it answers by default.
const locomoContext = arg("locomo-context", "previous");
if (!isTurnContext(locomoContext)) throw new Error("--locomo-context takes none, previous or window1 … window9");
const hubDistractors = Number(arg("hub-distractors", quick ? "300" : "1000"));
// The Spanish notes are embedded whole by default (686 notes, 5,890 passages: an hour on a loaded machine); N: their questions' notes + N others.
const apuntesDistractors = process.argv.includes("--apuntes-distractors") ? Number(arg("apuntes-distractors", "150")) : undefined;
const VAULTS: readonly VaultCorpus[] = [
	{
		name: "obsidian-hub",
		vault: ".bench-out/vault-retrieval/obsidian-hub-dae4bcf",
		questions: "scripts/bench/vault-retrieval/questions-obsidian-hub.json",
		distractors: hubDistractors,
		hint: "scripts/bench/vault-retrieval/get-obsidian-hub.sh",
	},
	{ name: "multilingual", vault: "tests/fixtures/multilingual-vault", questions: "tests/fixtures/multilingual-vault/questions.json", hint: "in the repository" },
	{ name: "tasks-docs", vault: ".bench-out/vaults/tasks-docs-cc0fce3", questions: "scripts/bench/gym/questions-tasks-docs.json", hint: "scripts/bench/get-vaults.sh" },
	{ name: "apuntes-es", vault: ".bench-out/vaults/apuntes-7f17b20", questions: "scripts/bench/gym/questions-apuntes.json", distractors: apuntesDistractors, hint: "scripts/bench/get-vaults.sh" },
];
const corpora = arg("corpora", ["locomo", ...VAULTS.map((v) => v.name)].join(",")).split(",");

const f3 = (x: number) => (Number.isNaN(x) ? "-" : x.toFixed(3));
const started = performance.now();
const loadAtStart = loadavg();
const runs: CorpusRun[] = [];
const skipped: string[] = [];

const saved = arg("runs", "");
const saveTo = arg("save-runs", "");
if (saved) runs.push(...saved.split(",").flatMap(loadRuns));
for (const model of saved ? [] : models) {
	if (model !== "none" && !MODELS[model]) throw new Error(`--models takes none or ${Object.keys(MODELS).join(", ")}`);
	for (const name of corpora) {
		let run: CorpusRun | string;
		if (name === "locomo") {
			const embedder = model === "none" ? null : (await benchEmbedder(["--model-dir", join(modelRoot, MODELS[model].dir), "--dtype", dtype], join(".bench-out", "gym", "vectors", "locomo"))).embedder;
			run = await runLocomo(locomoFile, model, embedder, quick ? 2 : Infinity, settings, locomoContext);
		} else {
			const corpus = VAULTS.find((v) => v.name === name);
			if (!corpus) throw new Error(`--corpora takes locomo, ${VAULTS.map((v) => v.name).join(", ")}`);
			run = await runVault(corpus, model, modelRoot, dtype, settings);
		}
		if (typeof run === "string") {
			console.error(run);
			if (!skipped.includes(run)) skipped.push(run);
		} else {
			runs.push(run);
			// Kept after every corpus: a long run stopped half-way still leaves what it measured.
			if (saveTo) saveRuns(saveTo, runs);
			console.error(`${run.corpus} ${run.model}: ${run.asked.length} questions, ${run.notes}`);
		}
	}
}

const termNames = Object.keys(TERMS);
console.log(`\n## Retrieval gym (${new Date().toISOString().slice(0, 10)}; load ${loadAtStart.map((l) => l.toFixed(1)).join(" ")} at start)`);
console.log(`\n| corpus | model | measure | questions | **default** | plain BM25 | plain RRF | default − best baseline | ${termNames.map((t) => `− ${t}`).join(" | ")} | spread | search p95 |`);
console.log(`| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ${termNames.map(() => "---:").join(" | ")} | --- | ---: |`);
for (const run of runs) {
	const def = measure(run, byWeights(DEFAULT_WEIGHTS));
	const bm25 = measure(run, plainBm25);
	const rrf = measure(run, plainRrf);
	const without = termNames.map((t) => f3(measure(run, byWeights({ ...DEFAULT_WEIGHTS, [TERMS[t]]: 0 }))));
	const groups = groupSpread(run, byWeights(DEFAULT_WEIGHTS));
	const spread = `±${f3(noise(def, run.asked.length))}${groups ? `; per conversation ${f3(groups.min)}–${f3(groups.max)}` : ""}`;
	const p95 = percentile(run.asked.map((a) => a.latencyMs), 95);
	console.log(
		`| ${run.corpus} | ${run.model} | ${run.measure} | ${run.asked.length} | **${f3(def)}** | ${f3(bm25)} | ${f3(rrf)} | ${(def - Math.max(bm25, rrf) >= 0 ? "+" : "") + (def - Math.max(bm25, rrf)).toFixed(3)} | ${without.join(" | ")} | ${spread} | ${p95.toFixed(0)} ms |`,
	);
}
// `--candidate '{"graphWeight":0.05}'` (repeatable): the default with other weights, beside it and the baselines.
const candidates = process.argv.flatMap((a, i) => (a === "--candidate" && process.argv[i + 1] ? [JSON.parse(process.argv[i + 1]) as Partial<Weights>] : []));
if (candidates.length > 0) {
	console.log(`\n| corpus | model | default | ${candidates.map((c) => JSON.stringify(c)).join(" | ")} | best baseline |`);
	console.log(`| --- | --- | ---: | ${candidates.map(() => "---:").join(" | ")} | ---: |`);
	for (const run of runs) {
		const cells = candidates.map((c) => f3(measure(run, byWeights({ ...DEFAULT_WEIGHTS, ...c }))));
		console.log(`| ${run.corpus} | ${run.model} | ${f3(measure(run, byWeights(DEFAULT_WEIGHTS)))} | ${cells.join(" | ")} | ${f3(Math.max(measure(run, plainBm25), measure(run, plainRrf)))} |`);
	}
}
// The default and the candidates, one of them chosen leaving each corpus out: the figure a change may quote.
if (candidates.length > 0 && new Set(runs.map((r) => r.corpus)).size >= 2) {
	const options = [DEFAULT_WEIGHTS, ...candidates.map((c) => ({ ...DEFAULT_WEIGHTS, ...c }))];
	const label = (i: number) => (i === 0 ? "default" : JSON.stringify(candidates[i - 1]));
	console.log("\n### The default or a candidate, chosen leaving one corpus out (chosen on the others; held out: chosen / default / best baseline)");
	console.log("\n| held out | chosen | model | chosen | default | best baseline |");
	console.log("| --- | --- | --- | ---: | ---: | ---: |");
	for (const { heldOut, chosen } of chooseLeavingOneOut(runs, options)) {
		for (const run of runs.filter((r) => r.corpus === heldOut)) {
			const baseline = Math.max(measure(run, plainBm25), measure(run, plainRrf));
			console.log(`| ${heldOut} | ${label(chosen)} | ${run.model} | ${f3(measure(run, byWeights(options[chosen])))} | ${f3(measure(run, byWeights(DEFAULT_WEIGHTS)))} | ${f3(baseline)} |`);
		}
	}
}
const mismatched = runs.filter((r) => r.rescoreMismatches > 0);
if (mismatched.length > 0) console.log(`\nre-scoring differed from the engine's page on: ${mismatched.map((r) => `${r.corpus} ${r.model} (${r.rescoreMismatches})`).join(", ")}`);

const folds: Record<string, Fold[]> = {};
if (new Set(runs.map((r) => r.corpus)).size >= 2) {
	console.log("\n### Each term's weight chosen leaving one corpus out (chosen on the others, both models; held out: chosen / off / today)");
	console.log(`\n| term (grid) | ${[...new Set(runs.map((r) => r.corpus))].join(" | ")} | helps or neutral on every held-out corpus? |`);
	console.log(`| --- | ${[...new Set(runs.map((r) => r.corpus))].map(() => "---").join(" | ")} | --- |`);
	for (const term of termNames) {
		const key = TERMS[term];
		const list = leaveOneCorpusOut(runs, key);
		folds[term] = list;
		const cells = list.map((f) => `w ${f.chosen}: ${f.byModel.map((m) => `${m.model} ${f3(m.chosen)} / ${f3(m.off)} / ${f3(m.today)}`).join("; ")}`);
		// Earns its place: chosen above 0 by some fold, and on every held-out corpus the chosen weight is no worse than off by more than the noise.
		const worse = list.flatMap((f) => f.byModel.filter((m) => m.chosen < m.off - m.noise).map((m) => `${f.heldOut} ${m.model}`));
		const used = list.some((f) => f.chosen > 0);
		console.log(`| ${term} (${key}) | ${cells.join(" | ")} | ${!used ? "no fold chose it" : worse.length === 0 ? "yes" : `no: worse on ${worse.join(", ")}`} |`);
	}
}
const elapsed = (performance.now() - started) / 1000;
console.log(`\n${skipped.length > 0 ? `${skipped.join("\n")}\n` : ""}wall ${elapsed.toFixed(0)} s; load average at end ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);

const jsonOut = process.argv.includes("--json") ? arg("json", "") : "";
if (jsonOut) {
	const table = runs.map((run) => ({
		corpus: run.corpus,
		model: run.model,
		measure: run.measure,
		questions: run.asked.length,
		default: measure(run, byWeights(DEFAULT_WEIGHTS)),
		bm25: measure(run, plainBm25),
		rrf: measure(run, plainRrf),
		without: Object.fromEntries(termNames.map((t) => [t, measure(run, byWeights({ ...DEFAULT_WEIGHTS, [TERMS[t]]: 0 }))])),
		spread: groupSpread(run, byWeights(DEFAULT_WEIGHTS)),
		p95: percentile(run.asked.map((a) => a.latencyMs), 95),
	}));
	writeFileSync(jsonOut, JSON.stringify({ date: new Date().toISOString(), load: loadAtStart, weights: DEFAULT_WEIGHTS, table, folds, skipped }, null, 1));
}
