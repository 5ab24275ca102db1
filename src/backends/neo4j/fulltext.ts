import type { FulltextQuery } from "../../engine/protocols";
import { isFullScope } from "../../engine/scope";
import type { FulltextHit, PartialScope } from "../../engine/types";
import type { Neo4jStoreContext } from "./context";
import { FT_COLUMNS, FT_LENGTH_PROPERTY, bm25Clauses, ftProperty, idf, luceneMatch, phraseKey, phraseOf, phrasePattern, queryWords, tokens, type Phrase } from "./fts-query";
import type { CypherRunner } from "./neo4j-connection";
import { LIVE, N, SCOPE, type StoredMap, int, toRecord } from "./rows";
import { FULLTEXT_INDEX, NODE_LABEL } from "./schema";

/** The fulltext role (FulltextStore): Lucene finds candidates, Cypher ranks them as FTS5 does (tokens and bm25 in fts-query.ts). */

/** Same as SQLite: below this many documents per word, no word counts as common. */
export const COMMON_TERM_FLOOR = 200;

/** Fulltext statistics are re-read after this store writes, and at least this often. */
export const STATS_TTL_MS = 30_000;

/**
 * FTS5-identical ranking: Lucene finds the candidates, Cypher scores them with bm25 over the
 * same tokens and statistics as SQLite's nodes_fts, including its common-word planning
 * (above 4,000 nodes a word in more than 5% of them only ranks documents a rarer word matched).
 */
export async function fulltext(ctx: Neo4jStoreContext, scope: PartialScope, query: FulltextQuery): Promise<readonly FulltextHit[]> {
	if (!isFullScope(scope) || query.limit <= 0) return [];
	const words = queryWords(query.text).filter((word) => tokens(word).length > 0);
	if (words.length === 0) return [];
	const labels = query.labels ?? [];
	return ctx.conn.read(async (q) => {
		const phrases = words.map((word) => phraseOf(word, query.prefix === true));
		const { stats, hits } = await corpusFacts(ctx, q, phrases);
		if (stats.rows === 0) return [];
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
		const lucene = luceneMatch(match);
		if (!lucene) return [];
		const rows = await q.run(
			`CALL db.index.fulltext.queryNodes($index, $query) YIELD node AS n
			WITH n WHERE ${SCOPE} AND ${LIVE}${labels.length > 0 ? " AND n.__label IN $labels" : ""}
			${bm25Clauses()}
			WHERE any(i IN range(0, $matchCount - 1) WHERE ftFreq[i] > 0)
			RETURN ${N} AS node, score ORDER BY score DESC, n.__seq LIMIT $limit`,
			ctx.params(scope, {
				index: FULLTEXT_INDEX,
				query: lucene,
				labels,
				limit: int(query.limit),
				ftPatterns: scored.map((phrase) => phrasePattern(phrase)),
				matchCount: int(match.length),
				ftIdf: scored.map((phrase) => idf(stats.rows, hitsOf(phrase))),
				ftAvgdl: stats.tokens > 0 ? stats.tokens / stats.rows : 1,
			}),
		);
		return rows.map((row) => ({ node: toRecord(row.node as StoredMap), score: Number(row.score) }));
	}, "search the fulltext index");
}

type Stats = NonNullable<Neo4jStoreContext["ftStats"]>;

/**
 * What bm25 needs beside the candidates, in at most one statement: the rows and tokens of this
 * memory's fulltext "table" (every node, any scope or status, as FTS5 keeps them) and the nodes
 * containing each phrase (FTS5's per-phrase hit count for idf). Both are cached until this store
 * writes, or for STATS_TTL_MS; inside a transaction they are read afresh.
 */
export async function corpusFacts(ctx: Neo4jStoreContext, q: CypherRunner, phrases: readonly Phrase[]): Promise<{ stats: Stats; hits: Map<string, number> }> {
	const fresh = (entry: { version: number; at: number } | undefined) =>
		entry !== undefined && entry.version === ctx.writeVersion && Date.now() - entry.at < STATS_TTL_MS && !ctx.conn.inTransaction();
	const cachedStats = fresh(ctx.ftStats) ? ctx.ftStats : undefined;
	if (!fresh(ctx.hitCache)) ctx.hitCache = { version: ctx.writeVersion, at: Date.now(), hits: new Map() };
	const cache = ctx.hitCache as NonNullable<typeof ctx.hitCache>;
	// The vocabulary lookup of common-word planning needs the exact (not prefix) counts too.
	const all = [...phrases, ...phrases.filter((p) => p.prefix).map((p) => ({ ...p, prefix: false }))];
	const missing = [...new Map(all.map((p) => [phraseKey(p), p])).entries()].filter(([key]) => !cache.hits.has(key));
	if (cachedStats && missing.length === 0) return { stats: cachedStats, hits: cache.hits };
	const parts: string[] = [];
	if (!cachedStats) {
		parts.push(`CALL { MATCH (n:${NODE_LABEL}) WHERE n.__ns = $ns RETURN count(n) AS rows, sum(coalesce(n.${FT_LENGTH_PROPERTY}, 0)) AS tokens }`);
	}
	if (missing.length > 0) {
		// Lucene matches a phrase exactly, except a prefix phrase of several tokens (a superset): only
		// those are checked against the stored columns.
		parts.push(`CALL {
			UNWIND $items AS item
			CALL {
				WITH item CALL db.index.fulltext.queryNodes($index, item.query) YIELD node AS n
				WITH n WHERE n.__ns = $ns
					AND (NOT item.verify OR ${FT_COLUMNS.map((c) => `coalesce(n.${ftProperty(c)}, '') CONTAINS item.pattern`).join(" OR ")})
				RETURN count(n) AS hits
			}
			RETURN collect({key: item.key, hits: hits}) AS phraseHits
		}`);
	}
	const rows = await q.run(`${parts.join("\n")}\nRETURN ${cachedStats ? "" : "rows, tokens, "}${missing.length > 0 ? "phraseHits" : "[] AS phraseHits"}`, {
		ns: ctx.namespace,
		index: FULLTEXT_INDEX,
		items: missing.map(([key, phrase]) => ({
			key,
			query: luceneMatch([phrase]),
			pattern: phrasePattern(phrase),
			verify: phrase.prefix && phrase.tokens.length > 1,
		})),
	});
	const row = rows[0] ?? {};
	for (const item of (row.phraseHits as { key: string; hits: unknown }[] | undefined) ?? []) cache.hits.set(String(item.key), Number(item.hits));
	const stats = cachedStats ?? { rows: Number(row.rows ?? 0), tokens: Number(row.tokens ?? 0), version: ctx.writeVersion, at: Date.now() };
	if (!ctx.conn.inTransaction()) ctx.ftStats = stats;
	return { stats, hits: cache.hits };
}
