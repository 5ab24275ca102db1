import * as chrono from "chrono-node";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { chronoMentions, formatRanges, mayMentionTime, resolveTimeMentions } from "../../../src/engine/temporal/time-mentions";

// The prefilter in front of chrono-node must never hide a date chrono would find: texts it says no
// to skip chrono. For text without a digit it says yes whenever either configured parser (English
// or Spanish casual) finds anything at all; for text with one, whenever resolveTimeMentions would
// keep something (chrono also finds bare times of day in numbers, "12", "at 5", which it drops).
const REF = new Date("2024-05-10T12:00:00Z");
const chronoFinds = (text: string) => {
	const ref = { instant: REF, timezone: 0 };
	return chrono.casual.parse(text, ref).length + chrono.es.casual.parse(text, ref).length > 0;
};
const hidden = (texts: readonly string[]) => texts.filter((t) => !mayMentionTime(t) && (/\d/.test(t) ? chronoMentions(t, REF).length > 0 : chronoFinds(t)));

const WORDS = `sunday sun monday mon tuesday tue wednesday wed thursday thurs thur thu friday fri saturday sat weekend weekday
	domingo dom lunes lun martes mar miércoles miercoles mié mie jueves jue viernes vie sábado sabado sáb sab
	january february march april may june july august september october november december jan feb mar apr jun jul aug sep sept oct nov dec
	enero febrero marzo abril mayo junio julio agosto septiembre setiembre octubre noviembre diciembre ene abr ago dic
	now today tonight tomorrow overmorrow tmr tmrw yesterday month ahora hoy mañana manana ayer night morning afternoon evening
	midnight midday noon tarde medianoche mediodia mediodía noche s sec second seconds m min mins minute minutes h hr hrs hour hours
	d day days w week weeks mo mos months qtr quarter quarters y yr year years segundo segundos minuto minutos hora horas día días dia
	dias semana semanas mes meses cuarto cuartos año años ano anos`
	.split(/\s+/)
	.filter(Boolean);
const BEFORE = ["", "on ", "this ", "last ", "next ", "past ", "in ", "of ", "the first of ", "third ", "within a ", "in a few ", "for two ", "a ", "the ", "+", "-", "el ", "este ", "esta ", "en ", "de ", "dentro de dos ", "por unos ", "en un ", "x", "on", "last", "this", "in", "the", "first"];
const AFTER = ["", ".", " ", ",", " ago", " later", " from now", " after", " out", " before", " earlier", " of this week", "this week", " first", "first", " of", "x", " de", " próximo", " semana", " and a day ago", "s"];

/** Seeded, so a failure names a text that fails again. */
function random(seed: number) {
	let s = seed >>> 0;
	return () => {
		s = (s * 1664525 + 1013904223) >>> 0;
		return s / 2 ** 32;
	};
}

describe("time mention prefilter", () => {
	it("finds the same dates as chrono on tricky texts: ISO dates, ordinals, weekdays, Spanish, numbers that are not dates", () => {
		const cases: [string, string[]][] = [
			["Released on 2023-04-05 after the freeze.", ["2023-04-05"]],
			["We met on March 3rd and again in June 2023.", ["2023-06-01/2023-06-30", "2024-03-03"]],
			["Deadline next Friday.", ["2024-05-17"]],
			["The retro was yesterday; the demo is tomorrow.", ["2024-05-09", "2024-05-11"]],
			["It broke last week.", ["2024-05-03/2024-05-09"]],
			["Two days ago the job failed.", ["2024-05-08"]],
			["Nos vimos ayer y el lunes.", ["2024-05-09", "2024-05-13"]],
			["Lo terminamos dentro de dos semanas.", ["2024-05-24"]],
			["See you in a week.", ["2024-05-17/2024-05-23"]],
			["Version 2.5 serves 300 users on 4 cores.", []],
			["It took 12 minutes", []],
			["The queue absorbs the bursts, but the consumer still has to keep up on average.", []],
		];
		for (const [text, want] of cases) {
			expect(formatRanges(resolveTimeMentions(text, REF)), text).toEqual(want);
		}
	});

	it("never hides what chrono finds: every calendar and time-unit word in the contexts chrono's patterns allow", () => {
		const texts: string[] = [];
		for (const word of WORDS) {
			for (const before of BEFORE) {
				for (const after of AFTER) texts.push(`${before}${word}${after}`, `Note: ${before}${word.toUpperCase()}${after} here`);
			}
		}
		expect(texts.length).toBeGreaterThan(10_000);
		expect(hidden(texts)).toEqual([]);
	});

	it("never hides what chrono finds: random runs of date words, number words and filler, with and without spaces", () => {
		const pieces = [...WORDS, ...BEFORE.map((b) => b.trim()), ...AFTER.map((a) => a.trim()), "one", "two", "twelve", "half", "few", "several", "couple", "an", "and", "uno", "dos", "algunos", "unos", "demi", "them", "they", "these", "layer", "know", "summary", "allowed", "at", "night", "o'clock", "(", ")", ",", "~", "about", "around", "just"];
		const next = random(18);
		const texts: string[] = [];
		for (let i = 0; i < 6000; i++) {
			const n = 1 + Math.floor(next() * 5);
			const parts = Array.from({ length: n }, () => pieces[Math.floor(next() * pieces.length)]);
			texts.push(parts.join(next() < 0.3 ? "" : " "));
		}
		expect(hidden(texts)).toEqual([]);
	});

	it("never hides what chrono finds in real prose: every line of the repository's docs", () => {
		const root = join(__dirname, "../../..");
		const files = ["README.md", ...readdirSync(join(root, "docs")).filter((f) => f.endsWith(".md")).map((f) => join("docs", f))];
		const lines = files.flatMap((f) => readFileSync(join(root, f), "utf8").split("\n")).filter((l) => l.trim() !== "");
		expect(lines.length).toBeGreaterThan(500);
		expect(hidden(lines)).toEqual([]);
	});

	it("lets text without a date skip chrono, lookalike words included", () => {
		for (const text of [
			"The queue absorbs the bursts, but the consumer still has to keep up on average.",
			"Moving the validation to the edge made the core simpler and the error messages clearer.",
			"A summary of the primary market: we allowed the player layer to know more.",
			"Decision: a common monitor for the domain; review the settings and the generated scene.",
			"Keeping the cache honest means deciding when data stops being true, not just when it is old.",
		]) {
			expect(mayMentionTime(text), text).toBe(false);
			expect(chronoFinds(text), text).toBe(false);
		}
		for (const text of ["Call on Monday", "in May", "hace 3 días", "esta tarde", "mañana", "two weeks later", "last night", "2024-05"]) {
			expect(mayMentionTime(text), text).toBe(true);
		}
	});

	it("never hides a date written with digits: chrono's numeric kinds in English and Spanish, in the contexts its patterns allow", () => {
		const numbers = ["1", "3", "05", "12", "24", "25", "31", "100", "1.5", "2024", "2024-05", "12:30"];
		const joins = ["", " ", "  ", "-", "/", ".", ":", ",", " of ", " de "];
		const tails = [
			...`s sec second seconds m min mins minute minutes h hr hrs hour hours d day days w week weeks mo mon mos month months qtr quarter
			quarters y yr year years segundo segundos minuto minutos hora horas día días dia dias semana semanas mes meses cuarto cuartos año años ano anos
			may june sept dic enero am pm a.m. p.m. o'clock st nd rd th ro º 05 5 2024 T10:00Z h30 hago hrsbefore dfrom hhalfam`.split(/\s+/),
			"days and 3 hours", "hours an hour", "hours a couple of minutes", "hhalf an hour", "horas y 2 minutos", "de mayo", "de mayo de 2024", "",
		].filter((t, i, all) => all.indexOf(t) === i);
		const before = ["", "in ", "within ", "for ", "+", "-", "about ", "last ", "next ", "this ", "at ", "on ", "dentro de ", "en ", "el ", "x", "bm", "since "];
		const after = ["", " ago", " later", " from now", "ago", "before", " and 2 hours", "x", " de 2024", " at 5pm", ", 2024", "s", " tomorrow"];
		const next = random(41);
		const pick = <T,>(list: readonly T[]) => list[Math.floor(next() * list.length)];
		const texts: string[] = [];
		for (const n of numbers) {
			for (const join of joins) {
				for (const tail of tails) {
					const core = `${n}${join}${tail}`;
					texts.push(core, `Note: ${core.toUpperCase()} here`);
					for (let i = 0; i < 3; i++) texts.push(`${pick(before)}${core}${pick(after)}`);
				}
			}
		}
		texts.push("Released 2024-05-01.", "due 5/1/2024", "el 12.05.2024", "in 05/2024", "2024 05 01", "2024/05/01 10:00", "3 days ago", "in 2 weeks", "+2d", "2h30m ago", "1.5 hours later", "dentro de 3 semanas", "en 2 días", "5pm tomorrow", "el 5 de mayo", "March 3rd 2024");
		expect(texts.length).toBeGreaterThan(20_000);
		expect(hidden(texts)).toEqual([]);
	});

	it("lets numbers that are not dates skip chrono: the digit alone no longer sends text to it", () => {
		for (const text of ["gozux bm25 hagorox", "Version 3 serves 300 users on 4 cores.", "p95 58 ms at 50k nodes", "25 hagorox", "sha256 of the file", "2 replicas, 16 shards"]) {
			expect(mayMentionTime(text), text).toBe(false);
			expect(chronoMentions(text, REF), text).toEqual([]);
		}
		for (const text of ["2024-05-01", "5/2024", "3 days ago", "in 2 weeks", "2hrsbefore", "dentro de 3 semanas", "2024 05 01"]) {
			expect(mayMentionTime(text), text).toBe(true);
			expect(chronoMentions(text, REF).length, text).toBeGreaterThan(0);
		}
	});

	it("stays linear on a long run of spaces after a word that starts a match (no two \\s* meet)", () => {
		const spaces = " ".repeat(50_000);
		const started = performance.now();
		for (const word of ["within", "in about", "one s", "a couple", "dos", "next", "3", "2024"]) expect(mayMentionTime(`${word}${spaces}x`), word).toBe(false);
		// Quadratic backtracking took 1.2 s for 20,000 spaces after "within"; linear is a few ms.
		expect(performance.now() - started).toBeLessThan(500);
	});
});
