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
	idfCypher,
	luceneColumns,
	luceneMatch,
	lucenePhrase,
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
 * A query phrase as the ranking statement plans it (plannedCandidates): the key of its document
 * count (term-counts.ts), or its count when no key holds one (`given`), the key of its word's
 * exact count when common-word planning looks it up (`exact`), and its Lucene and Cypher forms.
 */
export interface PhraseItem {
	readonly key: string | null;
	readonly given: ReturnType<typeof int> | null;
	readonly exact: string | null;
	readonly lucene: string;
	readonly pattern: string;
}

/**
 * The query's phrases for the ranking statement (null: no word has a token). Their document
 * counts are read by that statement; only phrases no count covers (several tokens, a short
 * prefix) are counted first, in a statement of their own (corpusFacts).
 */
export async function phraseItems(ctx: Neo4jStoreContext, q: CypherRunner, corpus: FtCorpus, query: FulltextQuery): Promise<PhraseItem[] | null> {
	const words = queryWords(query.text).filter((word) => tokens(word).length > 0);
	if (words.length === 0) return null;
	const phrases = words.map((word) => phraseOf(word, query.prefix === true));
	const unkeyed = phrases.filter((phrase) => phraseTermKey(phrase) === null);
	const counted = unkeyed.length > 0 ? (await corpusFacts(ctx, q, unkeyed, corpus)).hits : new Map<string, number>();
	return phrases.map((phrase, i) => {
		const key = phraseTermKey(phrase);
		return {
			key,
			given: key === null ? int(counted.get(phraseKey(phrase)) ?? 0) : null,
			// SQLite looks the lower-cased word up in fts5vocab: a word that is not exactly one token counts as rare.
			exact: phrase.tokens.length === 1 && phrase.tokens[0] === words[i] ? phrase.tokens[0] : null,
			lucene: lucenePhrase(phrase),
			pattern: phrasePattern(phrase),
		};
	});
}

/**
 * Cypher that plans the query as FTS5 plans it and collects the corpus's candidates: `found`
 * (Lucene's best $window, as variable `v`), `ftPlan` (what bm25Clauses reads: the scored phrases'
 * patterns and idf, the average length, how many phrases a match needs one of), `ftRows` (the
 * corpus's documents) and `alone`. The phrases' document counts are read here, by key, not in a
 * statement before it: a query's new words cost no round trip, and the statement's text is the
 * same for every query (the server plans it once). Above 4,000 documents a word in more than 5%
 * of them only ranks documents a rarer word matched; FTS5 then scores every phrase of
 * `rare OR (common) AND (rare)`: the rare ones count twice.
 *
 * It first waits for Lucene to hold every committed write (the indexes are eventually
 * consistent: a search still sees each acknowledged write). Inside a transaction that wrote
 * words, Lucene has only their committed version: those documents ($written, by node) are read
 * from the store instead, and scored on their words as the transaction left them. Lucene's
 * query is the phrases' within `clauses.scoped` (the scope's word, labels); otherwise, given
 * `clauses.wide` (the labels alone), phrases in $wideFrom or more documents ask Lucene with it
 * first (wideCandidates).
 */
export function plannedCandidates(
	ctx: Neo4jStoreContext,
	corpus: FtCorpus,
	v: string,
	clauses: { readonly scoped: string; readonly wide?: string },
): { cypher: string; params: Record<string, unknown> } {
	const written = [...ctx.wordsWrittenInTransaction];
	// Strings joined by " OR " (luceneMatch's form: each column's part holds every matched phrase).
	const join = (list: string, item: string, x = "x") => `reduce(s${x} = '', ${x} IN ${list} | s${x} + CASE s${x} WHEN '' THEN '' ELSE ' OR ' END + ${item})`;
	const plan = `${AWAIT_FULLTEXT}
		CALL {
			OPTIONAL MATCH (t:${TERM_LABEL} {__ns: $ns, corpus: $corpus, key: '${CORPUS_KEY}'})
			RETURN coalesce(t.df, 0) AS ftRows, coalesce(t.len, 0) AS ftTokens
		}
		CALL {
			UNWIND $ftPhrases AS ph
			OPTIONAL MATCH (t:${TERM_LABEL} {__ns: $ns, corpus: $corpus, key: ph.key})
			OPTIONAL MATCH (e:${TERM_LABEL} {__ns: $ns, corpus: $corpus, key: ph.exact})
			RETURN collect({lucene: ph.lucene, pattern: ph.pattern, hits: coalesce(t.df, ph.given, 0), vocab: coalesce(e.df, 0)}) AS ftAll
		}
		WITH ftRows, ftTokens, ftAll, [fp IN ftAll WHERE ftRows * 0.05 > $ftFloor AND fp.vocab > ftRows * 0.05] AS ftCommon
		WITH ftRows, ftTokens, ftAll, ftCommon, [fp IN ftAll WHERE NOT (ftRows * 0.05 > $ftFloor AND fp.vocab > ftRows * 0.05)] AS ftRare
		WITH ftRows, ftTokens, CASE WHEN size(ftRare) > 0 AND size(ftCommon) > 0 THEN [ftRare, ftRare + ftCommon + ftRare] ELSE [ftAll, ftAll] END AS ftSides
		WITH ftRows, ftSides[0] AS ftMatch, {
			patterns: [fp IN ftSides[1] | fp.pattern],
			idf: [fp IN ftSides[1] | ${idfCypher("ftRows", "fp.hits")}],
			avgdl: CASE WHEN ftTokens > 0 THEN toFloat(ftTokens) / ftRows ELSE 1.0 END,
			matchCount: size(ftSides[0])
		} AS ftPlan
		WITH ftRows, ftPlan, reduce(m = 0, fp IN ftMatch | m + fp.hits) AS ftMatched,
			CASE WHEN ftRows > 0 AND size(ftMatch) > 0 THEN ${join("$ftColumns", `x[0] + ${join("ftMatch", "y.lucene", "y")} + x[1]`)} END AS ftLucene`;
	const lucene = (query: string) => `CALL db.index.fulltext.queryNodes($index, ${query} + ' +(' + ftLucene + ')', {limit: $window}) YIELD node AS ${v}`;
	const params = {
		corpus: corpus.name,
		ftFloor: COMMON_TERM_FLOOR,
		ftColumns: luceneColumns(corpus.columns),
		ftScoped: clauses.scoped,
		ftWide: clauses.wide ?? "",
		wideFrom: WIDE_FROM,
		wideAllowed: clauses.wide !== undefined,
	};
	if (written.length > 0) {
		return {
			cypher: `${plan}
			CALL {
				WITH ftLucene
				WITH ftLucene WHERE ftLucene IS NOT NULL
				${lucene("$ftScoped")}
				WITH ${v} WHERE NOT ${v}.${corpus.nodeId} IN $written
				RETURN collect(${v}) AS lucene
			}
			CALL { MATCH (${v}:${corpus.label} {__ns: $ns}) WHERE ${v}.${corpus.nodeId} IN $written RETURN collect(${v}) AS mine }
			WITH ftRows, ftPlan, lucene + mine AS found, null AS alone`,
			params: { ...params, written },
		};
	}
	return {
		cypher: `${plan}
		WITH ftRows, ftPlan, ftLucene, ftLucene IS NOT NULL AND $wideAllowed AND ftMatched >= $wideFrom AS asked
		CALL {
			WITH ftLucene, asked
			WITH ftLucene, asked WHERE asked
			${lucene("$ftWide")}
			RETURN collect(${v}) AS wide
		}
		${wideCandidates(v)}`,
		params,
	};
}

/**
 * Cypher for `found` when Lucene was first asked without the scope's word ($ftWide: `wide`,
 * `asked`): the scope clause intersects every match with the scope's postings, half of Lucene's
 * work for words in most of a 50k memory (6-7 -> 3-4.5 ms of server CPU). When every document of
 * that window is the scope's (`alone`: a database holding one memory of one person), it is the
 * scoped query's window: the same matches with the same scores less the scope word's, which is
 * the same for every document (one term in a three-word field; float rounding could at most tie
 * two nearly equal scores at the window's edge, and prefix words' constant scores sum exactly).
 * Otherwise ($ftScoped) the scoped query is asked in the same statement. `alone` is null when
 * Lucene was not asked wide.
 */
function wideCandidates(v: string): string {
	return `WITH ftRows, ftPlan, ftLucene, wide, CASE WHEN asked THEN all(${v} IN wide WHERE ${SIDE_SCOPE(v)}) END AS alone
		CALL {
			WITH ftLucene, alone
			WITH ftLucene, alone WHERE ftLucene IS NOT NULL AND (alone IS NULL OR NOT alone)
			CALL db.index.fulltext.queryNodes($index, $ftScoped + ' +(' + ftLucene + ')', {limit: $window}) YIELD node AS ${v}
			RETURN collect(${v}) AS scoped
		}
		WITH ftRows, ftPlan, alone, CASE WHEN alone THEN wide ELSE scoped END AS found`;
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
	if (!isFullScope(scope) || query.limit <= 0 || knownEmpty(ctx, NODE_CORPUS)) return [];
	const labels = query.labels ?? [];
	return ctx.conn.read(async (q) => {
		const phrases = await phraseItems(ctx, q, NODE_CORPUS, query);
		if (!phrases) return [];
		const window = Math.max(NODE_RANK_WINDOW, query.limit * 5);
		// Labels asked for keep Lucene to them too, so other labels never fill the window.
		const labelClause = labels.length > 0 ? ` +${FT_SCOPE_PROPERTY}:(${labels.map(labelWord).join(" OR ")})` : "";
		const scoped = `+${FT_SCOPE_PROPERTY}:${scopeWord(ctx.namespace, scope)}${labelClause}`;
		const widen = Date.now() - (sharedSince.get(ctx) ?? -Infinity) > WIDE_PAUSE_MS;
		const found = plannedCandidates(ctx, NODE_CORPUS, "n", { scoped, ...(widen ? { wide: labelClause.trim() } : {}) });
		const ranked = async (limit: number) => {
			const rows = await q.run(
				`${found.cypher}
				CALL {
					WITH found, ftPlan
					UNWIND found AS n
					WITH n, ftPlan, ${ftDocument("n", NODE_COLUMNS, ["__ns", "org_id", "user_id", "status", "__label", "__seq"])} AS ftDoc
					WHERE ${SIDE_SCOPE("ftDoc")} AND coalesce(ftDoc.status, '') <> 'archived' AND (size($labels) = 0 OR ftDoc.__label IN $labels)
					${bm25Clauses(["n", "ftDoc", "ftPlan"], "ftDoc", "ftPlan")}
					WHERE any(i IN range(0, ftPlan.matchCount - 1) WHERE ftFreq[i] > 0)
					WITH n, ftDoc.__seq AS seq, score ORDER BY score DESC, seq LIMIT $limit
					RETURN collect({node: ${N}, score: score, seq: seq}) AS hits
				}
				RETURN size(found) AS seen, hits, alone, ftRows`,
				ctx.params(scope, {
					...found.params,
					ftPhrases: phrases,
					index: FULLTEXT_INDEX,
					labels,
					limit: int(query.limit),
					window: int(limit),
				}),
			);
			rememberEmpty(ctx, NODE_CORPUS, rows[0]?.ftRows);
			const hits = [...((rows[0]?.hits as { node: StoredMap; score: unknown; seq: unknown }[] | undefined) ?? [])];
			hits.sort((x, y) => Number(y.score) - Number(x.score) || Number(x.seq) - Number(y.seq));
			if (rows[0]?.alone === false) sharedSince.set(ctx, Date.now());
			if (rows[0]?.alone === true || rows[0]?.alone === false) ctx.ftWideAsked++;
			return { seen: Number(rows[0]?.seen ?? 0), hits };
		};
		let answer = await ranked(window);
		if (answer.hits.length < query.limit && answer.seen >= window) answer = await ranked(1_000_000);
		return answer.hits.map((row) => ({ node: toRecord(row.node), score: Number(row.score) }));
	}, "search the fulltext index");
}

/** Whether the corpus held no document when last read (its statistics fresh: see corpusFacts): then no statement can find one. */
export function knownEmpty(ctx: Neo4jStoreContext, corpus: FtCorpus): boolean {
	const stats = ctx.ftCache[corpus.name].stats;
	return fresh(ctx, stats) && stats?.rows === 0;
}

/** After a ranking statement: a corpus it found empty is remembered as such (a memory without passages asks no more). */
export function rememberEmpty(ctx: Neo4jStoreContext, corpus: FtCorpus, rows: unknown): void {
	if (rows !== undefined && Number(rows) === 0 && !ctx.conn.inTransaction()) ctx.ftCache[corpus.name].stats = { rows: 0, tokens: 0, version: ctx.writeVersion, at: Date.now() };
}

/** Cached statistics are used until this store writes, for STATS_TTL_MS, and never inside a transaction. */
function fresh(ctx: Neo4jStoreContext, entry: { version: number; at: number } | undefined): boolean {
	return entry !== undefined && entry.version === ctx.writeVersion && Date.now() - entry.at < STATS_TTL_MS && !ctx.conn.inTransaction();
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
	const slot = ctx.ftCache[corpus.name];
	const cachedStats = fresh(ctx, slot.stats) ? slot.stats : undefined;
	if (!fresh(ctx, slot.hits)) slot.hits = { version: ctx.writeVersion, at: Date.now(), hits: new Map() };
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
