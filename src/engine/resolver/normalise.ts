import type { Props } from "../types";

/**
 * The one comparison form of a name, shared by the resolver and by every backend's name index:
 * compatibility-decomposed, accents stripped, casefolded, "-" / "_" / whitespace runs as one
 * space, trimmed. Other punctuation stays ("C++" and "C#" must not collide).
 */
export function normaliseName(raw: string): string {
	return raw
		.normalize("NFKD")
		.replace(/\p{M}+/gu, "")
		.toLowerCase()
		.replace(/ß/g, "ss")
		.replace(/[-_\s]+/g, " ")
		.trim();
}

/** Longest name the index keeps fragments for (keys are capped at 500 by the sanitiser). */
const MAX_INDEXED_LENGTH = 500;
/**
 * How a backend reads its name index (GraphStore.nameCandidates), shared so every backend returns
 * the same candidates: per query fragment, at most `postingsPerFragment` postings on each side of
 * the target's length, nearest length first, and only names within [low×, high×] the target's
 * length (outside it no name can reach a 0.6 ratio). This bound keeps the cost flat as the graph grows.
 */
export const NAME_INDEX_LIMITS = { postingsPerFragment: 32, lengthWindowLow: 0.4, lengthWindowHigh: 2.5 } as const;

/** Fragments a query sends at most: spread over the words so each word is represented. */
export const MAX_QUERY_FRAGMENTS = 24;

/**
 * Trigram-style fragments of a normalised name: every three-character slice of every word;
 * a word of three characters or fewer is its own fragment. Distinct, in order of appearance.
 */
export function nameFragments(normalised: string): string[] {
	const out = new Set<string>();
	for (const word of normalised.slice(0, MAX_INDEXED_LENGTH).split(" ")) {
		const chars = [...word];
		if (chars.length === 0) continue;
		if (chars.length <= 3) {
			out.add(word);
			continue;
		}
		for (let i = 0; i + 3 <= chars.length; i++) out.add(chars.slice(i, i + 3).join(""));
	}
	return [...out];
}

/** The fragments a candidate query uses: all of them for short names, an even spread for long ones. */
export function queryFragments(normalised: string): string[] {
	const all = nameFragments(normalised);
	if (all.length <= MAX_QUERY_FRAGMENTS) return all;
	const step = all.length / MAX_QUERY_FRAGMENTS;
	const picked: string[] = [];
	for (let i = 0; i < MAX_QUERY_FRAGMENTS; i++) picked.push(all[Math.floor(i * step)]);
	return picked;
}

/** A node's aliases as a list, whether stored as a list or a comma-separated string. */
export function aliasesOf(props: Props): string[] {
	const value = props.aliases;
	const list = Array.isArray(value) ? value : typeof value === "string" ? value.split(",") : [];
	return list.filter((v): v is string => typeof v === "string" && v.trim().length > 0).map((v) => v.trim());
}

/**
 * The normalised names a node is found by: its key and its aliases, distinct, non-empty.
 * Backends index exactly these (see GraphStore.nameCandidates).
 */
export function indexedNames(key: string, props: Props): string[] {
	const names = new Set<string>();
	for (const raw of [key, ...aliasesOf(props).slice(0, 50)]) {
		const norm = normaliseName(raw);
		if (norm) names.add(norm.slice(0, MAX_INDEXED_LENGTH));
	}
	return [...names];
}
