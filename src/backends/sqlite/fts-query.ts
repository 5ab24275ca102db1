/** Words of a free-text query, lower-cased and deduplicated: the only part of user text FTS5 sees. */
export function queryTerms(text: string, maxTerms = 32): string[] {
	const words = text.normalize("NFC").match(/[\p{L}\p{N}_]+/gu) ?? [];
	const terms: string[] = [];
	for (const word of words) {
		const lower = word.toLowerCase();
		if (lower.length > 64 || terms.includes(lower)) continue;
		terms.push(lower);
		if (terms.length >= maxTerms) break;
	}
	return terms;
}

const quoteTerm = (term: string) => `"${term}"`;

/**
 * Turns free text into a safe FTS5 MATCH expression: every word becomes a quoted string, so
 * user punctuation, quotes and operators (AND, NEAR, *, ^, :) are searched as text, never parsed.
 *
 * Ranking every document that holds a very common word costs bm25 time for each of them, so when
 * document frequencies are known, common words only rank documents that a rarer word matched:
 * `rare1 OR rare2 OR (common AND (rare1 OR rare2))` matches what the rare words match, and bm25
 * still counts the common word. A query of only common words ORs them all.
 */
export function fts5Query(text: string, docFrequency?: ReadonlyMap<string, number>, commonAbove = Infinity, prefix = false): string | null {
	const terms = queryTerms(text);
	// Prefix matching (FulltextQuery.prefix): "stem"* for words of 4+ characters.
	const quote = prefix ? (term: string) => (term.length >= 4 ? `"${term}"*` : `"${term}"`) : quoteTerm;
	if (terms.length === 0) return null;
	const rare = docFrequency ? terms.filter((t) => (docFrequency.get(t) ?? 0) <= commonAbove) : terms;
	const common = terms.filter((t) => !rare.includes(t));
	if (rare.length === 0 || common.length === 0) return terms.map(quote).join(" OR ");
	const rareMatch = rare.map(quote).join(" OR ");
	return `${rareMatch} OR (${common.map(quote).join(" OR ")}) AND (${rareMatch})`;
}
