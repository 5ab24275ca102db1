/**
 * Turns free text into a safe FTS5 MATCH expression: every word becomes a quoted string, so
 * user punctuation, quotes and operators (AND, NEAR, *, ^, :) are searched as text, never parsed.
 * Words are OR-ed and bm25 ranks documents that match more of them higher.
 */
export function fts5Query(text: string, maxTerms = 32): string | null {
	const words = text.normalize("NFC").match(/[\p{L}\p{N}_]+/gu) ?? [];
	const seen = new Set<string>();
	const terms: string[] = [];
	for (const word of words) {
		const lower = word.toLowerCase();
		if (seen.has(lower) || lower.length > 64) continue;
		seen.add(lower);
		terms.push(`"${lower}"`);
		if (terms.length >= maxTerms) break;
	}
	return terms.length > 0 ? terms.join(" OR ") : null;
}
