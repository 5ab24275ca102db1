/**
 * The default search's terms as the gym varies them. Every term is additive over the fused base
 * (hybrid-search.ts, score()), and every signal comes back with each hit, so one search per
 * question (limit 200: every candidate) is re-scored for any weights; `checkRescore` proves the
 * re-scored default is the engine's own page.
 */
import { compareHits, DEFAULT_SEARCH_SETTINGS, type SearchHit, type SearchSettings } from "../../../src/engine/search/hybrid-search";
import { clamp01 } from "../../../src/engine/search/fusion";

/** The weights of the terms, as in SearchSettings. */
export type Weights = Pick<
	SearchSettings,
	"nameWeight" | "graphWeight" | "anchorWeight" | "temporalWeight" | "trustWeight" | "dateCueWeight" | "whenWeight" | "hubPenalty" | "fulltextWeight" | "vectorWeight" | "foreignVectorShare" | "rrfK"
>;

export const DEFAULT_WEIGHTS: Weights = {
	nameWeight: DEFAULT_SEARCH_SETTINGS.nameWeight,
	graphWeight: DEFAULT_SEARCH_SETTINGS.graphWeight,
	anchorWeight: DEFAULT_SEARCH_SETTINGS.anchorWeight,
	temporalWeight: DEFAULT_SEARCH_SETTINGS.temporalWeight,
	trustWeight: DEFAULT_SEARCH_SETTINGS.trustWeight,
	dateCueWeight: DEFAULT_SEARCH_SETTINGS.dateCueWeight,
	whenWeight: DEFAULT_SEARCH_SETTINGS.whenWeight,
	hubPenalty: DEFAULT_SEARCH_SETTINGS.hubPenalty,
	fulltextWeight: DEFAULT_SEARCH_SETTINGS.fulltextWeight,
	vectorWeight: DEFAULT_SEARCH_SETTINGS.vectorWeight,
	foreignVectorShare: DEFAULT_SEARCH_SETTINGS.foreignVectorShare,
	rrfK: DEFAULT_SEARCH_SETTINGS.rrfK,
};

/** Every term of the default, by the name the table gives it, and the weight that switches it off. */
export const TERMS: Readonly<Record<string, Exclude<keyof Weights, "rrfK">>> = {
	name: "nameWeight",
	graph: "graphWeight",
	anchor: "anchorWeight",
	recency: "temporalWeight",
	trust: "trustWeight",
	date: "dateCueWeight",
	when: "whenWeight",
	hub: "hubPenalty",
	bm25: "fulltextWeight",
	cosine: "vectorWeight",
};

/** The weights each term may take when it is chosen by leave-one-corpus-out (0: off). */
export const GRID: Readonly<Record<keyof Weights, readonly number[]>> = {
	nameWeight: [0, 0.4],
	graphWeight: [0, 0.05, 0.1, 0.15],
	anchorWeight: [0, 0.5, 1],
	temporalWeight: [0, 0.05, 0.1],
	trustWeight: [0, 0.05, 0.1],
	dateCueWeight: [0, 0.1, 0.2],
	whenWeight: [0, 0.1, 0.2],
	hubPenalty: [0, 0.1],
	fulltextWeight: [0, 0.1, 0.2],
	vectorWeight: [0, 0.1, 0.2],
	// At the default share of 0 the engine does not ask the vector channel for a flagged query, so runs saved
	// then hold no vector ranks for it and every share re-scores alike: search again at a share above 0
	// (--settings '{"foreignVectorShare":1}') to compare shares.
	foreignVectorShare: [0, 0.25, 0.5, 1],
	rrfK: [60, 30],
};

/** A hit's score under other weights: the fused base plus each term, as HybridSearch.score and penaliseHubs add them. */
export function scoreWith(hit: SearchHit, w: Weights): number {
	const s = hit.signals;
	const graph = clamp01(s.cohesion + w.anchorWeight * s.anchor);
	const hub = s.penalty > 0 ? w.hubPenalty : 0;
	const terms = w.nameWeight * s.name + w.graphWeight * graph + w.temporalWeight * s.temporal + w.trustWeight * s.trust + w.dateCueWeight * s.date + w.whenWeight * s.when;
	return s.fusion + w.fulltextWeight * s.fulltext + w.vectorWeight * vectorShare(hit, w) * s.vector + terms - hub;
}

/** The vector channel's share for this hit's query: foreignVectorShare when the engine saw an English-only model and a query in another language. */
function vectorShare(hit: SearchHit, w: Weights): number {
	return hit.signals.languageMismatch ? w.foreignVectorShare : 1;
}

/**
 * The fused base of every hit again, from the channel ranks each hit kept (fusion.ts, rrfFuse), so
 * runs saved under another default's constant re-score right (pseudo-relevance feedback is off by default).
 */
function refuse(hits: readonly SearchHit[], rrfK: number, foreignVectorShare: number): SearchHit[] {
	const share = hits.some((h) => h.signals.languageMismatch) ? foreignVectorShare : 1;
	const lists = (hits.some((h) => h.signals.fulltextRank !== undefined) ? 1 : 0) + (hits.some((h) => h.signals.vectorRank !== undefined) ? share : 0);
	const best = lists / (rrfK + 1);
	const part = (rank: number | undefined, weight = 1) => (rank ? weight / (rrfK + rank) : 0);
	return hits.map((h) => ({ ...h, signals: { ...h.signals, fusion: best > 0 ? (part(h.signals.fulltextRank) + part(h.signals.vectorRank, share)) / best : 0 } }));
}

/** The page under other weights (the engine's order: score, then its tie-breaks). */
export function rescore(hits: readonly SearchHit[], w: Weights, k: number): SearchHit[] {
	return refuse(hits, w.rrfK, w.foreignVectorShare).map((h) => ({ ...h, score: scoreWith(h, w) })).sort(compareHits).slice(0, k);
}

/** The textbook constant of plain RRF (the baseline), whatever the default's. */
const PLAIN_RRF_K = 60;

/** Plain RRF over the same candidates: the fused base alone. */
export function plainFusion(hits: readonly SearchHit[], k: number): SearchHit[] {
	return refuse(hits, PLAIN_RRF_K, 1)
		.map((h) => ({ ...h, score: h.signals.fusion }))
		.sort(compareHits)
		.slice(0, k);
}

/** Pages where the re-scored default differs from the engine's (0 when the formula above is the engine's). */
export function checkRescore(hits: readonly SearchHit[], k: number): boolean {
	const mine = rescore(hits, DEFAULT_WEIGHTS, k).map((h) => h.node.id);
	return hits.slice(0, k).every((h, i) => h.node.id === mine[i]);
}
