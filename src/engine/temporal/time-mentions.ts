/**
 * Dates in text: time expressions ("yesterday", "last week", "in May", "June 2023") resolved with
 * chrono-node against a reference instant, as day ranges. An item's expressions are resolved
 * against the item's own date when it is written (stored as `mentioned_dates`), a query's against
 * now; search matches the two as date ranges.
 */
import type { ParsedComponents } from "chrono-node";
import { parse as parseEnglish } from "chrono-node/en";
import { parse as parseSpanish } from "chrono-node/es";
import { ValidationError } from "../errors";
import type { NodeRecord } from "../types";
import { DAY_MS } from "./dates";

/** Inclusive range of UTC days, as YYYY-MM-DD. */
export interface DayRange {
	readonly from: string;
	readonly to: string;
}

export interface TimeMention extends DayRange {
	/** The words that said it ("last week"). */
	readonly text: string;
}

/** The prop that holds an item's resolved time expressions ("2023-05-07", "2023-05-01/2023-05-31"). */
export const MENTIONED_DATES = "mentioned_dates";
/** Enough for a note; more would mostly be noise from a long text. */
const MAX_MENTIONS = 32;
/** chrono's casual parsers (chrono.casual, chrono.es.casual) by their locales' own `parse`: plain functions, which the command line's bundle loads on first call. */
const PARSERS = [parseEnglish, parseSpanish];

/*
 * What every match of those two parsers must contain, so that text without it skips chrono (a
 * note's text mostly has no date, and chrono runs some 30 regexes over it): a digit, or a month,
 * weekday or casual word ("today", "tarde"), or a number word with a time unit ("a week ago",
 * "next month", "dentro de dos semanas"). Each word is checked only with the letters chrono's own
 * patterns (chrono-node 2.10, src/locales/{en,es}) allow around it ("lastnight", "inMay" match
 * there), so this is a superset of what chrono finds; `i` without `u`, as chrono's, so \W and
 * case folding are the same. tests/engine/temporal/time-prefilter.test.ts checks the superset.
 */
const alt = (words: string) => `(?:${words.trim().split(/\s+/).join("|")})`;
const WEEKDAYS = alt(`sunday sun monday mon tuesday tue wednesday wed thursday thurs thur thu friday fri saturday sat weekend weekday
	domingo dom lunes lun martes mar miércoles miercoles mié mie jueves jue viernes vie sábado sabado sáb sab`);
const RELATIVE = "on|this|last|past|next|este|esta|pasado|pr[oó]ximo";
const MONTHS = alt(`january february march april may june july august september october november december
	jan feb mar apr jun jul aug sep sept oct nov dec
	enero febrero marzo abril mayo junio julio agosto septiembre setiembre octubre noviembre diciembre ene abr ago dic`);
const ORDINALS = alt(`first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth fourteenth
	fifteenth sixteenth seventeenth eighteenth nineteenth twentieth twenty thirtieth thirty`);
const CASUAL = alt("now today tonight tomorrow overmorrow tmr tmrw yesterday month ahora hoy mañana manana ayer");
const DAYPARTS = alt("night morning afternoon evening midnight midday noon tarde medianoche mediodia mediodía noche mañana manana");
const EN_NUMBER = alt("one two three four five six seven eight nine ten eleven twelve half an? few several the couple of");
const EN_UNIT = alt("s sec seconds? m min mins minutes? h hr hrs hours? d days? w weeks? mo mon mos months? qtr quarters? y yr years?");
const EN_NEXT_NUMBER = `\\d|and|${EN_NUMBER.slice(3, -1)}|a`;
const ES_NUMBER = alt("uno dos tres cuatro cinco seis siete ocho nueve diez once doce trece u un una algunos? unos? demi-?");
const ES_UNIT = alt("sec segundos? min mins minutos? h hr hrs horas? días? dias? semanas? mes meses cuartos? años? anos?");
const ES_NEXT_NUMBER = "\\d|uno|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|once|doce|trece|u|algun|demi";
// Left contexts are matched, not looked behind for: the same for test(), and much faster (a
// lookbehind first in an alternative runs at every position of the text). Spaces are \s* where
// chrono allows a few (\s{0,3}): a superset, and V8 compiles a copy of the atom per allowed count,
// which made building the pattern 2 to 3 times dearer (≈ 10 against ≈ 4 ms of a command line
// remember). No two \s* meet without a letter between, so a long run of spaces is not backtracked
// through quadratically.
const MAY_MENTION_PARTS = [
		`(?:^|\\W|${RELATIVE})${WEEKDAYS}(?=\\W|$|of|${RELATIVE})`,
		`(?:^|\\W|in|of|st|nd|rd|th|en|de|o|a)${MONTHS}(?=\\W|$|of|de|${ORDINALS.slice(3, -1)})`,
		`(?:^|\\W)${CASUAL}(?=\\W|$)`,
		`(?:^|\\W|this|last|esta)${DAYPARTS}(?=\\W|$)`,
		// "next month", "in a few days", "+2 weeks"; "two days ago", "a week later".
		`(?:this|last|past|next)\\s*${EN_UNIT}(?=\\W|$)`,
		`(?:within|in|for|this|last|past|next|after|[+-])\\s*(?:(?:about|around|roughly|approximately|just)\\s*(?:~\\s*)?)?(?:(?:about|around)\\s*)?(?:(?:an?|half|(?:a\\s*)?couple)\\s*)?${EN_NUMBER}\\s*${EN_UNIT}(?=\\W|$|${EN_NEXT_NUMBER})`,
		`${EN_NUMBER}\\s*${EN_UNIT}\\s*(?:,\\s*)?(?:and\\s*)?(?:ago|before|earlier|later|after|from now|henceforth|forward|out)`,
		`(?:en|por|durante|de)\\s*${ES_NUMBER}\\s*${ES_UNIT}(?=\\W|$|${ES_NEXT_NUMBER})`,
];
/*
 * Digits say a date only in these shapes (any digit let chrono run: "bm25", "300 users", "p95"):
 * two numbers joined by - / . (ISO and slash dates, "5/2024", "12.05.2024"; a version "2.5" too,
 * which chrono's slash parser reads as a date), a year, a space and a number ("2024 05 01"), a
 * month right after a number ("2024may", "5ago": August 5; with a space or a sign between, the
 * month's own pattern lets it through), and a number with a time unit ("3 days ago", "in 2 weeks", "+2d", "dentro de 3 semanas"). The unit
 * must end where chrono's patterns let it end: before a non-word, a digit ("2h30m"), "and", the
 * words after a duration ("2hrsbefore"), or a number word with its unit ("1 houran hour" and
 * "3hhalfam" are durations to chrono; "25 hagorox" is none). A number alone or with a time of day ("5pm", "at 17:00") is a
 * time chrono finds and resolveTimeMentions drops; with a date ("tomorrow at 5", "May 3 at
 * 17:00") the date's own words let it through.
 */
const AFTER_DURATION = "(?:ago|before|earlier|later|after|from\\s*now|henceforth|forward|out)(?=\\W|$)";
const EN_NUMBER_WORD = "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|half|few|several|the|couple";
const UNIT_END = `(?=\\W|$|\\d|and|${AFTER_DURATION}|an?\\W|a?\\s*couple|(?:${EN_NUMBER_WORD})\\s*(?:an?\\s*)?(?:${EN_UNIT}|few|an?\\W|couple|of)|${ES_NUMBER}\\s*${ES_UNIT})`;
const DIGIT_PARTS = ["\\d[-./]\\d", "\\d{4}\\s\\d", `\\d${MONTHS}`, `\\d\\s*(?:${EN_UNIT}|${ES_UNIT})${UNIT_END}`];
/** Built on first use: compiling them took about 1 ms of every Obsidian start while main.js was evaluated. */
let mayMentionPattern: RegExp | undefined;
let digitPattern: RegExp | undefined;

/** False when `text` cannot hold a time expression chrono would find and resolveTimeMentions keep (see MAY_MENTION_PARTS and DIGIT_PARTS). */
export function mayMentionTime(text: string): boolean {
	if (/\d/.test(text)) {
		digitPattern ??= new RegExp(DIGIT_PARTS.join("|"), "i");
		if (digitPattern.test(text)) return true;
	}
	mayMentionPattern ??= new RegExp(MAY_MENTION_PARTS.join("|"), "i");
	return mayMentionPattern.test(text);
}

const day = (y: number, m: number, d: number) => new Date(Date.UTC(y, m - 1, d)).toISOString().slice(0, 10);

function rangeOf(c: ParsedComponents): DayRange {
	const y = c.get("year") ?? 1970;
	const m = c.get("month") ?? 1;
	const d = c.get("day") ?? 1;
	// What the words fix: a day (also "last Saturday", "tonight"), else a month ("in May"), else a year.
	if (c.isCertain("day") || c.isCertain("weekday") || c.isCertain("hour")) return { from: day(y, m, d), to: day(y, m, d) };
	if (c.isCertain("month")) return { from: day(y, m, 1), to: day(y, m + 1, 0) };
	if (c.isCertain("year")) return { from: day(y, 1, 1), to: day(y, 12, 31) };
	return { from: day(y, m, d), to: day(y, m, d) };
}

/**
 * The time expressions of `text` as day ranges, resolved against `reference` (UTC). Durations
 * ("for 4 years") are not dates and are skipped; English and Spanish.
 */
export function resolveTimeMentions(text: string, reference: Date): TimeMention[] {
	return mayMentionTime(text) ? chronoMentions(text, reference) : [];
}

/** resolveTimeMentions without the prefilter: what mayMentionTime must never hide (tests/engine/temporal/time-prefilter.test.ts). */
export function chronoMentions(text: string, reference: Date): TimeMention[] {
	if (!text || !Number.isFinite(reference.getTime())) return [];
	const ref = { instant: reference, timezone: 0 };
	const taken: [number, number][] = [];
	const out: TimeMention[] = [];
	for (const parse of PARSERS) {
		for (const r of parse(text, ref)) {
			const end = r.index + r.text.length;
			if (taken.some(([a, b]) => r.index < b && end > a)) continue;
			if (/^(for|durante|por)\s/i.test(r.text)) continue;
			// A bare time of day ("at 3 pm", "this morning") says no more than the item's own date.
			if (!r.start.isCertain("day") && !r.start.isCertain("weekday") && !r.start.isCertain("month") && !r.start.isCertain("year") && !isRelativeDay(r.text)) continue;
			taken.push([r.index, end]);
			const start = rangeOf(r.start);
			// "last week" fixes a day a week back; the week it names runs on from there.
			const week = !r.end && /\b(week|semana)\b/i.test(r.text) ? { from: start.from, to: addDays(start.from, 6) } : start;
			const range = r.end ? { from: start.from, to: maxDay(start.to, rangeOf(r.end).to) } : week;
			out.push({ text: r.text, ...range });
			if (out.length >= MAX_MENTIONS) return out;
		}
	}
	return out;
}

function isRelativeDay(text: string): boolean {
	return /\b(today|tonight|yesterday|tomorrow|weekend|hoy|ayer|mañana)\b/i.test(text);
}

const maxDay = (a: string, b: string) => (a > b ? a : b);
const addDays = (iso: string, n: number) => new Date(Date.parse(iso) + n * DAY_MS).toISOString().slice(0, 10);

/** Ranges as stored: "YYYY-MM-DD" for one day, "YYYY-MM-DD/YYYY-MM-DD" for more; unique, in order. */
export function formatRanges(ranges: readonly DayRange[]): string[] {
	return [...new Set(ranges.map((r) => (r.from === r.to ? r.from : `${r.from}/${r.to}`)))].sort();
}

/** A stored range back ("2023-05-07" or "2023-05-01/2023-05-31"); undefined when it is not one. */
export function parseRange(value: unknown): DayRange | undefined {
	if (typeof value !== "string") return undefined;
	const m = /^(\d{4}-\d{2}-\d{2})(?:\/(\d{4}-\d{2}-\d{2}))?$/.exec(value);
	if (!m) return undefined;
	return { from: m[1], to: m[2] ?? m[1] };
}

/** The UTC day of an ISO instant, or undefined. */
export function dayOf(iso: unknown): string | undefined {
	if (typeof iso !== "string") return undefined;
	const t = Date.parse(iso);
	return Number.isFinite(t) ? new Date(t).toISOString().slice(0, 10) : undefined;
}

/** The item's own date: valid_from (a note's date, a session's date), else when it was created. */
export function itemDay(node: Pick<NodeRecord, "props" | "createdAt">): string | undefined {
	return dayOf(node.props.valid_from) ?? dayOf(node.createdAt);
}

/** Every date an item carries: its own and those its text mentions. */
export function itemRanges(node: Pick<NodeRecord, "props" | "createdAt">): DayRange[] {
	const own = itemDay(node);
	const mentioned = node.props[MENTIONED_DATES];
	const list = Array.isArray(mentioned) ? mentioned : [];
	return [...(own ? [{ from: own, to: own }] : []), ...list.map(parseRange).filter((r): r is DayRange => r !== undefined)];
}

export function overlaps(a: DayRange, b: DayRange): boolean {
	return a.from <= b.to && b.from <= a.to;
}

/** Days between two ranges (0 when they overlap). */
export function gapDays(a: DayRange, b: DayRange): number {
	if (overlaps(a, b)) return 0;
	const [early, late] = a.to < b.from ? [a.to, b.from] : [b.to, a.from];
	return (Date.parse(late) - Date.parse(early)) / DAY_MS;
}

/** What a query says about time: the dates it names, and whether it asks when something happened. */
export interface QueryTimeCues {
	readonly ranges: readonly DayRange[];
	/** "When did…", "what year…", "how long ago…", "¿cuándo…": the answer is a date. */
	readonly asksWhen: boolean;
}

const ASKS_WHEN = /\b(when|what (year|month|day|date|time)|which (year|month|day|date)|how long ago|how long has|since when|cu[aá]ndo|qu[eé] (a[nñ]o|mes|d[ií]a|fecha))\b/i;

export function queryTimeCues(query: string, now: Date): QueryTimeCues {
	return { ranges: resolveTimeMentions(query, now).map(({ from, to }) => ({ from, to })), asksWhen: ASKS_WHEN.test(query) };
}

/**
 * A date filter from user input: either end may be missing (open). Dates are days (YYYY-MM-DD)
 * or ISO date-times (their UTC day). Undefined when neither end is given.
 */
export function dayRangeFromInput(from: string | undefined, to: string | undefined): DayRange | undefined {
	if (from === undefined && to === undefined) return undefined;
	const read = (name: string, value: string | undefined, open: string) => {
		if (value === undefined || value.trim() === "") return open;
		const d = dayOf(/^\d{4}-\d{2}-\d{2}$/.test(value.trim()) ? `${value.trim()}T00:00:00Z` : value.trim());
		if (!d) throw new ValidationError(`${name} "${value.slice(0, 40)}" is not a date. Use YYYY-MM-DD, e.g. 2026-01-31.`);
		return d;
	};
	const range = { from: read("date_from", from, "0000-01-01"), to: read("date_to", to, "9999-12-31") };
	if (range.from > range.to) throw new ValidationError(`date_from ${range.from} is after date_to ${range.to}.`);
	return range;
}
