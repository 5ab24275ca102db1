import { EngramaError } from "../errors";

/**
 * A note whose bytes are not UTF-8. Decoding it would replace each bad byte with U+FFFD, and
 * writing the text back (an engrama_id, a relation) would destroy the original bytes, so such a
 * note is read by no one and written by no one: sync reports it and leaves it exactly as it is.
 */
export class NoteEncodingError extends EngramaError {
	readonly action: string;

	constructor(path: string, offset: number, byte: number, binary: boolean) {
		const where = `byte 0x${byte.toString(16).padStart(2, "0")} at offset ${offset}`;
		super(
			"invalid_input",
			binary
				? `${path} is not text (it looks binary) although its name ends in .md (${where}); Engrama neither syncs nor rewrites it`
				: `${path} is not valid UTF-8 (${where}); Engrama reads and writes notes only as UTF-8, so it neither syncs nor rewrites this one`,
			{ path, offset },
		);
		this.action = binary
			? "Rename it to its real extension or move it out of the vault."
			: "Save the note as UTF-8 (most editors can; on the command line: iconv -f latin1 -t utf-8). Engrama leaves it untouched until then.";
	}
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
	if (at >= 0) throw new NoteEncodingError(path, at, bytes[at], bytes.subarray(0, 8192).includes(0));
	return decoder.decode(bytes);
}
