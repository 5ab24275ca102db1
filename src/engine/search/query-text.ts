/**
 * What the fulltext channel should look for: the query's content words. Function words ("what",
 * "did", "the", "de", "que") match nearly every node and drown the words that matter, so they
 * are dropped unless nothing else is left. English and Spanish, the seed's two languages.
 */
const STOPWORDS = new Set(
	(
		// English
		"a about above after again against all am an and any are as at be because been before being below between both but by can could " +
		"did do does doing down during each few for from further had has have having he her here hers herself him himself his how i if in " +
		"into is it its itself just me more most my myself no nor not now of off on once only or other our ours ourselves out over own " +
		"same she should so some such than that the their theirs them themselves then there these they this those through to too under " +
		"until up very was we were what when where which while who whom why will with would you your yours yourself yourselves " +
		"s t don doesn didn isn wasn aren weren won wouldn shouldn couldn ll ve re d m o y " +
		// Spanish
		"al algo algunas algunos ante antes como con contra cual cuando de del desde donde durante e el ella ellas ellos en entre era " +
		"eras es esa esas ese eso esos esta estaba estado estar este esto estos fue fueron ha han hay la las le les lo los mas me mi mis " +
		"mucho muy nada ni no nos nosotros o os otra otro para pero poco por porque que quien se sea ser si sin sobre son su sus tambien " +
		"te tiene tu tus un una uno unos vosotros y ya yo qué cómo cuál cuándo dónde quién"
	).split(" "),
);

/** A function word of English or Spanish (dropped from fulltext queries). */
export function isStopword(word: string): boolean {
	return STOPWORDS.has(word);
}

export function contentWords(text: string): string[] {
	// Marks belong to their word: Thai tone marks and vowel signs, Devanagari matras. Without them
	// "ตะไคร้" became "ตะไคร", which the segmenter then cut into words the note never held.
	return text.normalize("NFC").toLowerCase().match(/[\p{L}\p{M}\p{N}_]+/gu) ?? [];
}

/** The query for the fulltext channel: content words only, or the whole query if it has none. */
export function keywordQuery(text: string): string {
	const words = contentWords(text);
	const content = words.filter((w) => !STOPWORDS.has(w));
	return (content.length > 0 ? content : words).join(" ");
}


// Inflections only (plurals, -ing, -ed and their Spanish counterparts): what is left must still
// start every form of the word, because the fulltext channel matches it as a prefix.
const SUFFIXES = ["ings", "ing", "ies", "ied", "es", "ed", "s", "iendo", "ando", "adas", "idas", "ados", "idos", "ada", "ida", "ado", "ido"];

/** A word cut to the part all its inflections share ("researching" → "research"), at least 4 letters. */
export function stem(word: string): string {
	if (word.length < 5 || /\d/.test(word)) return word;
	for (const suffix of SUFFIXES) {
		if (!word.endsWith(suffix)) continue;
		if (suffix === "s" && /(ss|us|is)$/.test(word)) return word;
		const base = word.slice(0, -suffix.length);
		return base.length >= 4 ? base : word;
	}
	return word;
}

/** The fulltext query as stems, for prefix matching. */
export function stemmedKeywordQuery(text: string): string {
	return [...new Set(keywordQuery(text).split(" ").filter(Boolean).map(stem))].join(" ");
}
