import { FULLTEXT_FIELDS, FULLTEXT_WEIGHTS, extraFulltext, itemDay, type FulltextField } from "../../engine/backend-kit";
import { isSingleCharTerm, indexText, queryTerms } from "../../engine/backend-kit";
import { NOT_SEARCHED } from "../../engine/backend-kit";
import type { PropValue, Props, Scope } from "../../engine/types";

/**
 * Fulltext parity with SQLite's FTS5 (unicode61 tokenizer with remove_diacritics, bm25 with
 * column weights). The store keeps one hidden property per FTS column holding the already
 * tokenised text (lowercase, diacritics removed, runs of letters/digits), each token wrapped in
 * its own spaces, plus the row's token count. Lucene (whitespace analyzer) only finds the
 * candidates; the score is FTS5's bm25 formula computed in Cypher over the same tokens, with the
 * same row count, average row length and per-phrase document counts. So both backends return the
 * same hits in the same order with the same scores.
 */
export const FT_COLUMNS = FULLTEXT_FIELDS;

export type FtColumn = FulltextField;

export const FT_PROPERTY_PREFIX = "__ft_";

export function ftProperty(column: FtColumn): string {
	return `${FT_PROPERTY_PREFIX}${column}`;
}

/** Same weights as SQLite's bm25() call. */
export const FT_BOOSTS = FULLTEXT_WEIGHTS;

/** A stored token column and its bm25 weight. */
export interface FtWeightedColumn {
	readonly property: string;
	readonly weight: number;
}

/** The node columns (SQLite's nodes_fts with its weights). */
export const NODE_COLUMNS: readonly FtWeightedColumn[] = FT_COLUMNS.map((column) => ({ property: ftProperty(column), weight: FT_BOOSTS[column] }));

/** A passage's one column (SQLite's passages_fts: bm25 without weights). */
export const PASSAGE_COLUMNS: readonly FtWeightedColumn[] = [{ property: ftProperty("body"), weight: 1 }];

/** A passage's hidden fulltext properties: its text's tokens, as passages_fts indexes them. */
export function passageFulltextProperties(text: string): { readonly __ft_body: string | null; readonly __ft_len: number } {
	const words = tokens(indexText(text));
	return { __ft_body: storedColumn(words), __ft_len: words.length };
}

/**
 * unicode61 tokens: runs of letters, digits and private use, so a combining mark standing on its
 * own separates tokens (Thai's and Devanagari's vowel signs split words there, as in FTS5);
 * each token then lower-cased with its letters' diacritics removed.
 */
export function tokens(text: string): string[] {
	// NFC again after stripping so scripts that decompose into letters (Hangul) come back whole.
	return (text.match(/[\p{L}\p{N}\p{Co}]+/gu) ?? []).map((token) => Array.from(token, fold).join("").toLowerCase());
}

/**
 * A Latin letter without its diacritic, as remove_diacritics=1 folds them: one with two or more
 * (Vietnamese "ế") and letters of other scripts (Greek "ά", Cyrillic "й") stay whole.
 */
function fold(char: string): string {
	if (char.charCodeAt(0) < 0xc0) return char;
	const parts = char.normalize("NFD");
	const base = parts.replace(/\p{M}+/gu, "");
	return Array.from(parts).length - Array.from(base).length === 1 && /^\p{Script=Latin}$/u.test(base) ? base : char;
}

function columnText(value: PropValue | undefined): string | null {
	if (value === undefined || value === null) return null;
	if (Array.isArray(value)) return indexText(value.map(String).join(" "));
	return typeof value === "object" ? null : indexText(String(value));
}

/** A column's stored form: " t1  t2  t3 " (a token can be counted by splitting on " t "). */
export function storedColumn(words: readonly string[]): string | null {
	return words.length > 0 ? ` ${words.join("  ")} ` : null;
}

export const FT_LENGTH_PROPERTY = "__ft_len";

/** The hidden fulltext properties of a node, filled exactly as SQLite's writeFts fills its columns. */
export function fulltextProperties(props: Props): Record<string, string | number | null> {
	const extra: string[] = [];
	// Text props outside the FTS columns still deserve to be found: they go into body.
	for (const [name, value] of Object.entries(props)) {
		if ((FT_COLUMNS as readonly string[]).includes(name)) continue;
		const text = extraFulltext(name, value);
		if (text !== null && !NOT_SEARCHED.has(name)) extra.push(indexText(text));
	}
	// The item's own day as words, as SQLite's ftsValues indexes it.
	const day = itemDay(props);
	if (day) extra.push(day);
	const out: Record<string, string | number | null> = {};
	let length = 0;
	for (const column of FT_COLUMNS) {
		let text = columnText(props[column]);
		if (column === "body" && extra.length > 0) text = [text, ...extra].filter(Boolean).join("\n");
		const words = text === null ? [] : tokens(text);
		length += words.length;
		out[ftProperty(column)] = storedColumn(words);
	}
	out[FT_LENGTH_PROPERTY] = length;
	return out;
}

/** The terms of a free-text query, as SQLite's queryTerms (one function: engine/search/words). */
export const queryWords = queryTerms;

/**
 * A query word as FTS5 sees it inside quotes: the phrase of its tokens. A prefix phrase
 * (SQLite's `"word"*`, asked for by FulltextQuery.prefix for words of 4+ characters) lets its
 * last token match any token it begins.
 */
export interface Phrase {
	readonly tokens: readonly string[];
	readonly prefix: boolean;
}

/** The phrase SQLite's fts5Query makes of a query word. */
export function phraseOf(word: string, prefix: boolean): Phrase {
	return { tokens: tokens(word), prefix: isSingleCharTerm(word) || (prefix && word.length >= 4) };
}

export function phraseKey(phrase: Phrase): string {
	return `${phrase.tokens.join(" ")}${phrase.prefix ? "*" : ""}`;
}

/**
 * Lucene for one phrase in one column. A prefix phrase of several tokens has no exact Lucene
 * form, so it becomes "all its tokens in the column" (a superset); the exact count in Cypher
 * (phrasePattern) then drops the false candidates.
 */
export function lucenePhrase({ tokens: words, prefix }: Phrase): string {
	if (!prefix) return words.length === 1 ? words[0] : `"${words.join(" ")}"`;
	if (words.length === 1) return `${words[0]}*`;
	return `(${words.map((token, i) => `+${token}${i === words.length - 1 ? "*" : ""}`).join(" ")})`;
}

/**
 * Lucene syntax matching any of the phrases in any column (a superset when prefix phrases have
 * several tokens), each column boosted by its bm25 weight so that Lucene's own order (which
 * picks the window ranked exactly) follows FTS5's. Only tokens (letters and digits) reach it,
 * so user text is never parsed.
 */
export function luceneMatch(phrases: readonly Phrase[], columns: readonly FtWeightedColumn[] = NODE_COLUMNS): string | null {
	const usable = phrases.filter((p) => p.tokens.length > 0);
	if (usable.length === 0) return null;
	const group = usable.map(lucenePhrase).join(" OR ");
	return luceneColumns(columns)
		.map(([before, after]) => `${before}${group}${after}`)
		.join(" OR ");
}

/** What stands before and after a group of phrases in each column's part of luceneMatch (the ranking statement joins them in Cypher). */
export function luceneColumns(columns: readonly FtWeightedColumn[]): [string, string][] {
	return columns.map((column) => [`${column.property}:(`, `)${column.weight !== 1 ? `^${column.weight}` : ""}`]);
}

/**
 * A memory (namespace), or one person's part of it (namespace, org, user), as one word of a
 * document's `__ft_scope` column, so Lucene keeps to it before anything is ranked or counted
 * (one index holds every memory and person of the database). A hash (FNV-1a, two lanes): a
 * collision only lets the property filter after it do the work.
 */
function scopeHash(...parts: readonly string[]): string {
	const text = parts.join("\u0000");
	let a = 0x811c9dc5;
	let b = 0x01000193 ^ text.length;
	for (let i = 0; i < text.length; i++) {
		const c = text.charCodeAt(i);
		a = Math.imul(a ^ c, 0x01000193) >>> 0;
		b = Math.imul(b ^ c, 0x85ebca6b) >>> 0;
	}
	return `s${a.toString(16).padStart(8, "0")}${b.toString(16).padStart(8, "0")}`;
}

export const FT_SCOPE_PROPERTY = "__ft_scope";

/** A memory's word: the statistics of bm25 count the whole memory, every person's documents. */
export function memoryWord(namespace: string): string {
	return scopeHash("memory", namespace);
}

/** One person's part of a memory as a word: what a search keeps to (nodes and passages alike). */
export function scopeWord(namespace: string, scope: Pick<Scope, "orgId" | "userId">): string {
	return scopeHash(namespace, scope.orgId, scope.userId);
}

/** A node's `__ft_scope`: its memory's word, its scope's and its label's. */
export function nodeScopeWords(namespace: string, orgId: string, userId: string, label: string): string {
	return `${memoryWord(namespace)} ${scopeWord(namespace, { orgId, userId })} ${labelWord(label)}`;
}

/** A label as a word of `__ft_scope`, so a search for some labels keeps to them in Lucene. */
export function labelWord(label: string): string {
	return scopeHash("label", label);
}

/** The substring whose occurrences in a stored column are the phrase's instances. */
export function phrasePattern(phrase: Phrase): string {
	return ` ${phrase.tokens.join("  ")}${phrase.prefix ? "" : " "}`;
}

/** FTS5's bm25 constants (fts5_aux.c). */
const K1 = 1.2;
const B = 0.75;

/** Cypher for FTS5's idf of a phrase in `hits` of `rows` documents: log((N - n + 0.5) / (n + 0.5)), floored at 1e-6. */
export function idfCypher(rows: string, hits: string): string {
	const value = `log((${rows} - ${hits} + 0.5) / (${hits} + 0.5))`;
	return `CASE WHEN ${value} <= 0 THEN 0.000001 ELSE ${value} END`;
}

/**
 * Cypher: a map projection of document `variable` holding everything ranking reads of it (its
 * token columns and length, and the `extra` properties its filters and order read). Read one by
 * one, each property is a walk of the node's property chain (a missing column walks all of it):
 * at 50k nodes the projection took a 300-candidate window's reads and bm25 from 4.9 to 3.0 ms of
 * server CPU.
 */
export function ftDocument(variable: string, columns: readonly FtWeightedColumn[], extra: readonly string[] = []): string {
	return `${variable} {${[...extra, ...columns.map((c) => c.property), FT_LENGTH_PROPERTY].map((p) => `.${p}`).join(", ")}}`;
}

/**
 * Cypher clauses that add `score`, FTS5's bm25 (fts5_aux.c), for the map `doc` (ftDocument): per
 * phrase, f = Σ column weight × occurrences, then score += idf × (f × (k1 + 1)) / (f + k1 × (1 − b + b × D / avgdl)),
 * D being the row's token count. The map `plan` holds `patterns` and `idf` (one per phrase) and
 * `avgdl`; `keep` must list it. Keeps `ftFreq` (the per-phrase counts) and the variables listed in
 * `keep`. Only the columns a document has are split (most nodes fill three of ten); an absent one
 * adds 0 to f either way.
 */
export function bm25Clauses(keep: readonly string[], doc: string, plan: string, columns: readonly FtWeightedColumn[] = NODE_COLUMNS): string {
	const vars = keep.join(", ");
	const present = `[c IN [${columns.map((column) => `[${column.weight}, ${doc}.${column.property}]`).join(", ")}] WHERE c[1] IS NOT NULL]`;
	const d = `toFloat(coalesce(${doc}.${FT_LENGTH_PROPERTY}, 0))`;
	return `WITH ${vars}, ${present} AS ftColumns, ${d} AS ftLength
	WITH ${vars}, ftLength, [ftPattern IN ${plan}.patterns | reduce(f = 0, c IN ftColumns | f + c[0] * (size(split(c[1], ftPattern)) - 1))] AS ftFreq
	WITH ${vars}, ftFreq, reduce(s = 0.0, i IN range(0, size(ftFreq) - 1) |
		s + ${plan}.idf[i] * ((ftFreq[i] * ${K1 + 1}) / (ftFreq[i] + ${K1} * (1 - ${B} + ${B} * ftLength / ${plan}.avgdl)))) AS score`;
}
