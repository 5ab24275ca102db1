import type { FulltextQuery } from "../../engine/backend-kit";
import { isFullScope } from "../../engine/backend-kit";
import type { FulltextHit, PartialScope } from "../../engine/types";
import type { FtCorpusName, FtStats, Neo4jStoreContext } from "./store-context";
import {
	FT_SCOPE_PROPERTY,
	NODE_COLUMNS,
	PASSAGE_COLUMNS,
	bm25Clauses,
	ftDocument,
	idf,
	luceneMatch,
	phraseKey,
	phraseOf,
	phrasePattern,
	queryWords,
	labelWord,
	memoryWord,
	scopeWord,
	tokens,
	type FtWeightedColumn,
	type Phrase,
} from "./fts-query";
import type { CypherRunner } from "./neo4j-connection";
import { N, SIDE_SCOPE, type StoredMap, int, toRecord } from "./rows";
import { AWAIT_FULLTEXT, FULLTEXT_INDEX, NODE_LABEL, PASSAGE_FULLTEXT_INDEX, PASSAGE_LABEL } from "./schema";
import { CORPUS_KEY, TERM_LABEL, phraseTermKey } from "./term-counts";

/** The fulltext role (FulltextStore): Lucene finds candidates, Cypher ranks them as FTS5 does (tokens and bm25 in fts-query.ts). */

/** A fulltext "table": its documents' label, Lucene index and weighted token columns. */
export interface FtCorpus {
	readonly name: FtCorpusName;
	readonly label: string;
	readonly index: string;
	readonly columns: readonly FtWeightedColumn[];
	/** The Lucene clause that keeps to one memory, when its documents carry the memory's word (nodes). */
	readonly memoryClause?: (namespace: string) => string;
	/** The property holding the engrama_id of a document's node (the node's own, or its passage's link). */
	readonly nodeId: string;
}

export const NODE_CORPUS: FtCorpus = {
	name: "nodes",
	label: NODE_LABEL,
	index: FULLTEXT_INDEX,
	columns: NODE_COLUMNS,
	memoryClause: (namespace) => `+${FT_SCOPE_PROPERTY}:${memoryWord(namespace)}`,
	nodeId: "engrama_id",
};
export const PASSAGE_CORPUS: FtCorpus = { name: "passages", label: PASSAGE_LABEL, index: PASSAGE_FULLTEXT_INDEX, columns: PASSAGE_COLUMNS, nodeId: "node" };

/**
 * Cypher that collects a corpus's candidates for $query (Lucene's best $window) into `found`, as
 * variable `v`. It first waits for Lucene to hold every committed write (the indexes are
 * eventually consistent: a search still sees each acknowledged write). Inside a transaction that
 * wrote words, Lucene has only their committed version: those documents ($written, by node) are
 * read from the store instead, and scored on their words as the transaction left them.
 */
export function candidatesCypher(ctx: Neo4jStoreContext, corpus: FtCorpus, v: string, wide = false): { cypher: string; params: Record<string, unknown> } {
	const written = [...ctx.wordsWrittenInTransaction];
	const lucene = `${AWAIT_FULLTEXT}
		CALL db.index.fulltext.queryNodes($index, $query, {limit: $window}) YIELD node AS ${v}`;
	if (written.length === 0 && wide) return { cypher: wideCandidates(v), params: {} };
	if (written.length === 0) return { cypher: `${lucene}
		WITH collect(${v}) AS found, null AS alone`, params: {} };
	return {
		cypher: `${lucene}
		WITH ${v} WHERE NOT ${v}.${corpus.nodeId} IN $written
		WITH collect(${v}) AS lucene
		CALL { MATCH (${v}:${corpus.label} {__ns: $ns}) WHERE ${v}.${corpus.nodeId} IN $written RETURN collect(${v}) AS mine }
		WITH lucene + mine AS found, null AS alone`,
		params: { written },
	};
}

/**
 * Cypher for `found` when Lucene is first asked without the scope's word ($wideQuery): the scope
 * clause intersects every match with the scope's postings, half of Lucene's work for words in most
 * of a 50k memory (6-7 -> 3-4.5 ms of server CPU). When every document of that window is the
 * scope's (`alone`: a database holding one memory of one person), it is the scoped query's window:
 * the same matches with the same scores less the scope word's, which is the same for every document
 * (one term in a three-word field; float rounding could at most tie two nearly equal scores at the
 * window's edge, and prefix words' constant scores sum exactly). Otherwise the scoped query is
 * asked in the same statement.
 */
function wideCandidates(v: string): string {
	return `${AWAIT_FULLTEXT}
		CALL db.index.fulltext.queryNodes($index, $wideQuery, {limit: $window}) YIELD node AS ${v}
		WITH collect(${v}) AS wide
		WITH wide, all(${v} IN wide WHERE ${SIDE_SCOPE(v)}) AS alone
		CALL {
			WITH alone
			WITH alone WHERE NOT alone
			CALL db.index.fulltext.queryNodes($index, $query, {limit: $window}) YIELD node AS ${v}
			RETURN collect(${v}) AS scoped
		}
		WITH alone, CASE WHEN alone THEN wide ELSE scoped END AS found`;
}

/** Same as SQLite: below this many documents per word, no word counts as common. */
export const COMMON_TERM_FLOOR = 200;

/** Fulltext statistics are re-read after this store writes, and at least this often. */
export const STATS_TTL_MS = 30_000;

/** Nodes ranked exactly per search: Lucene's best this many (or 5 × limit) by its own bm25, within the scope. */
export const NODE_RANK_WINDOW = 300;

/**
 * From this many matches in the memory (its phrases' document counts summed), Lucene is first asked
 * without the scope's word (wideCandidates); below it the scoped query costs Lucene little.
 */
export const WIDE_FROM = 2_000;

/** After a wide window held another scope's documents, the store asks scoped only for this long. */
const WIDE_PAUSE_MS = 10 * 60_000;
const sharedSince = new WeakMap<Neo4jStoreContext, number>();

/**
 * FTS5's ranking over Lucene's best: Lucene keeps to the scope and hands over its best
 * NODE_RANK_WINDOW candidates (its bm25, the columns' weights as boosts), which Cypher scores
 * with FTS5's bm25 over the same tokens and statistics as SQLite's nodes_fts, including its
 * common-word planning (above 4,000 nodes a word in more than 5% of them only ranks documents a
 * rarer word matched). When the scope holds at most the window's matches, every one is scored
 * and the answer is SQLite's exactly; beyond it, only documents Lucene ranks in its window can
 * be returned. When Lucene had more and too few survive (archived nodes), every
 * candidate is scored (labels asked for are kept to in Lucene too). Words in WIDE_FROM or more
 * documents of the memory ask Lucene without the scope's word first (wideCandidates).
 */
export async function fulltext(ctx: Neo4jStoreContext, scope: PartialScope, query: FulltextQuery): Promise<readonly FulltextHit[]> {
	if (!isFullScope(scope) || query.limit <= 0) return [];
	const labels = query.labels ?? [];
	return ctx.conn.read(async (q) => {
		const plan = await planQuery(ctx, q, NODE_CORPUS, query);
		if (!plan) return [];
		const window = Math.max(NODE_RANK_WINDOW, query.limit * 5);
		// Labels asked for keep Lucene to them too, so other labels never fill the window.
		const labelClause = labels.length > 0 ? ` +${FT_SCOPE_PROPERTY}:(${labels.map(labelWord).join(" OR ")})` : "";
		const { matched, ...planParams } = plan;
		const wide = matched >= WIDE_FROM && Date.now() - (sharedSince.get(ctx) ?? -Infinity) > WIDE_PAUSE_MS;
		const found = candidatesCypher(ctx, NODE_CORPUS, "n", wide);
		const ranked = async (limit: number) => {
			const rows = await q.run(
				`${found.cypher}
				CALL {
					WITH found
					UNWIND found AS n
					WITH n, ${ftDocument("n", NODE_COLUMNS, ["__ns", "org_id", "user_id", "status", "__label", "__seq"])} AS ftDoc
					WHERE ${SIDE_SCOPE("ftDoc")} AND coalesce(ftDoc.status, '') <> 'archived'${labels.length > 0 ? " AND ftDoc.__label IN $labels" : ""}
					${bm25Clauses(["n", "ftDoc"], "ftDoc")}
					WHERE any(i IN range(0, $matchCount - 1) WHERE ftFreq[i] > 0)
					WITH n, ftDoc.__seq AS seq, score ORDER BY score DESC, seq LIMIT $limit
					RETURN collect({node: ${N}, score: score, seq: seq}) AS hits
				}
				RETURN size(found) AS seen, hits, alone`,
				ctx.params(scope, {
					...planParams,
					...found.params,
					query: `+${FT_SCOPE_PROPERTY}:${scopeWord(ctx.namespace, scope)}${labelClause} +(${plan.query})`,
					...(wide ? { wideQuery: `${labelClause.trim()} +(${plan.query})` } : {}),
					index: FULLTEXT_INDEX,
					labels,
					limit: int(query.limit),
					window: int(limit),
				}),
			);
			const hits = [...((rows[0]?.hits as { node: StoredMap; score: unknown; seq: unknown }[] | undefined) ?? [])];
			hits.sort((x, y) => Number(y.score) - Number(x.score) || Number(x.seq) - Number(y.seq));
			if (rows[0]?.alone === false) sharedSince.set(ctx, Date.now());
			return { seen: Number(rows[0]?.seen ?? 0), hits };
		};
		let answer = await ranked(window);
		if (answer.hits.length < query.limit && answer.seen >= window) answer = await ranked(1_000_000);
		return answer.hits.map((row) => ({ node: toRecord(row.node), score: Number(row.score) }));
	}, "search the fulltext index");
}

/** What a ranking statement needs: the Lucene query, the phrases scored and their idf, the average length. */
export interface FtPlan {
	readonly query: string;
	readonly ftPatterns: readonly string[];
	readonly matchCount: ReturnType<typeof int>;
	readonly ftIdf: readonly number[];
	readonly ftAvgdl: number;
	/** The matched phrases' document counts summed: at least the memory's matches (not a statement parameter). */
	readonly matched: number;
}

/**
 * The query's phrases against a corpus, planned as FTS5 plans them (null: nothing can match):
 * above 4,000 documents a word in more than 5% of them only ranks documents a rarer word matched.
 */
export async function planQuery(ctx: Neo4jStoreContext, q: CypherRunner, corpus: FtCorpus, query: FulltextQuery): Promise<FtPlan | null> {
	const words = queryWords(query.text).filter((word) => tokens(word).length > 0);
	if (words.length === 0) return null;
	const phrases = words.map((word) => phraseOf(word, query.prefix === true));
	const { stats, hits } = await corpusFacts(ctx, q, phrases, corpus);
	if (stats.rows === 0) return null;
	const hitsOf = (phrase: Phrase) => hits.get(phraseKey(phrase)) ?? 0;
	let match = phrases;
	let scored = phrases;
	const threshold = Math.max(COMMON_TERM_FLOOR, stats.rows * 0.05);
	if (threshold > COMMON_TERM_FLOOR) {
		// SQLite looks the lower-cased word up in fts5vocab: a word that is not exactly one token counts as rare.
		const vocab = (i: number) => (phrases[i].tokens.length === 1 && phrases[i].tokens[0] === words[i] ? hitsOf({ ...phrases[i], prefix: false }) : 0);
		const rare = phrases.filter((_, i) => vocab(i) <= threshold);
		const common = phrases.filter((_, i) => vocab(i) > threshold);
		// FTS5 scores every phrase of `rare OR (common) AND (rare)`: the rare ones count twice.
		if (rare.length > 0 && common.length > 0) {
			match = rare;
			scored = [...rare, ...common, ...rare];
		}
	}
	const lucene = luceneMatch(match, corpus.columns);
	if (!lucene) return null;
	return {
		query: lucene,
		ftPatterns: scored.map((phrase) => phrasePattern(phrase)),
		matchCount: int(match.length),
		ftIdf: scored.map((phrase) => idf(stats.rows, hitsOf(phrase))),
		ftAvgdl: stats.tokens > 0 ? stats.tokens / stats.rows : 1,
		matched: match.reduce((sum, phrase) => sum + hitsOf(phrase), 0),
	};
}

/**
 * What bm25 needs beside the candidates, in at most one statement: the rows and tokens of this
 * memory's fulltext "table" (every node, any scope or status, as FTS5 keeps them) and the
 * documents containing each phrase (FTS5's per-phrase hit count for idf), read from the term
 * counts (term-counts.ts); a phrase no count covers is counted in Lucene. Both are cached until
 * this store writes, or for STATS_TTL_MS; inside a transaction they are read afresh.
 */
export async function corpusFacts(
	ctx: Neo4jStoreContext,
	q: CypherRunner,
	phrases: readonly Phrase[],
	corpus: FtCorpus = NODE_CORPUS,
): Promise<{ stats: FtStats; hits: Map<string, number> }> {
	const fresh = (entry: { version: number; at: number } | undefined) =>
		entry !== undefined && entry.version === ctx.writeVersion && Date.now() - entry.at < STATS_TTL_MS && !ctx.conn.inTransaction();
	const slot = ctx.ftCache[corpus.name];
	const cachedStats = fresh(slot.stats) ? slot.stats : undefined;
	if (!fresh(slot.hits)) slot.hits = { version: ctx.writeVersion, at: Date.now(), hits: new Map() };
	const cache = slot.hits as NonNullable<typeof slot.hits>;
	// An empty corpus (a memory without passages) holds no phrase: no statement to learn that each count is 0.
	if (cachedStats?.rows === 0) return { stats: cachedStats, hits: cache.hits };
	// The vocabulary lookup of common-word planning needs the exact (not prefix) counts too.
	const all = [...phrases, ...phrases.filter((p) => p.prefix).map((p) => ({ ...p, prefix: false }))];
	const missing = [...new Map(all.map((p) => [phraseKey(p), p])).values()].filter((p) => !cache.hits.has(phraseKey(p)));
	if (cachedStats && missing.length === 0) return { stats: cachedStats, hits: cache.hits };
	const looked = missing.flatMap((p) => {
		const key = phraseTermKey(p);
		return key === null ? [] : [{ phrase: phraseKey(p), key }];
	});
	const counted = missing.filter((p) => phraseTermKey(p) === null);
	const written = [...ctx.wordsWrittenInTransaction];
	const rows = await q.run(
		`${counted.length > 0 ? AWAIT_FULLTEXT : ""}
		CALL {
			UNWIND $keys AS item
			OPTIONAL MATCH (t:${TERM_LABEL} {__ns: $ns, corpus: $corpus, key: item.key})
			RETURN collect({key: item.phrase, hits: coalesce(t.df, 0), len: coalesce(t.len, 0)}) AS looked
		}
		${counted.length > 0 ? countedPhrases(corpus, written.length > 0) : "WITH looked, [] AS phraseHits"}
		RETURN looked, phraseHits`,
		{
			ns: ctx.namespace,
			corpus: corpus.name,
			index: corpus.index,
			written,
			keys: [...(cachedStats ? [] : [{ phrase: null, key: CORPUS_KEY }]), ...looked],
			items: counted.map((phrase) => ({
				key: phraseKey(phrase),
				query: corpus.memoryClause ? `${corpus.memoryClause(ctx.namespace)} +(${luceneMatch([phrase], corpus.columns)})` : luceneMatch([phrase], corpus.columns),
				pattern: phrasePattern(phrase),
				verify: phrase.prefix && phrase.tokens.length > 1,
			})),
		},
	);
	const row = rows[0] ?? {};
	let stats = cachedStats;
	for (const item of (row.looked as { key: string | null; hits: unknown; len: unknown }[] | undefined) ?? []) {
		if (item.key === null) stats = { rows: Number(item.hits), tokens: Number(item.len), version: ctx.writeVersion, at: Date.now() };
		else cache.hits.set(String(item.key), Number(item.hits));
	}
	for (const item of (row.phraseHits as { key: string; hits: unknown }[] | undefined) ?? []) cache.hits.set(String(item.key), Number(item.hits));
	stats ??= { rows: 0, tokens: 0, version: ctx.writeVersion, at: Date.now() };
	if (!ctx.conn.inTransaction()) slot.stats = stats;
	return { stats, hits: cache.hits };
}

/**
 * Cypher counting the documents of the phrases no term count covers ($items), in Lucene: it
 * matches a phrase exactly, except a prefix phrase of several tokens (a superset), which is
 * checked against the stored columns. Documents this transaction wrote words of ($written) are
 * counted on their words as it left them, not as Lucene has them.
 */
function countedPhrases(corpus: FtCorpus, written: boolean): string {
	const holds = (v: string) => corpus.columns.map((c) => `coalesce(${v}.${c.property}, '') CONTAINS item.pattern`).join(" OR ");
	const mine = written ? `CALL { MATCH (d:${corpus.label} {__ns: $ns}) WHERE d.${corpus.nodeId} IN $written RETURN collect(d) AS mine }` : "WITH [] AS mine";
	return `CALL {
		${mine}
		UNWIND $items AS item
		CALL {
			WITH item CALL db.index.fulltext.queryNodes($index, item.query) YIELD node AS n
			WITH n WHERE ${corpus.memoryClause ? "true" : "n.__ns = $ns"}${written ? ` AND NOT n.${corpus.nodeId} IN $written` : ""}
				AND (NOT item.verify OR ${holds("n")})
			RETURN count(n) AS hits
		}
		RETURN collect({key: item.key, hits: hits + size([d IN mine WHERE ${holds("d")}])}) AS phraseHits
	}
	WITH looked, phraseHits`;
}
