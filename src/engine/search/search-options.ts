/** How the fulltext and vector channels are fused: reciprocal rank (default) or the legacy linear blend. */
export type FusionMode = "rrf" | "linear";

/**
 * What a caller may ask of a search, besides the text: one type from the CLI, the MCP tool and the
 * plugin through skills.search and Memory.search down to HybridSearch.
 */
export interface SearchOptions {
	readonly limit?: number;
	/** Any case at Memory.search (resolved against the profile); canonical at HybridSearch. */
	readonly labels?: readonly string[];
	/** Only nodes valid at this instant: valid_from ≤ t and (no valid_to or valid_to ≥ t). */
	readonly validAt?: string;
	/** Only items dated (valid_from) or mentioning a date on or after this day (YYYY-MM-DD). */
	readonly dateFrom?: string;
	/** … on or before this day. */
	readonly dateTo?: string;
	readonly fusion?: FusionMode;
	/** Graph rerank on/off for this call (default: settings.graphRerank). */
	readonly graph?: boolean;
	/** Temporal and trust terms on/off (default on). */
	readonly temporal?: boolean;
	/** Channels to run (default both). Turning one off is a choice, not a degradation. */
	readonly channels?: { readonly fulltext?: boolean; readonly vector?: boolean };
}

/** Tuning knobs; defaults are the spec's (§6). */
export interface SearchSettings {
	readonly fusion: FusionMode;
	/** RRF constant (ENGRAMA_RRF_K). */
	readonly rrfK: number;
	/** Candidates per channel. */
	readonly channelK: number;
	/** Candidates of the fulltext channel; 0: channelK. */
	readonly fulltextK: number;
	/** Candidates of the vector channel; 0: channelK. */
	readonly vectorK: number;
	readonly graphRerank: boolean;
	/** BFS depth of the graph term: 1 or 2 (more counts as 2). */
	readonly graphHops: number;
	readonly fanOutCap: number;
	readonly cohesionDecay: number;
	readonly anchorWeight: number;
	/** Neighbours of this many top candidates join the window (0: rerank only). */
	readonly graphExpand: number;
	/** An added neighbour starts at its parent's fused score × this. */
	readonly expandDecay: number;
	/** Linear mode: weight of the vector channel. */
	readonly alpha: number;
	/** β, γ, δ. */
	readonly graphWeight: number;
	readonly temporalWeight: number;
	readonly trustWeight: number;
	readonly halfLifeDays: number;
	/** Fulltext matches word stems as prefixes ("research" finds "researching"). */
	readonly fulltextPrefix: boolean;
	/** Longer queries are cut before they reach the channels. */
	readonly maxQueryChars: number;
	/** Weight of the date term: the query names a date ("in May 2023") and the item's date or a date it mentions is near it. */
	readonly dateCueWeight: number;
	/** Weight of the "when" term: the query asks when ("When did…") and the item's text mentions a date. */
	readonly whenWeight: number;
	/** Subtracted from hubs (more relations than fanOutCap: people, sessions everything links to), so they do not crowd the page. */
	readonly hubPenalty: number;
	/** Weight of the name term: the query is the node's name or an alias (graph-rerank.ts, queryNames). */
	readonly nameWeight: number;
	/** Weight of the words channel's own score (bm25 of node or passage over the best hit's): RRF keeps only ranks. */
	readonly fulltextWeight: number;
	/** Weight of the vector channel's cosine similarity. */
	readonly vectorWeight: number;
	/** The vector channel's share (its RRF weight and cosine term) when the model reads English only and the query is in another language. */
	readonly foreignVectorShare: number;
	/** Pseudo-relevance feedback (RRF only): the best this many fused candidates give words for a second fulltext query (0: off). */
	readonly feedbackDocs: number;
	/** Words taken from them. */
	readonly feedbackTerms: number;
	/** RRF weight of the feedback query's answer (the channels weigh 1). */
	readonly feedbackWeight: number;
	/** Synonyms of each query word added to the fulltext query (needs HybridSearchDeps.synonyms; 0: off). */
	readonly synonymsPerWord: number;
	/** Share of the words score of items of the same label nearby (a conversation's turns) an item takes in (neighbour-words.ts; 0: off). */
	readonly neighbourWordsWeight: number;
	/** How many relations away those items may be. */
	readonly neighbourWordsHops: number;
	/** Words hits read for it (the channel keeps its fulltextK best after). */
	readonly neighbourWordsPool: number;
}

export const DEFAULT_SEARCH_SETTINGS: SearchSettings = {
	fusion: "rrf",
	// 30 rather than 60, with the channels' own scores at 0.2 (#38): chosen leaving one corpus out of the retrieval gym;
	// the wider rank gaps keep the graph term from lifting a weak match over a far better one (docs/benchmarks-search.md).
	rrfK: 30,
	channelK: 20,
	fulltextK: 0,
	vectorK: 0,
	graphRerank: true,
	graphHops: 2,
	fanOutCap: 64,
	cohesionDecay: 0.5,
	// 1 rather than 0.5: +0.003 to +0.008 any@10 and +0.004 to +0.017 any@5 on LoCoMo with both
	// offline encoders, with and without turn context (docs/benchmarks-search.md), same latency.
	anchorWeight: 1,
	graphExpand: 0,
	expandDecay: 0.5,
	alpha: 0.6,
	// 0.05 rather than 0.15 (#38): chosen leaving one corpus out of the retrieval gym (LoCoMo, obsidian-hub,
	// the multilingual fixture, obsidian-tasks' docs, Spanish course notes), no fold chose 0.15, which
	// cost obsidian-hub 0.060 and the Spanish notes 0.100 of note hit@5 (docs/benchmarks-search.md).
	graphWeight: 0.05,
	temporalWeight: 0.1,
	trustWeight: 0.1,
	halfLifeDays: 30,
	fulltextPrefix: true,
	maxQueryChars: 2000,
	// Chosen by 7-fold cross-validation on LoCoMo (docs/benchmarks-search.md): every fold chose
	// these; held-out any@10 0.785 → 0.809 with all-MiniLM-L6-v2, 0.760 → 0.764 without a model.
	dateCueWeight: 0.1,
	whenWeight: 0.1,
	hubPenalty: 0.1,
	// Above what trust, recency and the graph can move (0.35 together): a search for "Billing Portal"
	// finds that node first, not a daily note whose short section mentions it (and ranks higher by
	// bm25). Questions are never a node's whole name: LoCoMo and the vault benchmarks do not move.
	nameWeight: 0.4,
	// RRF keeps only ranks: a note far ahead by its words (or its meaning) says so through these (#38, rrfK above).
	fulltextWeight: 0.2,
	vectorWeight: 0.2,
	// An English-only model's vectors of a Spanish question say little: with them at full share the
	// Spanish notes fell below plain BM25 (#38). Chosen leaving one corpus out (docs/benchmarks-search.md).
	foreignVectorShare: 0,
	feedbackDocs: 0,
	feedbackTerms: 8,
	feedbackWeight: 0.5,
	synonymsPerWord: 0,
	// A conversation's turn takes in half the words score of the turns up to two relations away (#38): LoCoMo any@10
	// 0.778 → 0.805 without a model (0.803 with the weight chosen leaving one conversation out), 0.810 → 0.819 with
	// all-MiniLM-L6-v2; notes take no part, so the vault corpora cannot move (docs/benchmarks-search.md).
	neighbourWordsWeight: 0.5,
	neighbourWordsHops: 2,
	neighbourWordsPool: 60,
};
