// Retrieval over a real vault: questions whose answers sit inside note bodies, each with the note
// and the section that answers it. The vault is synced into a fresh memory through the command
// line's path (createNodeVaultSync, then `reindex` with the model), and every question goes
// through Memory.search (the default search) and each other mode.
//
// Usage: npm run bench -- vault-retrieval [--set obsidian-hub|multilingual] [--vault DIR]
//        [--questions FILE] [--models none,minilm,bge,e5] [--model-root DIR] [--dtype fp32|q8]
//        [--modes default,fulltext,vector,rrf,linear] [--distractors N] [--seed N]
//        [--setting key=value ...] [--misses] [--problems] [--json FILE]
// - obsidian-hub (default): the vault of scripts/bench/vault-retrieval/get-obsidian-hub.sh
//   (.bench-out/vault-retrieval/obsidian-hub-dae4bcf), questions-obsidian-hub.json beside it.
// - multilingual: tests/fixtures/multilingual-vault and its questions.json; hit@5 per language.
// - --models: `none` (fulltext + graph), `minilm` (all-MiniLM-L6-v2, the local provider's
//   default model), `bge` (bge-small-en-v1.5, CLS pooling); folders under --model-root
//   (default .bench-out/models/models, made by scripts/bench/models/prepare-*.sh).
// - --distractors N: sync only the notes the questions name plus N other notes drawn at random
//   (--seed, default 1) instead of the whole vault: for model runs too slow on the whole vault.
// - --setting key=value: a search setting for this run (JSON value), as locomo's --set.
// Section-level hits read `passages[].heading` of a result; results without passages count as
// "n.a." (no section is reported), not as misses.
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { SearchOptions, SearchResultView } from "../../src/engine/memory";
import { NOTE_PROPS } from "../../src/engine/sync/note-index";
import type { OpenedMemory } from "../../src/nodejs/open-memory";
import { arg } from "./args";
import { percentile } from "./stats";
import { chooseNotes, MODELS, openEmbedded, syncFresh, vaultEmbedder, type ModelName } from "./vault-retrieval/vault-memory";
import { type QuestionFile, type Score, scoreQuestion, summarise } from "./vault-retrieval/scoring";

const SETS = {
	"obsidian-hub": { vault: ".bench-out/vault-retrieval/obsidian-hub-dae4bcf", questions: "scripts/bench/vault-retrieval/questions-obsidian-hub.json" },
	multilingual: { vault: "tests/fixtures/multilingual-vault", questions: "tests/fixtures/multilingual-vault/questions.json" },
} as const;
const MODES: Record<string, SearchOptions> = {
	default: {},
	fulltext: { channels: { vector: false } },
	vector: { channels: { fulltext: false } },
	rrf: { graph: false },
	linear: { fusion: "linear" },
};

const setName = arg("set", "obsidian-hub") as keyof typeof SETS;
if (!SETS[setName]) throw new Error(`--set must be one of ${Object.keys(SETS).join(", ")}`);
const vaultDir = resolve(arg("vault", SETS[setName].vault));
const questionFile = resolve(arg("questions", SETS[setName].questions));
const models = arg("models", "none").split(",") as ModelName[];
const modelRoot = resolve(arg("model-root", ".bench-out/models/models"));
const dtype = arg("dtype", "fp32") as "fp32" | "q8";
const modes = arg("modes", "default,fulltext,vector,rrf,linear").split(",");
const distractors = process.argv.includes("--distractors") ? Number(arg("distractors", "0")) : undefined;
const seed = Number(arg("seed", "1"));
const showMisses = process.argv.includes("--misses");
const jsonOut = process.argv.includes("--json") ? arg("json", "") : "";
const settings = Object.fromEntries(
	process.argv.flatMap((a, i) => (a === "--setting" && process.argv[i + 1] ? [process.argv[i + 1].split("=")] : [])).map(([k, v]) => [k, JSON.parse(v) as unknown]),
);

function fail(message: string): never {
	console.error(message);
	process.exit(1);
}

if (!existsSync(vaultDir)) {
	fail(
		setName === "obsidian-hub"
			? `No vault at ${vaultDir}. Bring the pinned commit of obsidian-community/obsidian-hub first:\n` +
					"  scripts/bench/vault-retrieval/get-obsidian-hub.sh [a local clone or the GitHub URL (default)]\nor pass --vault DIR."
			: `No vault at ${vaultDir}.`,
	);
}
for (const m of models) if (m !== "none" && !MODELS[m]) fail(`--models takes none, ${Object.keys(MODELS).join(", ")}; got "${m}".`);
for (const m of modes) if (!MODES[m]) fail(`--modes takes ${Object.keys(MODES).join(", ")}; got "${m}".`);
const file = JSON.parse(readFileSync(questionFile, "utf8")) as QuestionFile;
const questions = file.questions;
if (setName === "obsidian-hub" && existsSync(join(vaultDir, ".pinned-commit"))) {
	const pinned = readFileSync(join(vaultDir, ".pinned-commit"), "utf8").trim();
	if (file.commit && pinned !== file.commit) fail(`The vault at ${vaultDir} is commit ${pinned}; the questions were written against ${file.commit}.`);
}
for (const q of questions) if (!existsSync(join(vaultDir, q.note))) fail(`Question ${q.id}: note "${q.note}" is not in ${vaultDir}.`);

async function pathOf(opened: OpenedMemory, result: SearchResultView, cache: Map<string, string>): Promise<string> {
	const stated = (result as { path?: unknown }).path;
	if (typeof stated === "string") return stated;
	if (!cache.has(result.node_id)) {
		const node = await opened.memory.graph.getNodeById(opened.scope, result.node_id);
		const path = node?.props[NOTE_PROPS.path];
		cache.set(result.node_id, typeof path === "string" ? path : "");
	}
	return cache.get(result.node_id) ?? "";
}

interface Run {
	model: ModelName;
	mode: string;
	scores: Score[];
	p50: number;
	p95: number;
}

async function runModel(model: ModelName, dbPath: string, cacheDir: string): Promise<{ runs: Run[]; embedSeconds?: number; embedCpu?: number; embedded?: number }> {
	const embedder = vaultEmbedder(model, modelRoot, dtype, cacheDir);
	const { opened, embedSeconds, embedCpu, embedded } = await openEmbedded(dbPath, embedder, settings, model);
	const paths = new Map<string, string>();
	const runs: Run[] = [];
	for (const mode of modes) {
		if (!embedder && (mode === "vector" || mode === "fulltext")) continue; // no vector channel: the same as default
		const scores: Score[] = [];
		const times: number[] = [];
		for (const q of questions) {
			const t = performance.now();
			const view = await opened.memory.search(opened.scope, q.question, { ...MODES[mode], limit: 10 });
			times.push(performance.now() - t);
			const ranked = [];
			for (const r of view.results) ranked.push({ path: await pathOf(opened, r, paths), name: r.name, passages: (r as { passages?: { heading?: string }[] }).passages });
			scores.push(scoreQuestion(q, ranked));
		}
		runs.push({ model, mode, scores, p50: percentile(times, 50), p95: percentile(times, 95) });
	}
	embedder?.save();
	await opened.close();
	return { runs, embedSeconds, embedCpu, embedded };
}

const pct = (x: number | undefined) => (x === undefined ? "n.a." : x.toFixed(3));

function printRuns(runs: readonly Run[]): void {
	const splits = [...new Set(questions.map((q) => q.split ?? "all"))];
	console.log(`\n| model | mode | questions | note hit@5 | note hit@10 | section hit@5 | section hit@10 | ${splits.length > 1 ? `${splits.map((s) => `${s} note hit@5`).join(" | ")} | ` : ""}search p50 / p95 |`);
	console.log(`| --- | --- | ---: | ---: | ---: | ---: | ---: | ${splits.length > 1 ? `${splits.map(() => "---:").join(" | ")} | ` : ""}---: |`);
	for (const run of runs) {
		const all = summarise(run.scores);
		const perSplit = splits.length > 1 ? `${splits.map((s) => pct(summarise(run.scores.filter((x) => (x.question.split ?? "all") === s)).note5)).join(" | ")} | ` : "";
		console.log(
			`| ${run.model} | ${run.mode} | ${all.n} | ${pct(all.note5)} | ${pct(all.note10)} | ${pct(all.section5)} | ${pct(all.section10)} | ${perSplit}${run.p50.toFixed(1)} / ${run.p95.toFixed(1)} ms |`,
		);
	}
	for (const split of splits.length > 1 ? splits : []) {
		console.log(`\n${split} half:`);
		console.log("| model | mode | questions | note hit@5 | note hit@10 | section hit@5 | section hit@10 |");
		console.log("| --- | --- | ---: | ---: | ---: | ---: | ---: |");
		for (const run of runs) {
			const s = summarise(run.scores.filter((x) => (x.question.split ?? "all") === split));
			console.log(`| ${run.model} | ${run.mode} | ${s.n} | ${pct(s.note5)} | ${pct(s.note10)} | ${pct(s.section5)} | ${pct(s.section10)} |`);
		}
	}
	const languages = [...new Set(questions.map((q) => q.language).filter((l): l is string => !!l))];
	if (languages.length > 0) {
		console.log(`\n| model | mode | ${languages.map((l) => `${l} hit@5`).join(" | ")} | all hit@5 |`);
		console.log(`| --- | --- | ${languages.map(() => "---:").join(" | ")} | ---: |`);
		for (const run of runs) {
			const cells = languages.map((l) => {
				const s = summarise(run.scores.filter((x) => x.question.language === l));
				return `${Math.round((s.note5 ?? 0) * s.n)}/${s.n}`;
			});
			const all = summarise(run.scores);
			console.log(`| ${run.model} | ${run.mode} | ${cells.join(" | ")} | ${Math.round((all.note5 ?? 0) * all.n)}/${all.n} |`);
		}
	}
	if (showMisses) {
		for (const run of runs) {
			const misses = run.scores.filter((s) => s.noteRank === undefined || s.noteRank > 5);
			console.log(`\nmissed top 5 (${run.model}, ${run.mode}): ${misses.length}`);
			for (const m of misses) console.log(`  ${m.question.id} [rank ${m.noteRank ?? "-"}] "${m.question.question}" → ${m.question.note}; top 3: ${m.top.slice(0, 3).join(" | ")}`);
		}
	}
}

const notes = await chooseNotes(vaultDir, new Set(questions.map((q) => q.note)), distractors, seed);
const work = mkdtempSync(join(tmpdir(), "engrama-vault-retrieval-"));
const cacheDir = resolve(".bench-out/vault-retrieval/vectors", setName);
console.log(`${setName}: ${questions.length} questions, ${notes.length} notes synced${distractors !== undefined ? ` (the questions' ${new Set(questions.map((q) => q.note)).size} notes + ${distractors} distractors, seed ${seed})` : " (the whole vault)"}`);
console.log(`load average at start ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
try {
	const synced = await syncFresh(vaultDir, notes, work);
	if (process.argv.includes("--problems")) for (const p of synced.problems) console.log(`  ${p.path}: ${p.severity}: ${p.problem}`);
	console.log(`sync (no model): ${synced.syncSeconds.toFixed(1)} s wall, ${synced.syncCpu.toFixed(1)} s CPU, ${synced.problems.length} problems reported`);
	const runs: Run[] = [];
	for (const model of models) {
		const dbPath = join(work, `memory-${model}.db`);
		copyFileSync(synced.dbPath, dbPath);
		const result = await runModel(model, dbPath, cacheDir);
		if (result.embedSeconds !== undefined) {
			console.log(`${model}: reindex embedded ${result.embedded} nodes in ${result.embedSeconds.toFixed(1)} s wall, ${result.embedCpu?.toFixed(1)} s CPU (vectors cached in ${cacheDir})`);
		}
		runs.push(...result.runs);
	}
	printRuns(runs);
	console.log(`\nload average at end ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
	if (jsonOut) {
		const out = runs.map((r) => ({ model: r.model, mode: r.mode, summary: summarise(r.scores), p50: r.p50, p95: r.p95, ranks: r.scores.map((s) => ({ id: s.question.id, note: s.noteRank ?? null, section: s.sectionRank ?? null })) }));
		writeFileSync(jsonOut, JSON.stringify({ set: setName, notes: notes.length, distractors, seed, settings, runs: out }, null, 1));
	}
} finally {
	rmSync(work, { recursive: true, force: true });
}
