import type { PropValue, Props } from "../../engine/types";

/**
 * Fulltext parity with SQLite's FTS5 (unicode61 tokenizer, remove_diacritics): the store keeps
 * one hidden property per FTS column holding the already tokenised text (lowercase, diacritics
 * removed, runs of letters/digits), indexed with Lucene's whitespace analyzer. So both backends
 * split text into the same tokens, and queries are built from the same tokens.
 */
export const FT_COLUMNS = [
	"name",
	"title",
	"description",
	"notes",
	"rationale",
	"solution",
	"context",
	"body",
	"summary",
	"tags",
] as const;

export type FtColumn = (typeof FT_COLUMNS)[number];

export const FT_PROPERTY_PREFIX = "__ft_";

export function ftProperty(column: FtColumn): string {
	return `${FT_PROPERTY_PREFIX}${column}`;
}

/** Same weights as SQLite's bm25() call: names and titles first, then tags and summaries. */
export const FT_BOOSTS: Readonly<Record<FtColumn, number>> = {
	name: 8,
	title: 8,
	description: 3,
	notes: 1,
	rationale: 1,
	solution: 1,
	context: 1,
	body: 1,
	summary: 2,
	tags: 4,
};

/** Props the SQLite store never folds into `body` (ids, provenance, dates, paths). */
const NOT_SEARCHED = new Set([
	"engrama_id",
	"org_id",
	"user_id",
	"source",
	"source_agent",
	"source_session",
	"status",
	"obsidian_path",
	"valid_from",
	"valid_to",
	"archived_at",
	"previous_status",
	"content_hash",
]);

/** unicode61-like tokens: NFD, marks stripped, lowercase, runs of letters, digits, private use. */
export function tokens(text: string): string[] {
	const folded = text.normalize("NFD").replace(/\p{M}+/gu, "").toLowerCase();
	return folded.match(/[\p{L}\p{N}\p{Co}]+/gu) ?? [];
}

function columnText(value: PropValue | undefined): string | null {
	if (value === undefined || value === null) return null;
	if (Array.isArray(value)) return value.map(String).join(" ");
	return typeof value === "object" ? null : String(value);
}

/** The hidden fulltext properties of a node, exactly as SQLite's writeFts fills its columns. */
export function fulltextProperties(props: Props): Record<string, string | null> {
	const extra: string[] = [];
	// Text props outside the FTS columns still deserve to be found: they go into body.
	for (const [name, value] of Object.entries(props)) {
		if ((FT_COLUMNS as readonly string[]).includes(name)) continue;
		if (typeof value === "string" && value.length > 0 && !NOT_SEARCHED.has(name)) extra.push(value);
	}
	const out: Record<string, string | null> = {};
	for (const column of FT_COLUMNS) {
		let text = columnText(props[column]);
		if (column === "body" && extra.length > 0) text = [text, ...extra].filter(Boolean).join("\n");
		const words = text === null ? [] : tokens(text);
		out[ftProperty(column)] = words.length > 0 ? words.join(" ") : null;
	}
	return out;
}

/**
 * Free text → a Lucene query over the hidden columns, mirroring fts5Query: each word (letters,
 * digits, _) becomes a quoted phrase of its tokens, words are OR-ed, at most `maxTerms` of them.
 * Only letters and digits reach the query, so no user syntax is ever parsed.
 */
export function luceneQuery(text: string, maxTerms = 32): string | null {
	const words = text.normalize("NFC").match(/[\p{L}\p{N}_]+/gu) ?? [];
	const seen = new Set<string>();
	const phrases: string[] = [];
	for (const word of words) {
		const lower = word.toLowerCase();
		if (seen.has(lower) || lower.length > 64) continue;
		seen.add(lower);
		const parts = tokens(lower);
		if (parts.length === 0) continue;
		phrases.push(parts.length === 1 ? parts[0] : `"${parts.join(" ")}"`);
		if (phrases.length >= maxTerms) break;
	}
	if (phrases.length === 0) return null;
	const group = phrases.join(" OR ");
	return FT_COLUMNS.map((column) => `${ftProperty(column)}:(${group})^${FT_BOOSTS[column]}`).join(" OR ");
}
