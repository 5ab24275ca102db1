import type { GraphReads, StoredPassage } from "../protocols";
import { normaliseName } from "../resolver/normalise";
import { contentWords, isStopword } from "../search/query-text";
import type { NodeRecord, Scope } from "../types";

/** A note's words weighed for related notes: sublinear tf × idf, the vector scaled to unit length. */
export type TermVector = ReadonlyMap<string, number>;

/** A word that says what a note is about: not a function word, not a bare number, not one Latin letter or two. */
export function isContentWord(word: string): boolean {
	return !isStopword(word) && !/^\p{N}+$/u.test(word) && !(/^\p{Script=Latin}+$/u.test(word) && word.length <= 2);
}

/** Content-word counts of passages, headings counted twice (a heading says what its section is about). */
export function termCounts(passages: readonly StoredPassage[]): Map<string, number> {
	const counts = new Map<string, number>();
	const count = (text: string, weight: number) => {
		for (const word of contentWords(text)) if (isContentWord(word)) counts.set(word, (counts.get(word) ?? 0) + weight);
	};
	for (const p of passages) {
		count(p.heading, 2);
		count(p.text, 1);
	}
	return counts;
}

/**
 * Inverse document frequencies, ln(N / df), from the store's passage counts (the documents bm25
 * ranks); every word weighs 1 where the store keeps no counts. Cached per word for a while: at 10k
 * notes a common word's count reads a long posting list.
 */
export class IdfCache {
	private readonly known = new Map<string, { idf: number; at: number }>();

	constructor(private readonly now: () => number = Date.now) {}

	async idf(graph: GraphReads, scope: Scope, words: Iterable<string>): Promise<ReadonlyMap<string, number>> {
		const out = new Map<string, number>();
		const missing: string[] = [];
		for (const word of new Set(words)) {
			const hit = this.known.get(word);
			if (hit && this.now() - hit.at < IDF_TTL_MS) out.set(word, hit.idf);
			else missing.push(word);
		}
		if (missing.length === 0) return out;
		const counted = graph.passageTermCounts ? await graph.passageTermCounts(scope, missing) : null;
		if (this.known.size + missing.length > IDF_CACHE_MAX) this.known.clear();
		for (const word of missing) {
			const idf = counted ? Math.log(Math.max(counted.documents, 1) / Math.max(counted.counts.get(word) ?? 0, 0.5)) : 1;
			const value = Math.max(idf, 0);
			this.known.set(word, { idf: value, at: this.now() });
			out.set(word, value);
		}
		return out;
	}
}

const IDF_TTL_MS = 60_000;
const IDF_CACHE_MAX = 50_000;

/** Unit vector of sublinear tf × idf over the counted words. */
export function termVector(counts: ReadonlyMap<string, number>, idf: ReadonlyMap<string, number>): TermVector {
	const v = new Map<string, number>();
	for (const [word, tf] of counts) {
		const weight = (1 + Math.log(tf)) * (idf.get(word) ?? 0);
		if (weight > 0) v.set(word, weight);
	}
	const norm = Math.sqrt([...v.values()].reduce((s, x) => s + x * x, 0)) || 1;
	for (const [word, x] of v) v.set(word, x / norm);
	return v;
}

export function cosine(a: TermVector, b: TermVector): number {
	let sum = 0;
	const [small, large] = a.size <= b.size ? [a, b] : [b, a];
	for (const [word, x] of small) sum += x * (large.get(word) ?? 0);
	return sum;
}

/** The `count` heaviest words of a vector, heaviest first. */
export function heaviest(vector: TermVector, count: number): string[] {
	return [...vector].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, count).map(([w]) => w);
}

/** A name or a text as the words mention matching compares: normalised (no accents, case or dashes), word by word. */
function mentionWords(text: string): string[] {
	return normaliseName(text).match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Names of notes (their keys and aliases) as word sequences, each with the notes that bear it. */
export interface NameDictionary {
	readonly names: ReadonlyMap<string, readonly string[]>;
	/** Longest name, in words. */
	readonly longest: number;
	/** Every name (long ones too), with the notes that bear it. */
	readonly titles: ReadonlyMap<string, readonly string[]>;
	/** The titles holding each word. */
	readonly byWord: ReadonlyMap<string, readonly string[]>;
}

/** Words a name may have at most to be matched in a text (longer titles are sentences, not names). */
const MAX_NAME_WORDS = 6;

export function nameDictionary(nodes: readonly NodeRecord[]): NameDictionary {
	const names = new Map<string, string[]>();
	const titles = new Map<string, string[]>();
	let longest = 0;
	for (const node of nodes) {
		const aliases = node.props.aliases;
		const all = [node.key, ...(Array.isArray(aliases) ? aliases.filter((a): a is string => typeof a === "string") : typeof aliases === "string" ? [aliases] : [])];
		for (const name of all) {
			const words = mentionWords(name);
			if (words.length === 0) continue;
			const key = words.join(" ");
			bear(titles, key, node.id);
			if (words.length > MAX_NAME_WORDS || !words.some(isContentWord)) continue;
			bear(names, key, node.id);
			longest = Math.max(longest, words.length);
		}
	}
	const byWord = new Map<string, string[]>();
	for (const title of titles.keys()) for (const word of new Set(title.split(" "))) bear(byWord, word, title);
	return { names, longest, titles, byWord };
}

function bear(map: Map<string, string[]>, key: string, value: string): void {
	const values = map.get(key) ?? [];
	if (!values.includes(value)) values.push(value);
	map.set(key, values);
}

/**
 * Notes whose name (title or alias) holds some of the words, best first: the summed weight of the
 * words a name holds, the shorter name first on a tie; each note by its best name.
 */
export function notesNamedBy(weights: ReadonlyMap<string, number>, dictionary: NameDictionary): string[] {
	const held = new Map<string, number>();
	for (const [word, weight] of weights) {
		for (const w of new Set(mentionWords(word))) for (const name of dictionary.byWord.get(w) ?? []) held.set(name, (held.get(name) ?? 0) + weight);
	}
	const best = new Map<string, number>();
	const ranked = [...held].sort((a, b) => b[1] - a[1] || a[0].split(" ").length - b[0].split(" ").length);
	for (const [name, score] of ranked) for (const id of dictionary.titles.get(name) ?? []) if (score > 0 && !best.has(id)) best.set(id, score);
	return [...best.keys()];
}

/** A name the text mentions: the notes that bear it, its content words and how often it occurs. */
export interface Mention {
	readonly name: string;
	readonly ids: readonly string[];
	readonly words: readonly string[];
	readonly count: number;
}

/** Names of the dictionary the text mentions, longest match first at each position (Obsidian's unlinked mentions). */
export function mentionsIn(text: string, dictionary: NameDictionary): Mention[] {
	const words = mentionWords(text);
	const found = new Map<string, number>();
	for (let i = 0; i < words.length; i++) {
		for (let n = Math.min(dictionary.longest, words.length - i); n >= 1; n--) {
			const name = words.slice(i, i + n).join(" ");
			if (!dictionary.names.has(name)) continue;
			found.set(name, (found.get(name) ?? 0) + 1);
			i += n - 1;
			break;
		}
	}
	return [...found].map(([name, count]) => ({ name, ids: dictionary.names.get(name) ?? [], words: name.split(" ").filter(isContentWord), count }));
}
