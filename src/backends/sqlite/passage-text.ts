import { deflateSync, inflateSync, strFromU8, strToU8 } from "fflate";

/**
 * The text of a note's passages, stored once per note and deflated together (schema 14,
 * `note_passage_text`): passages of one note share most of their words, so one stream packs them
 * better than each passage on its own (1.88 against 2.09 × the vault at 10k notes). fflate is a
 * synchronous deflate in JavaScript: the web's CompressionStream, the only codec on mobile, is
 * asynchronous and costs more CPU per note.
 */
export interface PassageText {
	/** The note_passages row id (the passages_fts rowid). */
	readonly id: number;
	/** The passage as written. */
	readonly text: string;
	/** What passages_fts indexed: a contentless FTS5 row is deleted by giving exactly these tokens. */
	readonly body: string;
}

// Level 6 (fflate's default): levels 1 to 9 differ by ≈ 1 % in bytes and within noise in CPU
// (scripts/bench/passage-deflate-level.mjs).
const LEVEL = 6;

/** One entry per passage: [id, text] or, where the indexed form differs, [id, text, body]. */
type Entry = [number, string] | [number, string, string];

export function packPassageText(passages: readonly PassageText[]): Uint8Array {
	const entries: Entry[] = passages.map((p) => (p.body === p.text ? [p.id, p.text] : [p.id, p.text, p.body]));
	return deflateSync(strToU8(JSON.stringify(entries)), { level: LEVEL });
}

/** The one way passage text is read back (snippets, related notes, reindex, un-indexing). */
export function unpackPassageText(packed: Uint8Array): PassageText[] {
	const entries = JSON.parse(strFromU8(inflateSync(packed))) as Entry[];
	return entries.map(([id, text, body]) => ({ id, text, body: body ?? text }));
}
