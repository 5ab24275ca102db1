/**
 * Cross-validation over conversations: settings are chosen on the training conversations of a
 * fold and scored on its held-out ones, so the figure we quote never saw its own answers.
 */

/** What one search did for one question. */
export interface QuestionOutcome {
	readonly conversation: number;
	readonly category: number;
	/** Evidence turns found in the top 5 / top 10, and how many there are. */
	readonly found5: number;
	readonly found10: number;
	readonly evidence: number;
}

export interface Tally {
	questions: number;
	any5: number;
	any10: number;
	all5: number;
	all10: number;
	mean5: number;
	mean10: number;
}

export const CATEGORIES = ["1", "2", "3", "4", "all"] as const;

/** Tallies per category ("1".."4") and overall ("all"). */
export function tallyOf(outcomes: readonly QuestionOutcome[]): Record<string, Tally> {
	const out: Record<string, Tally> = {};
	for (const o of outcomes) {
		for (const key of [String(o.category), "all"]) {
			const t = (out[key] ??= { questions: 0, any5: 0, any10: 0, all5: 0, all10: 0, mean5: 0, mean10: 0 });
			t.questions++;
			if (o.found5 > 0) t.any5++;
			if (o.found10 > 0) t.any10++;
			if (o.found5 === o.evidence) t.all5++;
			if (o.found10 === o.evidence) t.all10++;
			t.mean5 += o.found5 / o.evidence;
			t.mean10 += o.found10 / o.evidence;
		}
	}
	return out;
}

/**
 * The selection criterion: any@10 over all categories, then the worst category's any@10 (the
 * target has a floor per category), then mean@10. Earlier grid entries win exact ties.
 */
function criterion(outcomes: readonly QuestionOutcome[]): number[] {
	const t = tallyOf(outcomes);
	const rate = (k: string) => (t[k] ? t[k].any10 / t[k].questions : 1);
	const all = t.all ? t.all.any10 / t.all.questions : 0;
	return [all, Math.min(...["1", "2", "3", "4"].map(rate)), t.all ? t.all.mean10 / t.all.questions : 0];
}

function better(a: number[], b: number[]): boolean {
	for (let i = 0; i < a.length; i++) {
		if (Math.abs(a[i] - b[i]) > 1e-12) return a[i] > b[i];
	}
	return false;
}

/** Index of the best grid entry on these conversations. */
export function choose(byVariant: readonly (readonly QuestionOutcome[])[], conversations: ReadonlySet<number>): number {
	let best = 0;
	let bestScore: number[] | undefined;
	byVariant.forEach((outcomes, i) => {
		const score = criterion(outcomes.filter((o) => conversations.has(o.conversation)));
		if (!bestScore || better(score, bestScore)) {
			best = i;
			bestScore = score;
		}
	});
	return best;
}

/** Conversation indices 0..n-1 split into k folds of consecutive conversations (k = n: leave one out). */
export function folds(n: number, k: number): number[][] {
	const parts = Math.max(2, Math.min(k, n));
	return Array.from({ length: parts }, (_, f) => {
		const from = Math.floor((f * n) / parts);
		const to = Math.floor(((f + 1) * n) / parts);
		return Array.from({ length: to - from }, (_, i) => from + i);
	});
}

export interface CrossValidation {
	/** Held-out outcomes, every question exactly once. */
	readonly heldOut: QuestionOutcome[];
	/** Per fold: its held-out conversations and the grid entry chosen without them. */
	readonly chosen: { readonly test: number[]; readonly variant: number }[];
	/** The grid entry best on every conversation (the "all-in" choice). */
	readonly allIn: number;
}

export function crossValidate(byVariant: readonly (readonly QuestionOutcome[])[], n: number, k: number): CrossValidation {
	const all = new Set(Array.from({ length: n }, (_, i) => i));
	const heldOut: QuestionOutcome[] = [];
	const chosen: { test: number[]; variant: number }[] = [];
	for (const test of folds(n, k)) {
		const train = new Set([...all].filter((c) => !test.includes(c)));
		const variant = choose(byVariant, train);
		chosen.push({ test, variant });
		heldOut.push(...byVariant[variant].filter((o) => test.includes(o.conversation)));
	}
	return { heldOut, chosen, allIn: choose(byVariant, all) };
}
