import { EngramaError } from "../errors";

/**
 * A note whose bytes are not UTF-8. Decoding it would replace each bad byte with U+FFFD, and
 * writing the text back (an engrama_id, a relation) would destroy the original bytes, so such a
 * note is read by no one and written by no one: sync reports it and leaves it exactly as it is.
 */
export class NoteEncodingError extends EngramaError {
	readonly action: string;

	constructor(path: string, offset: number, byte: number, kind: NoteBytesKind) {
		const where = `byte 0x${byte.toString(16).padStart(2, "0")} at offset ${offset}`;
		const why = kind === "binary" ? "Engrama neither syncs nor rewrites it" : "Engrama reads and writes notes only as UTF-8, so it neither syncs nor rewrites this one";
		super("invalid_input", `${path} ${NOT_UTF8[kind]} (${where}); ${why}`, { path, offset });
		this.action = ENCODING_ACTIONS[kind];
	}
}

/** What a note that is not UTF-8 looks like: another text encoding, or no text at all. */
export type NoteBytesKind = "binary" | "utf16" | "other";

const NOT_UTF8: Record<NoteBytesKind, string> = {
	binary: "is not text (it looks binary) although its name ends in .md",
	utf16: "is UTF-16 text",
	other: "is not valid UTF-8",
};

/** What to do about each kind; shared with the parser, which sees UTF-16 that happens to decode. */
export const ENCODING_ACTIONS: Record<NoteBytesKind, string> = {
	binary: "Rename it to its real extension or move it out of the vault.",
	utf16: "Save the note as UTF-8 (in most editors: Save with encoding, UTF-8; on the command line: iconv -f UTF-16 -t UTF-8 note.md > note-utf8.md). Engrama leaves it untouched until then.",
	other: "Save the note as UTF-8 (most editors can; on the command line: iconv -f latin1 -t utf-8). Engrama leaves it untouched until then.",
};

const SAMPLE = 8192;

/**
 * UTF-16 by its byte-order mark, or, without one, by its zero bytes: text in a Latin script
 * stored as UTF-16 has a zero in every other byte, on the same side of each pair. `unitAt`
 * gives the bytes (or, for text already decoded, the characters) one by one.
 */
export function looksUtf16(unitAt: (i: number) => number, length: number): boolean {
	if (length >= 2 && ((unitAt(0) === 0xff && unitAt(1) === 0xfe) || (unitAt(0) === 0xfe && unitAt(1) === 0xff))) return true;
	const n = Math.min(length, SAMPLE) & ~1;
	if (n < 4) return false;
	let even = 0;
	let odd = 0;
	for (let i = 0; i < n; i += 2) {
		if (unitAt(i) === 0) even++;
		if (unitAt(i + 1) === 0) odd++;
	}
	const pairs = n / 2;
	// Most pairs zero on one side, almost none on the other (a binary file has zeros on both).
	return Math.max(even, odd) >= pairs * 0.4 && Math.min(even, odd) <= pairs * 0.05;
}

function bytesKind(bytes: Uint8Array): NoteBytesKind {
	if (looksUtf16((i) => bytes[i], bytes.length)) return "utf16";
	return bytes.subarray(0, SAMPLE).includes(0) ? "binary" : "other";
}

/** The offset of the first byte that breaks UTF-8 (RFC 3629: no overlongs, surrogates or > U+10FFFF), or -1. */
export function invalidUtf8At(bytes: Uint8Array): number {
	let i = 0;
	const n = bytes.length;
	while (i < n) {
		const b = bytes[i];
		if (b < 0x80) {
			i++;
			continue;
		}
		let need: number;
		let min: number;
		let max = 0xbf;
		if (b >= 0xc2 && b <= 0xdf) {
			need = 1;
			min = 0x80;
		} else if (b >= 0xe0 && b <= 0xef) {
			need = 2;
			min = b === 0xe0 ? 0xa0 : 0x80;
			if (b === 0xed) max = 0x9f;
		} else if (b >= 0xf0 && b <= 0xf4) {
			need = 3;
			min = b === 0xf0 ? 0x90 : 0x80;
			if (b === 0xf4) max = 0x8f;
		} else {
			return i;
		}
		// Cut off by the end of the file.
		if (i + need >= n) return i;
		const second = bytes[i + 1];
		if (second < min || second > max) return i;
		for (let k = 2; k <= need; k++) {
			const c = bytes[i + k];
			if (c < 0x80 || c > 0xbf) return i;
		}
		i += need + 1;
	}
	return -1;
}

const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/** The note's text, decoded so that encoding it again gives the same bytes (a BOM kept); throws NoteEncodingError. */
export function decodeNote(path: string, bytes: Uint8Array): string {
	const at = invalidUtf8At(bytes);
	if (at >= 0) throw new NoteEncodingError(path, at, bytes[at], bytesKind(bytes));
	return decoder.decode(bytes);
}
