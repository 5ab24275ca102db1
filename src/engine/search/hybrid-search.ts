import type { Clock } from "../clock";
import { embedderIdentity, embedQuery, readsEnglishOnly } from "../embedding/dimensions";
import { queryLanguage } from "../embedding/text-language";
import { EMBEDDING_MODEL_META } from "../embedding/vector-model";
import { isNullEmbedder, NO_EMBEDDER_REASON } from "../embedding/null-embedding-provider";
import { errorMessage } from "../errors";
import { isArchived, nodeConfidence } from "../node-text";
import type { EmbeddingProvider, GraphReads, PassageHit, VectorReads } from "../protocols";
import { isFullScope } from "../scope";
import type { FulltextHit, NodeRecord, PartialScope } from "../types";
import { TRUST_LEVELS } from "../write/write-pipeline";
import { feedbackTerms } from "./feedback";
import { clamp01, linearFuse, rrfFuse, temporalScore, type FusedScore } from "./fusion";
import { expandNeighbours, graphSignals, GraphWalker, nameWords, queryNames, type GraphSignal, type NodeRef } from "./graph-rerank";
import { nameRarity, RarityCache } from "./name-rarity";
import { withNeighbourWords } from "./neighbour-words";
import { mergeFulltextHits, mergeNodeAndPassageRanks, passagesByNode } from "./passage-hits";
import { keywordQuery, stemmedKeywordQuery } from "./query-text";
import { withSynonyms, type SynonymSource } from "./synonyms";
import { dayRangeFromInput, gapDays, itemRanges, MENTIONED_DATES, overlaps, queryTimeCues, type DayRange } from "../temporal/time-mentions";
import { DEFAULT_SEARCH_SETTINGS, type FusionMode, type SearchOptions, type SearchSettings } from "./search-options";

export { DEFAULT_SEARCH_SETTINGS, type FusionMode, type SearchOptions, type SearchSettings } from "./search-options";

/** A candidate's rank in each list that fusion saw. */
type ChannelRanks = { fulltextRank?: number; vectorRank?: number; feedbackRank?: number };

/** Every signal that went into a score, for explanations and benchmarks. */
export interface SignalScores {
	/** bm25 relative to the best fulltext hit (0 when absent). */
	readonly fulltext: number;
	/** Cosine similarity (0 when absent). */
	readonly vector: number;
	/** The fused base in [0, 1]: RRF, or the linear blend in legacy mode. */
	readonly fusion: number;
	readonly graph: number;
	readonly cohesion: number;
	readonly anchor: number;
	readonly temporal: number;
	readonly trust: number;
	/** How near the item's dates are to the dates the query names, in [0, 1] (0: the query names none). */
	readonly date: number;
	/** 1 when the query asks when and the item's text mentions a date. */
	readonly when: number;
	/** Taken off by the hub penalty (0 when it did not apply). */
	readonly penalty: number;
	/** 1 when the query is the node's name or an alias. */
	readonly name: number;
	/** 1 when the model reads English only and the query is in another language (the vector channel weighs foreignVectorShare); absent otherwise. */
	readonly languageMismatch?: number;
	readonly fulltextRank?: number;
	readonly vectorRank?: number;
	/** Rank in the answer of the pseudo-relevance feedback query (absent when off or not found by it). */
	readonly feedbackRank?: number;
}

export interface SearchHit {
	readonly node: NodeRecord;
	readonly score: number;
	readonly signals: SignalScores;
	/** The note's passages that matched (by words first, then by meaning), best first. */
	readonly passages?: readonly PassageHit[];
}

export interface SearchOutcome {
	readonly hits: readonly SearchHit[];
	readonly fusion: FusionMode;
	/** True when the vector channel was wanted but could not answer. */
	readonly degraded: boolean;
	/** Why the vector channel is missing, naming the cause. */
	readonly reason?: string;
	/** The same, as a code a user interface can phrase for its readers. */
	readonly cause?: DegradedCause;
	/** Nodes the query named (anchors of the graph term). */
	readonly anchors: readonly string[];
}

export interface HybridSearchDeps {
	readonly graph: GraphReads;
	readonly vectors: VectorReads | null;
	readonly embedder: EmbeddingProvider | null;
	readonly clock: Clock;
	readonly settings?: Partial<SearchSettings>;
	/** A lexical resource for synonym expansion of the fulltext query (settings.synonymsPerWord). */
	readonly synonyms?: SynonymSource;
}

interface Candidate {
	readonly node: NodeRecord;
	fulltext?: number;
	vector?: number;
}

/** Why search answered without its vector channel. */
export type DegradedCause = "no_embedder" | "no_vector_store" | "embedder_failed" | "no_vectors" | "dimension_mismatch" | "model_changed" | "vector_store_failed";

/** HybridSearch.vectorShare: how much the vector channel counts for one query, and whether it is asked at all. */
interface VectorShare {
	/** The model reads English only and the query is in another language. */
	readonly mismatch: boolean;
	/** The vector list's RRF weight and the factor on its cosine term (foreignVectorShare on a mismatch, else 1). */
	readonly weight: number;
	/** False when nothing the channel could find would count: no query is embedded and no vector read. */
	readonly ask: boolean;
}

interface VectorAnswer {
	readonly hits: readonly { readonly nodeId: string; readonly similarity: number }[];
	/** Passages nearest the query (their nodes are merged into `hits`). */
	readonly passages?: readonly PassageHit[];
	readonly reason?: string;
	readonly cause?: DegradedCause;
}

/**
 * Hybrid search over the protocols: a fulltext channel and a vector channel (top channelK each),
 * fused by RRF (or the legacy linear blend), plus each channel's own score (bm25 share, cosine), then
 * β·graph + γ·temporal + δ·trust. Without an
 * embedder, or when it fails, fulltext still answers and the outcome says why it is degraded.
 */
export class HybridSearch {
	readonly settings: SearchSettings;
	/** How rare the words of names are (the anchor term's weight), kept between searches. */
	private readonly rarities: RarityCache;

	constructor(private readonly deps: HybridSearchDeps) {
		this.settings = { ...DEFAULT_SEARCH_SETTINGS, ...stripUndefined(deps.settings ?? {}) };
		this.rarities = new RarityCache(() => deps.clock.now().getTime());
	}

	/** `request.labels` must be canonical (Memory.search resolves them against the profile). */
	async search(scope: PartialScope, query: string, request: SearchOptions = {}): Promise<SearchOutcome> {
		const s = this.settings;
		const during = dayRangeFromInput(request.dateFrom, request.dateTo);
		const fusion = request.fusion ?? s.fusion;
		const text = query.trim().slice(0, s.maxQueryChars);
		const limit = Math.max(1, Math.min(request.limit ?? 10, 200));
		const wantFulltext = request.channels?.fulltext ?? true;
		const wantVector = request.channels?.vector ?? true;
		if (!isFullScope(scope) || text === "" || (!wantFulltext && !wantVector)) {
			return { hits: [], fusion, degraded: false, anchors: [] };
		}

		const filtered = (request.labels?.length ?? 0) > 0 || request.validAt !== undefined || during !== undefined;
		const fulltextK = s.fulltextK > 0 ? s.fulltextK : s.channelK;
		const vectorK = s.vectorK > 0 ? s.vectorK : s.channelK;
		// Filters run after the vector channel, so ask for more when they may remove hits.
		const over = filtered ? 3 : 1;
		// A walk of the graph: off with the graph term for the call (plain words, the fulltext-only mode).
		const neighbours = s.neighbourWordsWeight > 0 && s.neighbourWordsHops > 0 && (request.graph ?? s.graphRerank);
		const words = { text: this.fulltextQuery(text), limit: fulltextK * over, labels: request.labels, prefix: s.fulltextPrefix };
		// Neighbour words read more items (notes, the passages' owners, take no part in it).
		const nodeWords = neighbours ? { ...words, limit: Math.max(fulltextK, s.neighbourWordsPool) * over } : words;
		const store = this.deps.graph;
		const walker = new GraphWalker(this.deps.graph, scope, s.fanOutCap);
		const share = this.vectorShare(text, { fulltext: wantFulltext, vector: wantVector }, fusion, vectorK);
		const [nodeHits, passageHits, vectorAnswer] = await Promise.all([
			wantFulltext ? store.fulltext(scope, nodeWords) : Promise.resolve([]),
			// A note's sections count for its node (passage-hits.ts).
			wantFulltext && store.searchPassages ? store.searchPassages(scope, { ...words, limit: words.limit * 2 }) : Promise.resolve([]),
			wantVector ? this.vectorChannel(scope, text, vectorK * over, share.ask) : Promise.resolve<VectorAnswer>({ hits: [] }),
		]);
		const merged = await mergeFulltextHits(store, scope, nodeHits, passageHits, text);
		const fulltextHits = neighbours ? await this.neighbourWords(scope, walker, merged, vectorAnswer.hits.slice(0, vectorK * over), nodeWords.limit) : merged;
		const passages = passagesByNode(passageHits, vectorAnswer.passages ?? []);

		const keep = (node: NodeRecord) => !isArchived(node) && matchesFilters(node, request, during);
		const candidates = new Map<string, Candidate>();
		const fulltextIds: string[] = [];
		for (const hit of fulltextHits) {
			if (fulltextIds.length >= fulltextK || !keep(hit.node) || candidates.has(hit.node.id)) continue;
			candidates.set(hit.node.id, { node: hit.node, fulltext: hit.score });
			fulltextIds.push(hit.node.id);
		}
		const vectorIds: string[] = [];
		const unread = vectorAnswer.hits.filter((hit) => !candidates.has(hit.nodeId)).map((hit) => hit.nodeId);
		const read = unread.length > 0 ? await store.getNodesByIds(scope, unread) : new Map<string, NodeRecord>();
		for (const hit of vectorAnswer.hits) {
			if (vectorIds.length >= vectorK) break;
			const known = candidates.get(hit.nodeId);
			const node = known?.node ?? read.get(hit.nodeId);
			if (!node || !keep(node)) continue;
			if (known) known.vector = hit.similarity;
			else candidates.set(node.id, { node, vector: hit.similarity });
			vectorIds.push(node.id);
		}

		const feedbackIds =
			fusion === "rrf" && wantFulltext && s.feedbackDocs > 0 && s.feedbackTerms > 0 && candidates.size > 0
				? await this.feedbackChannel(scope, text, rrfFuse(fulltextIds, vectorIds, s.rrfK, undefined, share.weight), candidates, fulltextK, over, request, keep)
				: [];
		const { base, ranks } = this.fuse(fusion, fulltextIds, vectorIds, candidates, feedbackIds, share.weight);

		let graph = new Map<string, GraphSignal>();
		let anchors: NodeRef[] = [];
		const useGraph = (request.graph ?? s.graphRerank) && base.size > 0 && s.graphHops > 0;
		if (useGraph && s.graphExpand > 0) {
			const added = await expandNeighbours(walker, base, s.graphExpand, s.expandDecay);
			const read = await store.getNodesByIds(scope, [...added.keys()]);
			for (const [id, score] of added) {
				const node = read.get(id);
				if (!node || !keep(node)) continue;
				candidates.set(id, { node });
				base.set(id, score);
			}
		}
		if (useGraph) {
			const nodes = new Map([...candidates].map(([id, c]) => [id, c.node]));
			({ signals: graph, anchors } = await graphSignals(walker, text, base, nodes, {
				hops: s.graphHops,
				fanOutCap: s.fanOutCap,
				cohesionDecay: s.cohesionDecay,
				anchorWeight: s.anchorWeight,
			}, nameRarity(this.deps.graph, scope, this.rarities)));
		}

		const hits = this.score(text, request.temporal ?? true, base, candidates, graph, ranks, fulltextHits[0]?.score ?? 0, share);
		const degraded = wantVector && vectorAnswer.reason !== undefined;
		const page = useGraph && s.hubPenalty > 0 ? await penaliseHubs(walker, hits, limit, s.hubPenalty) : hits.slice(0, limit);
		return {
			hits: page.map((hit) => (passages.has(hit.node.id) ? { ...hit, passages: passages.get(hit.node.id) } : hit)),
			fusion,
			degraded,
			...(degraded ? { reason: vectorAnswer.reason, cause: vectorAnswer.cause } : {}),
			anchors: anchors.map((a) => a.id),
		};
	}

	/** The words hits with neighbour words; the lists of the vector candidates (the graph term reads them next) come in the walk's read. */
	private neighbourWords(scope: PartialScope, walker: GraphWalker, hits: readonly FulltextHit[], vectorHits: VectorAnswer["hits"], limit: number): Promise<FulltextHit[]> {
		const s = this.settings;
		const next = s.graphHops > 0 ? vectorHits.map((h) => h.nodeId) : [];
		return withNeighbourWords(hits, walker, (ids) => this.deps.graph.getNodesByIds(scope, ids), { weight: s.neighbourWordsWeight, hops: s.neighbourWordsHops }, limit, next);
	}

	/** What the fulltext channel looks for: content words (as stems), plus their synonyms when a source is given and asked for. */
	private fulltextQuery(text: string): string {
		const s = this.settings;
		const words = s.fulltextPrefix ? stemmedKeywordQuery(text) : keywordQuery(text);
		const source = this.deps.synonyms;
		return source && s.synonymsPerWord > 0 ? withSynonyms(words, text, source, s.synonymsPerWord, s.fulltextPrefix) : words;
	}

	/**
	 * The vector channel's share of this query, decided once before any channel runs. A mismatch: the
	 * model reads English only and the query is in another language, so its vectors of that text say
	 * little (an English model ranked the Spanish notes' answers below plain BM25). Under RRF the share
	 * weighs both the vector list and its cosine term: at 0 nothing the channel finds scores (its own
	 * candidates would only trail the page at a fused 0, and take part in the graph term's scaling), so
	 * it is not asked: embedding the query and scanning every vector are most of a search's CPU. The
	 * linear blend ignores the share (alpha weighs the channel), so it still asks; so does a caller that
	 * turned the words off (the vectors are all it asked for: their ranks order the page on ties).
	 */
	private vectorShare(text: string, channels: { readonly fulltext: boolean; readonly vector: boolean }, fusion: FusionMode, vectorK: number): VectorShare {
		const wantVector = channels.vector;
		const { embedder } = this.deps;
		const mismatch = wantVector && embedder !== null && !isNullEmbedder(embedder) && readsEnglishOnly(embedder.model) && queryLanguage(text) === "other";
		const weight = mismatch ? this.settings.foreignVectorShare : 1;
		return { mismatch, weight, ask: wantVector && vectorK > 0 && (fusion === "linear" || weight > 0 || !channels.fulltext) };
	}

	/** The fused base of each candidate (RRF, or the linear blend; `vectorShare`: the vector list's RRF weight) and its rank in each channel. */
	private fuse(
		fusion: FusionMode,
		fulltextIds: readonly string[],
		vectorIds: readonly string[],
		candidates: ReadonlyMap<string, Candidate>,
		feedbackIds: readonly string[],
		vectorShare: number,
	) {
		const s = this.settings;
		const base = new Map<string, number>();
		const ranks = new Map<string, ChannelRanks>();
		if (fusion === "rrf") {
			const feedback = feedbackIds.length > 0 ? { ids: feedbackIds, weight: s.feedbackWeight } : undefined;
			for (const [id, fused] of rrfFuse(fulltextIds, vectorIds, s.rrfK, feedback, vectorShare)) {
				base.set(id, fused.score);
				ranks.set(id, { fulltextRank: fused.fulltextRank, vectorRank: fused.vectorRank, ...(fused.feedbackRank ? { feedbackRank: fused.feedbackRank } : {}) });
			}
		} else {
			const f = new Map(fulltextIds.map((id) => [id, candidates.get(id)?.fulltext ?? 0]));
			const v = new Map(vectorIds.map((id) => [id, candidates.get(id)?.vector ?? 0]));
			for (const [id, blended] of linearFuse(f, v, s.alpha)) base.set(id, blended.score);
			fulltextIds.forEach((id, i) => ranks.set(id, { fulltextRank: i + 1 }));
			vectorIds.forEach((id, i) => ranks.set(id, { ...ranks.get(id), vectorRank: i + 1 }));
		}
		return { base, ranks };
	}

	/** Base + the channels' scores + β·graph + γ·temporal + δ·trust (+ the date and when cues) for every fused candidate, best first. */
	private score(
		text: string,
		withTime: boolean,
		base: ReadonlyMap<string, number>,
		candidates: ReadonlyMap<string, Candidate>,
		graph: ReadonlyMap<string, GraphSignal>,
		ranks: ReadonlyMap<string, ChannelRanks>,
		topFulltext: number,
		share: VectorShare,
	): SearchHit[] {
		const s = this.settings;
		const vectorWeight = s.vectorWeight * share.weight;
		const now = this.deps.clock.now();
		// Computed even at weight 0, so every result reports its date and when signals.
		const cues = withTime ? queryTimeCues(text, now) : { ranges: [], asksWhen: false };
		const queryWords = nameWords(text);
		const hits: SearchHit[] = [];
		for (const [id, fused] of base) {
			const candidate = candidates.get(id);
			if (!candidate) continue;
			const g = graph.get(id);
			const temporal = temporalScore(nodeConfidence(candidate.node), candidate.node.updatedAt, now, s.halfLifeDays);
			const trust = trustOf(candidate.node);
			const date = dateNearness(candidate.node, cues.ranges);
			const when = cues.asksWhen && mentionsDate(candidate.node) ? 1 : 0;
			const name = queryNames(queryWords, candidate.node) ? 1 : 0;
			const words = candidate.fulltext !== undefined && topFulltext > 0 ? clamp01(candidate.fulltext / topFulltext) : 0;
			const vector = candidate.vector ?? 0;
			const score =
				fused +
				s.fulltextWeight * words +
				vectorWeight * vector +
				s.nameWeight * name +
				s.graphWeight * (g?.graph ?? 0) +
				(withTime ? s.temporalWeight * temporal + s.trustWeight * trust + s.dateCueWeight * date + s.whenWeight * when : 0);
			hits.push({
				node: candidate.node,
				score,
				signals: {
					fulltext: words,
					vector,
					fusion: fused,
					graph: g?.graph ?? 0,
					cohesion: g?.cohesion ?? 0,
					anchor: g?.anchor ?? 0,
					temporal,
					trust,
					date,
					when,
					penalty: 0,
					name,
					...(share.mismatch ? { languageMismatch: 1 } : {}),
					...ranks.get(id),
				},
			});
		}
		hits.sort(compareHits);
		return hits;
	}

	/**
	 * Pseudo-relevance feedback: words the best fused candidates share (and the rest of the window
	 * does not) make a second fulltext query; its answer joins the candidates, ids best first.
	 */
	private async feedbackChannel(
		scope: PartialScope,
		text: string,
		fused: ReadonlyMap<string, FusedScore>,
		candidates: Map<string, Candidate>,
		fulltextK: number,
		over: number,
		request: SearchOptions,
		keep: (node: NodeRecord) => boolean,
	): Promise<string[]> {
		const s = this.settings;
		const order = [...fused].sort((a, b) => b[1].score - a[1].score || a[0].localeCompare(b[0])).map(([id]) => id);
		const nodeOf = (id: string) => candidates.get(id)?.node;
		const top = order.slice(0, s.feedbackDocs).map(nodeOf).filter((n): n is NodeRecord => n !== undefined);
		const window = order.map(nodeOf).filter((n): n is NodeRecord => n !== undefined);
		const terms = feedbackTerms(text, top, window, s.feedbackTerms);
		if (terms.length === 0) return [];
		const hits = await this.deps.graph.fulltext(scope, { text: terms.join(" "), limit: fulltextK * over, labels: request.labels, prefix: s.fulltextPrefix });
		const ids: string[] = [];
		for (const hit of hits) {
			if (ids.length >= fulltextK || !keep(hit.node)) continue;
			if (!candidates.has(hit.node.id)) candidates.set(hit.node.id, { node: hit.node });
			if (!ids.includes(hit.node.id)) ids.push(hit.node.id);
		}
		return ids;
	}

	/**
	 * What the next search will answer for mode and degraded, found without embedding anything
	 * (engrama_status): the same causes and reasons as `search`, but an embedder that would fail
	 * at the call is only found by the call.
	 */
	async readiness(): Promise<SearchReadiness> {
		const fusion = this.settings.fusion;
		const state = await this.vectorState();
		return "cause" in state ? { fusion, degraded: true, ...state } : { fusion, degraded: false };
	}

	/** What the memory lacks for the vector channel, found without embedding anything (readiness, and a search that does not ask the channel). */
	private async vectorState(): Promise<VectorsReady | Degraded> {
		const { embedder, vectors } = this.deps;
		if (isNullEmbedder(embedder) || !embedder) return { reason: NO_EMBEDDER_REASON, cause: "no_embedder" };
		if (!vectors) return { reason: NO_VECTOR_STORE, cause: "no_vector_store" };
		const stored = await vectors.dimensions();
		if (stored === 0) return { reason: NO_VECTORS_YET, cause: "no_vectors" };
		if (embedder.dimensions > 0 && embedder.dimensions !== stored) return { reason: dimensionMismatch(embedder, embedder.dimensions, stored), cause: "dimension_mismatch" };
		return { embedder };
	}

	/**
	 * The vector channel, or the reason it cannot answer (never throws for an embedder fault). The
	 * query is embedded before the store is asked: when the embedder is down that is the cause a
	 * person must fix first (reindex would fail on it too), even in a memory with no vectors yet.
	 */
	private async vectorChannel(scope: PartialScope, text: string, k: number, ask: boolean): Promise<VectorAnswer> {
		if (!ask) return this.unaskedVectors();
		const { embedder, vectors } = this.deps;
		if (isNullEmbedder(embedder) || !embedder) return { hits: [], reason: NO_EMBEDDER_REASON, cause: "no_embedder" };
		if (!vectors) return { hits: [], reason: NO_VECTOR_STORE, cause: "no_vector_store" };
		let query: Float32Array;
		try {
			query = await embedQuery(embedder, text);
		} catch (error) {
			return { hits: [], reason: `the ${embedder.name} embedder failed, so results are fulltext only: ${errorMessage(error)}`, cause: "embedder_failed" };
		}
		try {
			const stored = await vectors.dimensions();
			if (stored === 0) return { hits: [], reason: NO_VECTORS_YET, cause: "no_vectors" };
			if (query.length !== stored) return { hits: [], reason: dimensionMismatch(embedder, query.length, stored), cause: "dimension_mismatch" };
			// The scan goes out with the model check (on a server, one round trip instead of two); its
			// hits, or its failure, count only when the model is the one that made the vectors.
			const scan = Promise.all([vectors.knn(scope, query, k), this.deps.graph.passageKnn?.(scope, query, k * 2) ?? []]);
			scan.catch(() => undefined);
			const changed = await this.modelChanged(embedder);
			if (changed) return { hits: [], ...changed };
			const [nodeHits, passageHits] = await scan;
			const merged = mergeNodeAndPassageRanks(
				nodeHits.map((h) => ({ id: h.nodeId, score: h.similarity })),
				passageHits,
			);
			return { hits: merged.map((m) => ({ nodeId: m.id, similarity: m.score })), passages: passageHits };
		} catch (error) {
			return { hits: [], reason: vectorStoreFailed(error), cause: "vector_store_failed" };
		}
	}

	/**
	 * The vector channel not asked (it would count for nothing, `vectorShare`): no query embedded, no
	 * vector read, but what the memory lacks for vectors is still said, as for any other query. An
	 * embedder that would fail is only found by a call, so it is not said here.
	 */
	private async unaskedVectors(): Promise<VectorAnswer> {
		try {
			const state = await this.vectorState();
			if ("cause" in state) return { hits: [], ...state };
			const changed = await this.modelChanged(state.embedder);
			return changed ? { hits: [], ...changed } : { hits: [] };
		} catch (error) {
			return { hits: [], reason: vectorStoreFailed(error), cause: "vector_store_failed" };
		}
	}

	/** Same size, other model (all 384-d models look alike): its vectors would answer nonsense. */
	private async modelChanged(embedder: EmbeddingProvider): Promise<Degraded | null> {
		const recorded = await this.deps.graph.getMeta(EMBEDDING_MODEL_META);
		if (recorded === null || recorded === embedderIdentity(embedder)) return null;
		return {
			reason: `the memory's vectors were made by ${recorded}, but the embedder is ${embedderIdentity(embedder)}: results are fulltext only until the memory is embedded again ("engrama reindex --apply"; in Obsidian the command Re-embed missing vectors).`,
			cause: "model_changed",
		};
	}
}

/** Why the vector channel cannot answer, as `SearchOutcome` words it. */
interface Degraded {
	readonly reason: string;
	readonly cause: DegradedCause;
}

/** An embedder whose size the stored vectors have (as far as it declares one). */
interface VectorsReady {
	readonly embedder: EmbeddingProvider;
}

function vectorStoreFailed(error: unknown): string {
	return `the vector store failed, so results are fulltext only: ${errorMessage(error)}`;
}

/** `HybridSearch.readiness`: the mode and degradation the next search will report. */
export interface SearchReadiness {
	readonly fusion: FusionMode;
	readonly degraded: boolean;
	readonly reason?: string;
	readonly cause?: DegradedCause;
}

const NO_VECTOR_STORE = "no vector store is configured (VECTOR_BACKEND=none): fulltext only.";
const NO_VECTORS_YET = 'the memory holds no vectors yet: run "engrama reindex --apply" to embed the existing nodes.';

function dimensionMismatch(embedder: EmbeddingProvider, given: number, stored: number): string {
	return `dimension mismatch: the ${embedder.name} embedder (${embedder.model}) gives ${given}-dimensional vectors but the memory holds ${stored}-dimensional ones. Run "engrama reindex --rebuild --apply".`;
}

export function createHybridSearch(deps: HybridSearchDeps): HybridSearch {
	return new HybridSearch(deps);
}

/** Best first; ties go to the fused base, then the channel ranks, then the id (stable across runs). */
export function compareHits(a: SearchHit, b: SearchHit): number {
	return (
		b.score - a.score ||
		b.signals.fusion - a.signals.fusion ||
		(a.signals.fulltextRank ?? Infinity) - (b.signals.fulltextRank ?? Infinity) ||
		(a.signals.vectorRank ?? Infinity) - (b.signals.vectorRank ?? Infinity) ||
		a.node.id.localeCompare(b.node.id)
	);
}

/** Stored trust_level, else the level of the node's source, else full trust (hand-made files). */
export function trustOf(node: NodeRecord): number {
	const level = node.props.trust_level;
	if (typeof level === "number" && Number.isFinite(level)) return clamp01(level);
	const source = node.props.source;
	if (typeof source === "string" && source in TRUST_LEVELS) return TRUST_LEVELS[source as keyof typeof TRUST_LEVELS];
	return 1;
}

function matchesFilters(node: NodeRecord, request: SearchOptions, during: DayRange | undefined): boolean {
	if (request.labels && request.labels.length > 0 && !request.labels.includes(node.label)) return false;
	if (request.validAt !== undefined) {
		const at = Date.parse(request.validAt);
		const from = typeof node.props.valid_from === "string" ? Date.parse(node.props.valid_from) : Number.NaN;
		const to = typeof node.props.valid_to === "string" ? Date.parse(node.props.valid_to) : Number.NaN;
		if (Number.isFinite(from) && from > at) return false;
		if (Number.isFinite(to) && to < at) return false;
	}
	if (during !== undefined) {
		if (!itemRanges(node).some((r) => overlaps(r, during))) return false;
	}
	return true;
}

/** Hubs lose `hubPenalty` (known from the lists the graph term read), then the page is re-sorted. */
async function penaliseHubs(walker: GraphWalker, hits: readonly SearchHit[], limit: number, hubPenalty: number): Promise<SearchHit[]> {
	const out: SearchHit[] = [];
	for (const hit of hits) {
		const hub = await walker.isHub(hit.node.id);
		out.push(hub ? { ...hit, score: hit.score - hubPenalty, signals: { ...hit.signals, penalty: hubPenalty } } : hit);
	}
	return out.sort(compareHits).slice(0, limit);
}

/** 1 when one of the item's dates meets one the query names, falling off over weeks; 0 when the query names none. */
function dateNearness(node: NodeRecord, query: readonly DayRange[]): number {
	if (query.length === 0) return 0;
	let best = 0;
	for (const r of itemRanges(node)) for (const q of query) best = Math.max(best, 1 / (1 + gapDays(r, q) / 7));
	return best;
}

function mentionsDate(node: NodeRecord): boolean {
	const m = node.props[MENTIONED_DATES];
	return Array.isArray(m) && m.length > 0;
}

function stripUndefined<T extends object>(value: T): Partial<T> {
	return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
