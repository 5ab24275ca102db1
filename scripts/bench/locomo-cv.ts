// Cross-validation of sub-grids from `locomo --json` runs, without searching again: each lever
// alone (the baseline plus its variants) and together, under the transfer rule (an entry other
// than a subset's first is chosen only if it beats the first on ≥ 0.6 of the training
// conversations: 4 of 6, i.e. 5 of 7 overall), with the spread over held-out conversations.
// Usage: npm run bench -- locomo-cv <run.json> [more runs of the same conversations…]
//          [--subsets '{"when":[0,1,2],"all":[0,1,2,3,4]}'] [--folds 7] [--mode rrf-graph] [--min-share 0.6 | 0]
// Several runs: their grids are put one after the other (indices continue), each entry named
// with its file, so runs with other encoders or texts can be chosen between.
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { crossValidate, DEFAULT_RULE, spread, tallyOf, winsOver, type QuestionOutcome } from "./locomo/cross-validate";

const arg = (name: string) => {
	const i = process.argv.indexOf(`--${name}`);
	return i >= 0 ? process.argv[i + 1] : undefined;
};
interface Run {
	conversations: number;
	grid: Record<string, unknown>[];
	modes: Record<string, { outcomes: QuestionOutcome[][] }>;
}
const files = process.argv.slice(2).filter((a, i, all) => !a.startsWith("--") && (i === 0 || !all[i - 1].startsWith("--")));
const runs = files.map((f) => JSON.parse(readFileSync(f, "utf8")) as Run);
if (runs.length === 0) throw new Error("usage: npm run bench -- locomo-cv <run.json> [...] [--subsets '{...}']");
const conversations = runs[0].conversations;
if (runs.some((r) => r.conversations !== conversations)) throw new Error("The runs cover different conversations.");
const modeNames = arg("mode") ? [arg("mode") as string] : Object.keys(runs[0].modes);
const names: string[] = runs.flatMap((r, ri) => r.grid.map((g) => `${runs.length > 1 ? `${basename(files[ri], ".json")} ` : ""}${Object.keys(g).length === 0 ? "defaults" : JSON.stringify(g)}`));
const folds = Number(arg("folds") ?? conversations);
const rule = { minShare: arg("min-share") !== undefined ? Number(arg("min-share")) : DEFAULT_RULE.minShare };
const subsets = JSON.parse(arg("subsets") ?? JSON.stringify({ all: names.map((_, i) => i) })) as Record<string, number[]>;
const r3 = (x: number) => x.toFixed(3);

for (const mode of modeNames) {
	const outcomes: QuestionOutcome[][] = runs.flatMap((r) => r.modes[mode]?.outcomes ?? []);
	if (outcomes.length !== names.length) throw new Error(`Mode ${mode} is missing from a run.`);
	console.log(`\n### ${mode}: cross-validated any@10 (${folds} folds; rule: beat the subset's first entry on ≥ ${r3(rule.minShare)} of the training conversations) beside all-in`);
	console.log("| levers (grid entries) | CV any@10 | 1 | 2 | 3 | 4 | CV mean@10 | held-out per conversation min / max (sd) | all-in any@10 | all-in beats first on | chosen per fold |");
	console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | --- | --- |");
	const all = new Set(Array.from({ length: conversations }, (_, i) => i));
	for (const [label, indices] of Object.entries(subsets)) {
		const byVariant = indices.map((i) => outcomes[i]);
		const cv = crossValidate(byVariant, conversations, folds, rule);
		const t = tallyOf(cv.heldOut);
		const a = tallyOf(byVariant[cv.allIn]);
		const r = (k: string) => (t[k] ? r3(t[k].any10 / t[k].questions) : "-");
		const s = spread(cv.heldOut);
		// The best entry on all conversations without the rule, and on how many it beats the first.
		const free = crossValidate(byVariant, conversations, folds, { minShare: 0 }).allIn;
		const w = winsOver(byVariant[free], byVariant[0], all);
		const picks = [...new Set(cv.chosen.map((c) => names[indices[c.variant]]))].join("; ");
		console.log(
			`| ${label} | ${r("all")} | ${r("1")} | ${r("2")} | ${r("3")} | ${r("4")} | ${r3(t.all.mean10 / t.all.questions)} | ${r3(s.min)} / ${r3(s.max)} (${r3(s.sd)}) | ${r3(a.all.any10 / a.all.questions)} | ${free === 0 ? "-" : `${w.wins} (loses ${w.losses}): ${names[indices[free]]}`} | ${picks} |`,
		);
	}
}
