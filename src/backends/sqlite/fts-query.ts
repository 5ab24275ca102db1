import { isSingleCharTerm, queryTerms } from "../../engine/backend-kit";

/** Words of a free-text query, lower-cased and deduplicated: the only part of user text FTS5 sees. */
export { queryTerms };

/**
 * One query term as an FTS5 phrase (a term of several tokens, "数据 据库", is a phrase of them): always a quoted string, so user punctuation, quotes and
 * operators (AND, NEAR, *, ^, :) are searched as text, never parsed. With `prefix`
 * (FulltextQuery.prefix) words of 4+ characters also match longer words: `"stem"*`.
 */
export function ftsPhrase(term: string, prefix = false): string {
	// One Han, kana or Hangul character is indexed only inside pairs ("猫が"): a prefix finds it there.
	if (isSingleCharTerm(term)) return `"${term}"*`;
	return prefix && term.length >= 4 ? `"${term}"*` : `"${term}"`;
}

/** Turns free text into a safe FTS5 MATCH expression: every word a quoted phrase, ORed. */
export function fts5Query(text: string, prefix = false): string | null {
	const terms = queryTerms(text);
	return terms.length === 0 ? null : terms.map((t) => ftsPhrase(t, prefix)).join(" OR ");
}

// FTS5's bm25 (ext/fts5/fts5_aux.c): k1 = 1.2, idf = ln((N − n + 0.5) / (n + 0.5)), floored at 1e-6.
const BM25_K1 = 1.2;
const IDF_FLOOR = 1e-6;

/** FTS5's bm25 idf of a phrase found in `docs` of `total` documents. */
export function bm25Idf(docs: number, total: number): number {
	const idf = Math.log((total - docs + 0.5) / (docs + 0.5));
	return idf > IDF_FLOOR ? idf : IDF_FLOOR;
}

/**
 * The most a phrase can add to any document's bm25 score: idf × (k1 + 1), whatever its frequency,
 * column weights and the document's length (each phrase adds idf × f·(k1+1) / (f + k1·(…)) < idf·(k1+1)).
 */
export function bm25Bound(docs: number, total: number): number {
	return bm25Idf(docs, total) * (BM25_K1 + 1);
}

/** What the FTS index says about one query word (fts5vocab). */
export interface TermStats {
	/** Postings FTS5 reads for the phrase: documents holding the word (a prefix: summed over its words). */
	readonly postings: number;
	/** Documents certainly matching the phrase (a prefix: its most frequent word): a lower bound. */
	readonly docs: number;
}

/**
 * How to rank a query without scoring every document that holds a common word. bm25 costs
 * ≈ 7 µs of WASM per scored document, reading a posting ≈ 0.2 µs, so the plan bounds the scored
 * set and reads postings freely:
 *
 * - `rare`: the rarest weighted phrases whose postings together fit the budget (all of them for
 *   most queries). Every document holding one of them is scored exactly (each weighted phrase of
 *   the query counted once).
 * - `common`: the other phrases. A document holding none of the rare phrases scores at most
 *   `commonBound` (the sum of their bm25 bounds); when the rare pass's k-th score beats that, the
 *   top k is exact. Otherwise common documents come from bounded passes (see SqliteFulltext).
 * - `weightless`: words in half the documents or more, whose idf FTS5 floors at 1e-6: they add at
 *   most 2.2e-6 to a score, so they are left out of ranking unless nothing else matches.
 */
export interface FulltextPlan {
	readonly rare: readonly string[];
	readonly common: readonly string[];
	readonly weightless: readonly string[];
	readonly commonBound: number;
}

export function planFulltext(
	terms: readonly string[],
	stats: ReadonlyMap<string, TermStats>,
	total: number,
	budget: number,
	prefix = false,
): FulltextPlan {
	const stat = (t: string) => stats.get(t) ?? { postings: 0, docs: 0 };
	// A phrase is weightless only when even its lower-bound document count reaches half the index.
	const weightless = terms.filter((t) => total > 0 && stat(t).docs * 2 >= total);
	const weighted = [...terms.filter((t) => !weightless.includes(t))].sort((a, b) => stat(a).postings - stat(b).postings);
	const rare: string[] = [];
	let postings = 0;
	for (const term of weighted) {
		if (postings + stat(term).postings > budget) break;
		rare.push(term);
		postings += stat(term).postings;
	}
	const common = weighted.slice(rare.length);
	const commonBound = [...common, ...weightless].reduce((sum, t) => sum + bm25Bound(stat(t).docs, total), 0);
	const phrase = (t: string) => ftsPhrase(t, prefix);
	return { rare: rare.map(phrase), common: common.map(phrase), weightless: weightless.map(phrase), commonBound };
}
