/**
 * Measures over the gym's runs and the leave-one-corpus-out choice of each term's weight: the
 * weight is chosen on the other corpora (every model's run of each, each corpus weighing the
 * same) and reported on the corpus left out, so no figure quoted ever chose its own setting.
 */
import type { Asked, CorpusRun } from "./corpora";
import { DEFAULT_WEIGHTS, GRID, plainFusion, rescore, type Weights } from "./terms";

export type Ranker = (a: Asked, k: number) => readonly string[];

export const byWeights = (w: Weights): Ranker => (a, k) => rescore(a.hits, w, k).map((h) => h.node.id);
export const plainRrf: Ranker = (a, k) => plainFusion(a.hits, k).map((h) => h.node.id);
export const plainBm25: Ranker = (a, k) => a.bm25.slice(0, k);

/** Share of questions with an answer in the top k. */
export function measure(run: CorpusRun, rank: Ranker, only?: (a: Asked) => boolean): number {
	const asked = only ? run.asked.filter(only) : run.asked;
	if (asked.length === 0) return Number.NaN;
	return asked.filter((a) => rank(a, run.k).some((id) => a.answers.has(id))).length / asked.length;
}

/** Binomial standard error of a share over n questions: the noise a difference must beat. */
export function noise(share: number, n: number): number {
	return n > 0 ? Math.sqrt((share * (1 - share)) / n) : Number.NaN;
}

/** The measure per group (LoCoMo's conversations): min and max. */
export function groupSpread(run: CorpusRun, rank: Ranker): { min: number; max: number } | undefined {
	const groups = [...new Set(run.asked.map((a) => a.group))];
	if (groups.length < 2) return undefined;
	const rates = groups.map((g) => measure(run, rank, (a) => a.group === g));
	return { min: Math.min(...rates), max: Math.max(...rates) };
}

export interface Fold {
	readonly heldOut: string;
	/** The weight chosen on the other corpora. */
	readonly chosen: number;
	/** Held-out measure per model: at the chosen weight, with the term off, at today's default. */
	readonly byModel: readonly { model: string; chosen: number; off: number; today: number; noise: number }[];
}

/** For one weight: each corpus left out in turn, the grid value best on the rest (ties: the smaller), scored on it. */
export function leaveOneCorpusOut(runs: readonly CorpusRun[], key: keyof Weights, base: Weights = DEFAULT_WEIGHTS): Fold[] {
	const grid = GRID[key];
	const at = (run: CorpusRun, value: number) => measure(run, byWeights({ ...base, [key]: value }));
	return chooseLeavingOneOut(runs, grid.map((value) => ({ ...base, [key]: value }))).map(({ heldOut, chosen }) => ({
		heldOut,
		chosen: grid[chosen],
		byModel: runs
			.filter((r) => r.corpus === heldOut)
			.map((r) => {
				const score = at(r, grid[chosen]);
				return { model: r.model, chosen: score, off: at(r, 0), today: at(r, DEFAULT_WEIGHTS[key]), noise: noise(score, r.asked.length) };
			}),
	}));
}

/**
 * Each corpus left out in turn, the weights best on the others (the mean over corpora of the mean
 * over models, each corpus weighing the same; ties to the earlier in the list), as its index.
 */
export function chooseLeavingOneOut(runs: readonly CorpusRun[], options: readonly Weights[]): { heldOut: string; chosen: number }[] {
	const corpora = [...new Set(runs.map((r) => r.corpus))];
	const cache = new Map<string, number>();
	const at = (corpus: string, i: number) => {
		const key = `${corpus}\u0000${i}`;
		if (!cache.has(key)) cache.set(key, mean(runs.filter((r) => r.corpus === corpus).map((r) => measure(r, byWeights(options[i])))));
		return cache.get(key) ?? Number.NaN;
	};
	return corpora.map((heldOut) => {
		let chosen = 0;
		let bestScore = -Infinity;
		options.forEach((_, i) => {
			const score = mean(corpora.filter((c) => c !== heldOut).map((c) => at(c, i)));
			if (score > bestScore + 1e-9) {
				chosen = i;
				bestScore = score;
			}
		});
		return { heldOut, chosen };
	});
}

function mean(xs: readonly number[]): number {
	return xs.length === 0 ? Number.NaN : xs.reduce((a, b) => a + b, 0) / xs.length;
}
