import { contentWords, isStopword, stem } from "./query-text";

/**
 * Words that mean the same as a word, most common sense first (a lexical resource such as WordNet;
 * src/nodejs/wordnet-synonyms.ts). Synchronous: a lookup is a few reads of files already open.
 */
export interface SynonymSource {
	readonly name: string;
	synonyms(word: string): readonly string[];
}

/**
 * The fulltext query with up to `perWord` synonyms of each content word appended ("car" also
 * finds "automobile"). Synonyms that are function words, repeat a query word, or share its stem
 * are left out; multi-word synonyms are skipped (the fulltext channel ORs single words).
 */
export function withSynonyms(fulltextQuery: string, rawQuery: string, source: SynonymSource, perWord: number, prefix: boolean): string {
	if (perWord <= 0) return fulltextQuery;
	const have = new Set(fulltextQuery.split(" ").filter(Boolean));
	const added: string[] = [];
	// Capitalised words are names ("Caroline"): a thesaurus has nothing right to add to them.
	const names = new Set((rawQuery.normalize("NFC").match(/\p{Lu}[\p{L}\p{N}_]*/gu) ?? []).map((w) => w.toLowerCase()));
	for (const word of new Set(contentWords(rawQuery))) {
		if (isStopword(word) || names.has(word) || word.length < 3 || /\d/.test(word)) continue;
		let taken = 0;
		for (const synonym of source.synonyms(word)) {
			if (taken >= perWord) break;
			const s = synonym.toLowerCase();
			if (!/^[\p{L}]+$/u.test(s) || isStopword(s)) continue;
			// Stems where the channel matches them as prefixes (stemmedKeywordQuery), else the word.
			const stemmed = prefix ? stem(s) : s;
			// Another form of the word itself ("cars" for "car") adds nothing.
			if (have.has(stemmed) || s.startsWith(stem(word)) || word.startsWith(stem(s))) continue;
			have.add(stemmed);
			added.push(stemmed);
			taken++;
		}
	}
	return added.length === 0 ? fulltextQuery : `${fulltextQuery} ${added.join(" ")}`;
}
