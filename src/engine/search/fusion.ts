import { temporalScore } from "../temporal/dates";

/** Defined with the other time arithmetic (temporal/dates.ts): decay reads it too, and temporal sits below search. */
export { temporalScore };

/**
 * The ranking maths of hybrid search, pure and deterministic: Reciprocal Rank Fusion, the
 * legacy linear blend, and the temporal and trust terms.
 */

/** One channel's answer, best first. */
export type RankedIds = readonly string[];

export interface FusedScore {
	/** 1-based rank per channel; absent when the channel did not return the node. */
	readonly fulltextRank?: number;
	readonly vectorRank?: number;
	/** Rank in the pseudo-relevance feedback query's answer. */
	readonly feedbackRank?: number;
	/** In [0, 1]. */
	readonly score: number;
}

function ranks(list: RankedIds): Map<string, number> {
	const out = new Map<string, number>();
	list.forEach((id, i) => {
		if (!out.has(id)) out.set(id, i + 1);
	});
	return out;
}

/** A third list fused at a lower weight: the answer of the pseudo-relevance feedback query. */
export interface WeightedList {
	readonly ids: RankedIds;
	readonly weight: number;
}

/**
 * RRF: Σ over channels of weight/(k + rank) (weight 1 but for the feedback list and, when the
 * model is trusted less for the query, the vector list), divided by the best possible sum over the
 * lists that answered, so a node first in every answering list scores 1 and scores mean the same
 * thing whatever the window holds. Only ranks count: rescaling a channel's scores changes nothing.
 */
export function rrfFuse(fulltext: RankedIds, vector: RankedIds, k: number, feedback?: WeightedList, vectorWeight = 1): Map<string, FusedScore> {
	if (!(k > 0)) throw new RangeError(`RRF k must be positive, got ${k}.`);
	const f = ranks(fulltext);
	const v = ranks(vector);
	const p = ranks(feedback?.ids ?? []);
	const w = Math.max(0, feedback?.weight ?? 0);
	const vw = Math.max(0, vectorWeight);
	const best = ((f.size > 0 ? 1 : 0) + (v.size > 0 ? vw : 0) + (p.size > 0 ? w : 0)) / (k + 1);
	const out = new Map<string, FusedScore>();
	for (const id of [...f.keys(), ...v.keys(), ...p.keys()]) {
		if (out.has(id)) continue;
		const fr = f.get(id);
		const vr = v.get(id);
		const pr = p.get(id);
		const raw = (fr ? 1 / (k + fr) : 0) + (vr ? vw / (k + vr) : 0) + (pr ? w / (k + pr) : 0);
		out.set(id, { fulltextRank: fr, vectorRank: vr, ...(pr ? { feedbackRank: pr } : {}), score: best > 0 ? raw / best : 0 });
	}
	return out;
}

/** Min-max to [0, 1]; a single value or all-equal values map to 1 (nothing to tell apart). */
export function minMax(scores: ReadonlyMap<string, number>): Map<string, number> {
	const values = [...scores.values()];
	const lo = Math.min(...values);
	const hi = Math.max(...values);
	const out = new Map<string, number>();
	for (const [id, s] of scores) out.set(id, hi > lo ? (s - lo) / (hi - lo) : 1);
	return out;
}

/**
 * The legacy blend: α·vector + (1−α)·fulltext, each channel min-max normalised. α is forced to 0
 * without a vector answer and to 1 without a fulltext answer, as the Python engine does.
 */
export function linearFuse(
	fulltext: ReadonlyMap<string, number>,
	vector: ReadonlyMap<string, number>,
	alpha: number,
): Map<string, { fulltext: number; vector: number; score: number }> {
	const a = vector.size === 0 ? 0 : fulltext.size === 0 ? 1 : alpha;
	const f = fulltext.size > 0 ? minMax(fulltext) : new Map<string, number>();
	const v = vector.size > 0 ? minMax(vector) : new Map<string, number>();
	const out = new Map<string, { fulltext: number; vector: number; score: number }>();
	for (const id of new Set([...f.keys(), ...v.keys()])) {
		const fs = f.get(id) ?? 0;
		const vs = v.get(id) ?? 0;
		out.set(id, { fulltext: fs, vector: vs, score: a * vs + (1 - a) * fs });
	}
	return out;
}

export function clamp01(x: number): number {
	return x < 0 ? 0 : x > 1 ? 1 : Number.isFinite(x) ? x : 0;
}
