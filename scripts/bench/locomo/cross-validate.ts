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

/**
 * The transfer rule: an entry other than the first (the baseline) may be chosen only if it beats
 * the baseline's any@10 on at least this share of the conversations it is chosen on (0.6: five of
 * seven on all of them, four of the six a leave-one-out fold trains on). A lever that wins big on
 * one conversation and loses on the rest is not chosen; 0 turns the rule off.
 */
export interface TransferRule {
	readonly minShare: number;
}

export const DEFAULT_RULE: TransferRule = { minShare: 0.6 };

/** any@10 per conversation (index → rate), of the conversations present. */
export function perConversation(outcomes: readonly QuestionOutcome[]): Map<number, number> {
	const hits = new Map<number, [number, number]>();
	for (const o of outcomes) {
		const t = hits.get(o.conversation) ?? [0, 0];
		t[0] += o.found10 > 0 ? 1 : 0;
		t[1]++;
		hits.set(o.conversation, t);
	}
	return new Map([...hits].map(([c, [h, n]]) => [c, h / n]));
}

/** On how many of these conversations `variant` beats (and loses to) `baseline` on any@10. */
export function winsOver(variant: readonly QuestionOutcome[], baseline: readonly QuestionOutcome[], conversations: ReadonlySet<number>): { wins: number; losses: number } {
	const v = perConversation(variant.filter((o) => conversations.has(o.conversation)));
	const b = perConversation(baseline.filter((o) => conversations.has(o.conversation)));
	let wins = 0;
	let losses = 0;
	for (const [c, rate] of v) {
		const base = b.get(c) ?? 0;
		if (rate > base + 1e-12) wins++;
		else if (rate < base - 1e-12) losses++;
	}
	return { wins, losses };
}

/** Index of the best grid entry on these conversations, among those the rule lets through. */
export function choose(byVariant: readonly (readonly QuestionOutcome[])[], conversations: ReadonlySet<number>, rule: TransferRule = { minShare: 0 }): number {
	let best = 0;
	let bestScore: number[] | undefined;
	const needed = Math.ceil(rule.minShare * conversations.size - 1e-9);
	byVariant.forEach((outcomes, i) => {
		if (i > 0 && needed > 0 && winsOver(outcomes, byVariant[0], conversations).wins < needed) return;
		const score = criterion(outcomes.filter((o) => conversations.has(o.conversation)));
		if (!bestScore || better(score, bestScore)) {
			best = i;
			bestScore = score;
		}
	});
	return best;
}

/** Mean, smallest and largest of per-conversation any@10 and their standard deviation. */
export function spread(outcomes: readonly QuestionOutcome[]): { min: number; max: number; sd: number; rates: Map<number, number> } {
	const rates = perConversation(outcomes);
	const values = [...rates.values()];
	const mean = values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
	const sd = Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, values.length - 1));
	return { min: Math.min(...values), max: Math.max(...values), sd, rates };
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
	/** The grid entry best on every conversation (the "all-in" choice), under the same rule. */
	readonly allIn: number;
}

export function crossValidate(byVariant: readonly (readonly QuestionOutcome[])[], n: number, k: number, rule: TransferRule = DEFAULT_RULE): CrossValidation {
	const all = new Set(Array.from({ length: n }, (_, i) => i));
	const heldOut: QuestionOutcome[] = [];
	const chosen: { test: number[]; variant: number }[] = [];
	for (const test of folds(n, k)) {
		const train = new Set([...all].filter((c) => !test.includes(c)));
		const variant = choose(byVariant, train, rule);
		chosen.push({ test, variant });
		heldOut.push(...byVariant[variant].filter((o) => test.includes(o.conversation)));
	}
	return { heldOut, chosen, allIn: choose(byVariant, all, rule) };
}
