// Cross-validation of sub-grids from one `locomo --json` run, without searching again: each lever
// alone (the defaults plus its variants) and together.
// Usage: npm run bench -- locomo-cv <run.json> --subsets '{"when":[0,1,2],"all":[0,1,2,3,4]}' [--folds 7] [--mode rrf-graph]
import { readFileSync } from "node:fs";
import { crossValidate, tallyOf, type QuestionOutcome } from "./locomo/cross-validate";

const arg = (name: string) => {
	const i = process.argv.indexOf(`--${name}`);
	return i >= 0 ? process.argv[i + 1] : undefined;
};
interface Run {
	conversations: number;
	grid: Record<string, unknown>[];
	modes: Record<string, { outcomes: QuestionOutcome[][] }>;
}
const run = JSON.parse(readFileSync(process.argv[2], "utf8")) as Run;
const folds = Number(arg("folds") ?? run.conversations);
const subsets = JSON.parse(arg("subsets") ?? JSON.stringify({ all: run.grid.map((_, i) => i) })) as Record<string, number[]>;
const modes = arg("mode") ? [arg("mode") as string] : Object.keys(run.modes);
const name = (i: number) => (Object.keys(run.grid[i]).length === 0 ? "defaults" : JSON.stringify(run.grid[i]));
for (const mode of modes) {
	console.log(`\n### ${mode}: cross-validated any@10 (${folds} folds) beside all-in`);
	console.log("| levers (grid entries) | CV any@10 | 1 | 2 | 3 | 4 | CV mean@10 | all-in any@10 | chosen per fold |");
	console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |");
	for (const [label, indices] of Object.entries(subsets)) {
		const byVariant = indices.map((i) => run.modes[mode].outcomes[i]);
		const cv = crossValidate(byVariant, run.conversations, folds);
		const t = tallyOf(cv.heldOut);
		const a = tallyOf(byVariant[cv.allIn]);
		const r = (k: string) => (t[k] ? (t[k].any10 / t[k].questions).toFixed(3) : "-");
		const picks = [...new Set(cv.chosen.map((c) => name(indices[c.variant])))].join("; ");
		console.log(`| ${label} | ${r("all")} | ${r("1")} | ${r("2")} | ${r("3")} | ${r("4")} | ${(t.all.mean10 / t.all.questions).toFixed(3)} | ${(a.all.any10 / a.all.questions).toFixed(3)} | ${picks} |`);
	}
}
