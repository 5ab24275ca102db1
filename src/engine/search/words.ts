/**
 * Words in every script, for both fulltext backends (FTS5's unicode61 and the Neo4j store's
 * tokens split text at spaces and punctuation only, so a run of Chinese, Japanese, Korean or Thai
 * was one token and nothing inside it could be found).
 *
 * - Han, kana and Hangul runs are indexed as overlapping character pairs plus the run's last
 *   character (Lucene's CJK convention, what Neo4j's `cjk` analyzer does): any substring of two
 *   or more characters is then a phrase of pairs, whatever a dictionary would call a word there.
 *   `Intl.Segmenter` splits these runs differently in different sentences ("数据库" alone, "数据|库"
 *   inside "数据库迁移到…"), so it only splits queries into words, never the index.
 * - Thai, Lao, Khmer and Myanmar runs are split into words by `Intl.Segmenter` (ICU's
 *   dictionaries) on both sides; pairs of letters of an alphabet would match nearly anything.
 * - Every other script keeps its spaces; a run of another script inside one of these (a
 *   "PostgreSQL" in a Chinese sentence) becomes a word of its own.
 *
 * Without `Intl.Segmenter` (a WebView older than iOS 14.5) the Southeast Asian runs stay whole,
 * as before; pairs need no segmenter.
 */

/** A letter of a script written without spaces between words that is indexed in pairs. */
const PAIRED = String.raw`(?=[\p{L}\p{Nl}])[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}]`;
/** A letter or mark of a script whose words a dictionary finds. */
const DICTIONARY = String.raw`(?=[\p{L}\p{M}])[\p{scx=Thai}\p{scx=Lao}\p{scx=Khmer}\p{scx=Myanmar}]`;

let built: { readonly runs: RegExp; readonly anySpecial: RegExp; readonly isPaired: RegExp } | undefined;

/**
 * The patterns over those scripts, built on first use: building their \p{scx=…} classes took
 * about 1.5 ms, which every Obsidian start paid while main.js was evaluated.
 */
function scripts() {
	built ??= {
		runs: new RegExp(String.raw`((?:${PAIRED})+)|((?:${DICTIONARY})+)`, "gu"),
		anySpecial: new RegExp(String.raw`${PAIRED}|${DICTIONARY}`, "u"),
		isPaired: new RegExp(String.raw`^(?:${PAIRED})+$`, "u"),
	};
	return built;
}

type Segment = { readonly segment: string; readonly isWordLike?: boolean };
type WordSegmenter = { segment(text: string): Iterable<Segment> };

let segmenter: WordSegmenter | null | undefined;

function wordSegmenter(): WordSegmenter | null {
	if (segmenter === undefined) {
		const intl = Intl as unknown as { Segmenter?: new (locale: string, options: { granularity: "word" }) => WordSegmenter };
		segmenter = typeof intl.Segmenter === "function" ? new intl.Segmenter("und", { granularity: "word" }) : null;
	}
	return segmenter;
}

/** The dictionary's words of a run (the run itself without a segmenter). */
function dictionaryWords(run: string): string[] {
	const seg = wordSegmenter();
	if (!seg) return [run];
	const out: string[] = [];
	for (const part of seg.segment(run)) if (part.isWordLike !== false && /[\p{L}\p{N}]/u.test(part.segment)) out.push(part.segment);
	return out.length > 0 ? out : [run];
}

/** A run's overlapping character pairs and its last character: "数据库" → "数据 据库 库". */
export function pairs(run: string): string {
	const chars = Array.from(run);
	if (chars.length <= 1) return run;
	const out: string[] = [];
	for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i] + chars[i + 1]);
	out.push(chars[chars.length - 1]);
	return out.join(" ");
}

/** A phrase of pairs matching the run wherever it stands in indexed text (no trailing single). */
function pairPhrase(run: string): string {
	const chars = Array.from(run);
	if (chars.length <= 1) return run;
	const out: string[] = [];
	for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i] + chars[i + 1]);
	return out.join(" ");
}

/** True when text holds a script whose indexed form differs from the text (what indexText changes). */
export function needsSegmenting(text: string): boolean {
	return scripts().anySpecial.test(text);
}

/** Text as the fulltext index should see it: unchanged unless it holds one of the scripts above. */
export function indexText(text: string): string {
	if (!scripts().anySpecial.test(text)) return text;
	return text.replace(scripts().runs, (_match, paired: string | undefined, dictionary: string | undefined) =>
		paired ? ` ${pairs(paired)} ` : ` ${dictionaryWords(dictionary ?? "").join(" ")} `,
	);
}

/** True when a query term is one Han, kana or Hangul character: it must match as a prefix of a pair. */
export function isSingleCharTerm(term: string): boolean {
	return Array.from(term).length === 1 && scripts().isPaired.test(term);
}

/** The terms one query word of a paired script yields: its words' phrases and the whole run's. */
function pairedTerms(run: string): string[] {
	const terms: string[] = [];
	const whole = pairPhrase(run);
	for (const word of dictionaryWords(run)) {
		// A one-character word inside a longer run (a particle, "的") matches nearly every note and
		// the whole run's phrase already holds it.
		if (Array.from(word).length === 1 && Array.from(run).length > 1) continue;
		terms.push(pairPhrase(word));
	}
	if (!terms.includes(whole)) terms.push(whole);
	return terms;
}

/**
 * The terms of a free-text query, lower-cased and distinct, at most `maxTerms`: each a word, or
 * several index tokens separated by spaces, which backends search as one phrase.
 */
export function queryTerms(text: string, maxTerms = 32): string[] {
	const words = text.normalize("NFC").match(/[\p{L}\p{M}\p{N}_]+/gu) ?? [];
	const terms: string[] = [];
	const add = (term: string) => {
		const lower = term.toLowerCase();
		if (lower.length === 0 || lower.length > 64 || terms.includes(lower) || terms.length >= maxTerms) return;
		terms.push(lower);
	};
	for (const word of words) {
		if (!scripts().anySpecial.test(word)) {
			if (/[\p{L}\p{N}_]/u.test(word)) add(word.replace(/^\p{M}+/u, ""));
			continue;
		}
		let last = 0;
		for (const match of word.matchAll(scripts().runs)) {
			const index = match.index ?? 0;
			if (index > last) add(word.slice(last, index));
			if (match[1]) for (const term of pairedTerms(match[1])) add(term);
			else for (const term of dictionaryWords(match[2])) add(term);
			last = index + match[0].length;
		}
		if (last < word.length) add(word.slice(last));
	}
	return terms;
}
