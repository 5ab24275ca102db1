export { clamp01, linearFuse, minMax, rrfFuse, temporalScore, type FusedScore, type RankedIds } from "./fusion";
export { cohesionScores, expandNeighbours, findAnchors, graphSignals, GraphWalker, nameWords, type GraphRerankSettings, type GraphSignal, type NodeRef } from "./graph-rerank";
export {
	DEFAULT_SEARCH_SETTINGS,
	HybridSearch,
	createHybridSearch,
	trustOf,
	type FusionMode,
	type HybridSearchDeps,
	type SearchHit,
	type SearchOutcome,
	type SearchOptions,
	type SearchSettings,
	type SignalScores,
} from "./hybrid-search";
export { EMBEDDING_MODEL_META, reindex, type ReindexDeps, type ReindexOptions, type ReindexProgress, type ReindexReason, type ReindexReport } from "./reindex";
