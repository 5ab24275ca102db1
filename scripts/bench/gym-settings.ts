// Engine settings that change what the channels find (the gym's --settings), chosen fairly from
// saved runs: one --save-runs file per setting, the first the baseline. Prints each setting's
// figure per corpus and model, then the setting chosen leaving one corpus out (chosen on the
// others, each corpus weighing the same, ties to the earlier file) and, for LoCoMo, leaving one
// conversation out (chosen on the other six, scored on the one left out, summed over the seven).
//
// Usage: npm run bench -- gym-settings base.json=default a.json='{"x":1}' b.json=label ...
//   (each argument FILE or FILE=LABEL; the label is only printed)
import { loadavg } from "node:os";
import { byWeights, measure } from "./gym/choose";
import { loadRuns, type Asked, type CorpusRun } from "./gym/corpora";
import { DEFAULT_WEIGHTS } from "./gym/terms";

const specs = process.argv.slice(2).map((a) => {
	const at = a.indexOf("=");
	return at < 0 ? { file: a, label: a } : { file: a.slice(0, at), label: a.slice(at + 1) };
});
if (specs.length < 2) throw new Error("give at least two saved runs: the baseline first");
const settings = specs.map((s) => ({ ...s, runs: loadRuns(s.file) }));
const f3 = (x: number) => (Number.isNaN(x) ? "-" : x.toFixed(3));
const rank = byWeights(DEFAULT_WEIGHTS);
const key = (r: CorpusRun) => `${r.corpus} ${r.model}`;
const keys = [...new Set(settings[0].runs.map(key))].filter((k) => settings.every((s) => s.runs.some((r) => key(r) === k)));
const runOf = (i: number, k: string) => settings[i].runs.find((r) => key(r) === k) as CorpusRun;
const score = (i: number, k: string) => measure(runOf(i, k), rank);
const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

console.log(`\n## Settings from saved runs (load ${loadavg().map((l) => l.toFixed(1)).join(" ")})\n`);
console.log(`| setting | ${keys.join(" | ")} | search p50 / p95 (ms) per corpus |`);
console.log(`| --- | ${keys.map(() => "---:").join(" | ")} | --- |`);
for (const [i, s] of settings.entries()) {
	const times = keys.map((k) => {
		const ms = runOf(i, k).asked.map((a) => a.latencyMs).sort((a, b) => a - b);
		return `${ms[Math.floor(ms.length * 0.5)].toFixed(0)}/${ms[Math.min(ms.length - 1, Math.floor(ms.length * 0.95))].toFixed(0)}`;
	});
	console.log(`| ${s.label} | ${keys.map((k) => f3(score(i, k))).join(" | ")} | ${times.join(", ")} |`);
}

// Leaving one corpus out: each model's run of a corpus counts, each corpus weighs the same.
const corpora = [...new Set(keys.map((k) => k.split(" ")[0]))];
const corpusScore = (i: number, c: string) => mean(keys.filter((k) => k.startsWith(`${c} `)).map((k) => score(i, k)));
console.log("\n### Chosen leaving one corpus out (held out: chosen / baseline)\n");
console.log("| held out | chosen | held-out figure, chosen / baseline |");
console.log("| --- | --- | --- |");
for (const held of corpora) {
	const chosen = best(settings.map((_, i) => mean(corpora.filter((c) => c !== held).map((c) => corpusScore(i, c)))));
	const cells = keys.filter((k) => k.startsWith(`${held} `)).map((k) => `${k}: ${f3(score(chosen, k))} / ${f3(score(0, k))}`);
	console.log(`| ${held} | ${settings[chosen].label} | ${cells.join("; ")} |`);
}

// LoCoMo alone, leaving one conversation out.
const hit = (a: Asked, k: number) => rank(a, k).some((id) => a.answers.has(id));
for (const k of keys.filter((x) => x.startsWith("locomo "))) {
	const runs = settings.map((_, i) => runOf(i, k));
	const groups = [...new Set(runs[0].asked.map((a) => a.group))];
	let found = 0;
	const picks: string[] = [];
	for (const g of groups) {
		const share = (i: number, keep: (a: Asked) => boolean) => {
			const asked = runs[i].asked.filter(keep);
			return asked.filter((a) => hit(a, runs[i].k)).length / asked.length;
		};
		const chosen = best(settings.map((_, i) => share(i, (a) => a.group !== g)));
		found += runs[chosen].asked.filter((a) => a.group === g && hit(a, runs[chosen].k)).length;
		picks.push(settings[chosen].label);
	}
	console.log(`\n${k}, leaving one conversation out: any@10 ${f3(found / runs[0].asked.length)} (baseline ${f3(score(0, k))}); chosen per fold: ${picks.join(", ")}`);
}

/** The index of the highest value, ties to the earlier. */
function best(values: readonly number[]): number {
	let at = 0;
	values.forEach((v, i) => {
		if (v > values[at] + 1e-9) at = i;
	});
	return at;
}
