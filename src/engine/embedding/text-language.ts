/**
 * Which languages a vault is written in, well enough to choose an embedding model: the default
 * local model reads English only, and a vault mostly in Spanish or Japanese is better served by a
 * multilingual one. Scripts decide where they are unambiguous (CJK, Cyrillic, Arabic, …); Latin
 * text is told apart by its most frequent short words, which every language has plenty of.
 */

/** Languages told apart by their function words: a handful of the most frequent each. */
const FUNCTION_WORDS: Readonly<Record<string, readonly string[]>> = {
	en: ["the", "and", "of", "to", "is", "in", "that", "it", "for", "with", "this", "are", "be", "on", "not", "you", "or", "have"],
	es: ["el", "la", "de", "que", "y", "en", "los", "las", "por", "con", "para", "una", "es", "del", "se", "como", "pero", "más"],
	fr: ["le", "la", "les", "de", "des", "et", "est", "un", "une", "du", "que", "qui", "dans", "pour", "pas", "sur", "avec", "ce"],
	de: ["der", "die", "das", "und", "ist", "nicht", "ein", "eine", "zu", "den", "mit", "von", "auf", "für", "sich", "dem", "auch", "es"],
	it: ["il", "di", "che", "e", "la", "per", "un", "una", "non", "sono", "del", "della", "con", "gli", "le", "anche", "come", "è"],
	pt: ["o", "a", "de", "que", "e", "do", "da", "em", "um", "uma", "para", "com", "não", "os", "as", "no", "na", "mais"],
	nl: ["de", "het", "een", "en", "van", "is", "dat", "niet", "op", "te", "zijn", "met", "voor", "er", "ook", "maar", "als", "bij"],
};

/** Scripts that name their language (or language family) on their own. */
const SCRIPTS: readonly { readonly language: string; readonly pattern: RegExp }[] = [
	{ language: "ja", pattern: /[\u3040-\u30ff]/gu },
	{ language: "ko", pattern: /[\uac00-\ud7af]/gu },
	{ language: "zh", pattern: /[\u4e00-\u9fff]/gu },
	{ language: "ru", pattern: /[\u0400-\u04ff]/gu },
	{ language: "ar", pattern: /[\u0600-\u06ff]/gu },
	{ language: "he", pattern: /[\u0590-\u05ff]/gu },
	{ language: "th", pattern: /[\u0e00-\u0e7f]/gu },
	{ language: "hi", pattern: /[\u0900-\u097f]/gu },
	{ language: "el", pattern: /[\u0370-\u03ff]/gu },
];

const WORD_LANGUAGES = new Map<string, string[]>();
for (const [language, words] of Object.entries(FUNCTION_WORDS)) {
	for (const word of words) WORD_LANGUAGES.set(word, [...(WORD_LANGUAGES.get(word) ?? []), language]);
}

/** Below this many letters or function words a text says too little to be counted. */
const MIN_LETTERS = 40;
const MIN_FUNCTION_WORDS = 5;

/** The language of one text (an ISO 639-1 code), or null when it is too short or unclear. */
export function guessLanguage(text: string): string | null {
	// Code, links and frontmatter are not prose: they would make every vault English.
	const prose = text
		.replace(/^---[\s\S]*?\n---/, "")
		.replace(/```[\s\S]*?```|`[^`]*`/g, " ")
		.replace(/https?:\/\/\S+|\[\[[^\]]*\]\]/g, " ");
	const letters = (prose.match(/\p{L}/gu) ?? []).length;
	if (letters < MIN_LETTERS) return null;
	// Japanese mixes kana with Han: kana decides before Han is counted as Chinese.
	for (const { language, pattern } of SCRIPTS) {
		const count = (prose.match(pattern) ?? []).length;
		if (count / letters >= 0.3 || (language === "ja" && count / letters >= 0.05)) return language;
	}
	const votes = new Map<string, number>();
	let seen = 0;
	for (const word of prose.toLowerCase().match(/\p{L}+/gu) ?? []) {
		const languages = WORD_LANGUAGES.get(word);
		if (!languages) continue;
		seen++;
		// A word shared by several languages (de, la, en) counts a fraction for each.
		for (const language of languages) votes.set(language, (votes.get(language) ?? 0) + 1 / languages.length);
	}
	if (seen < MIN_FUNCTION_WORDS) return null;
	const ranked = [...votes].sort((a, b) => b[1] - a[1]);
	return ranked[0]?.[0] ?? null;
}

/**
 * English words of questions and commands beside the function words: a query is a few words, so
 * one of these is enough to call it English (shared words such as "a", "no", "do" are left out).
 */
const ENGLISH_QUERY_WORDS = new Set([...FUNCTION_WORDS.en, "what", "which", "who", "how", "why", "when", "where", "did", "does", "was", "were", "my", "i", "at", "from", "by", "an", "his", "her", "she", "they", "we", "your", "their", "its", "would", "could", "will", "has", "had", "been", "if", "any", "there", "can", "should", "about"]);
/** A Latin letter with an accent (é, ñ, ü, ç, ø, …). */
const ACCENTED = /[\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f]/u;

/**
 * Whether a short text such as a search query is English, where guessLanguage needs a paragraph:
 * "other" when another script makes up its letters, or it holds no English function word and
 * either two of another language's or an accented word ("qué pasa con las lecturas fantasma");
 * "en" with one English function word ("the café" stays English); null when it cannot tell
 * ("PostgreSQL", "SFIA define siete niveles").
 */
export function queryLanguage(text: string): "en" | "other" | null {
	const letters = (text.match(/\p{L}/gu) ?? []).length;
	if (letters === 0) return null;
	if (SCRIPTS.some(({ pattern }) => (text.match(pattern) ?? []).length / letters >= 0.3)) return "other";
	const words = text.toLowerCase().match(/\p{L}+/gu) ?? [];
	if (words.some((w) => ENGLISH_QUERY_WORDS.has(w))) return "en";
	const foreign = words.filter((w) => WORD_LANGUAGES.has(w)).length;
	return foreign >= 2 || words.some((w) => ACCENTED.test(w)) ? "other" : null;
}

export interface LanguageShare {
	readonly language: string;
	/** Share of the texts whose language could be told, 0–1. */
	readonly share: number;
}

/** The languages of `texts`, most frequent first; texts too short to tell are left out. */
export function languageShares(texts: Iterable<string>): LanguageShare[] {
	const counts = new Map<string, number>();
	let told = 0;
	for (const text of texts) {
		const language = guessLanguage(text);
		if (language === null) continue;
		told++;
		counts.set(language, (counts.get(language) ?? 0) + 1);
	}
	return [...counts]
		.map(([language, count]) => ({ language, share: count / told }))
		.sort((a, b) => b.share - a.share || (a.language < b.language ? -1 : 1));
}

/** True when at least half of the texts that could be told are English (or none could be told). */
export function mostlyEnglish(shares: readonly LanguageShare[]): boolean {
	if (shares.length === 0) return true;
	return (shares.find((s) => s.language === "en")?.share ?? 0) >= 0.5;
}

const NAMES: Readonly<Record<string, string>> = {
	en: "English",
	es: "Spanish",
	fr: "French",
	de: "German",
	it: "Italian",
	pt: "Portuguese",
	nl: "Dutch",
	ja: "Japanese",
	ko: "Korean",
	zh: "Chinese",
	ru: "Russian or another Cyrillic language",
	ar: "Arabic",
	he: "Hebrew",
	th: "Thai",
	hi: "Hindi",
	el: "Greek",
};

/** "Spanish 78 %, English 20 %": the first few languages, for a sentence shown to people. */
export function describeLanguages(shares: readonly LanguageShare[], max = 3): string {
	return shares
		.slice(0, max)
		.map((s) => `${NAMES[s.language] ?? s.language} ${Math.round(s.share * 100)} %`)
		.join(", ");
}
