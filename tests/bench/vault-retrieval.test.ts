import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type QuestionFile, scoreQuestion, sectionMatches, summarise } from "../../scripts/bench/vault-retrieval/scoring";

const ROOT = join(__dirname, "..", "..");
const readJson = (path: string) => JSON.parse(readFileSync(join(ROOT, path), "utf8")) as QuestionFile;

describe("vault retrieval scoring", () => {
	const q = { id: "q", question: "x", note: "a/b.md", section: "Folders > Tags" };

	it("matches a section by its heading or a heading path ending with it", () => {
		expect(sectionMatches("Folders > Tags", "Folders > Tags")).toBe(true);
		expect(sectionMatches("Guide > Folders > Tags", "Folders > Tags")).toBe(true);
		expect(sectionMatches("Setup / Install", "install")).toBe(true);
		expect(sectionMatches("Reinstall", "install")).toBe(false);
		expect(sectionMatches(undefined, "install")).toBe(false);
	});

	it("ranks the first result from the expected note, and its section only where passages say so", () => {
		const s = scoreQuestion(q, [
			{ path: "c.md", name: "c" },
			{ path: "a/b.md", name: "b", passages: [{ heading: "Other" }] },
			{ path: "a/b.md", name: "b2", passages: [{ heading: "Guide > Folders > Tags" }] },
		]);
		expect(s.noteRank).toBe(2);
		expect(s.sectionRank).toBe(3);
		expect(summarise([s])).toMatchObject({ n: 1, note5: 1, section5: 1 });
	});

	it("reports section hits as not available when no result carries passages", () => {
		const s = scoreQuestion(q, [{ path: "a/b.md", name: "b" }]);
		expect(summarise([s])).toEqual({ n: 1, note5: 1, note10: 1, section5: undefined, section10: undefined });
		const miss = scoreQuestion(q, [{ path: "c.md", name: "c", passages: [] }]);
		expect(summarise([miss])).toMatchObject({ note5: 0, section5: 0 });
	});
});

describe("obsidian-hub questions", () => {
	const file = readJson("scripts/bench/vault-retrieval/questions-obsidian-hub.json");

	it("pins a commit and holds at least 60 questions, each with a note and a section", () => {
		expect(file.commit).toMatch(/^[0-9a-f]{40}$/);
		expect(file.questions.length).toBeGreaterThanOrEqual(60);
		expect(new Set(file.questions.map((x) => x.id)).size).toBe(file.questions.length);
		for (const x of file.questions) {
			expect(x.note).toMatch(/\.md$/);
			expect(x.section?.trim()).toBeTruthy();
			expect(x.question.trim().length).toBeGreaterThan(5);
		}
	});

	it("splits by note into a tuning and a held-out half of similar size", () => {
		const halves = new Map<string, string>();
		for (const x of file.questions) {
			expect(["tuning", "held-out"]).toContain(x.split);
			expect(halves.get(x.note) ?? x.split).toBe(x.split);
			halves.set(x.note, x.split as string);
		}
		const tuning = file.questions.filter((x) => x.split === "tuning").length;
		expect(Math.abs(2 * tuning - file.questions.length)).toBeLessThanOrEqual(6);
	});
});

/** Lower case without accents, as a reader typing without them would write. */
const fold = (s: string) => s.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();

/** The body of the section under `heading` (up to the next heading), or undefined. */
function sectionBody(text: string, heading: string): string | undefined {
	const lines = text.split("\n");
	const start = lines.findIndex((l) => /^#{1,6}\s/.test(l) && l.replace(/^#+\s*/, "").trim() === heading);
	if (start < 0) return undefined;
	const end = lines.findIndex((l, i) => i > start && /^#{1,6}\s/.test(l));
	return lines.slice(start + 1, end < 0 ? undefined : end).join("\n");
}

describe("multilingual fixture vault", () => {
	const dir = "tests/fixtures/multilingual-vault";
	const file = readJson(`${dir}/questions.json`);
	const text = (note: string) => readFileSync(join(ROOT, dir, note), "utf8");

	it("holds at least five notes with several headings per language", () => {
		for (const folder of ["中文", "日本語", "한국어", "ไทย", "Français"]) {
			const notes = readdirSync(join(ROOT, dir, folder)).filter((f) => f.endsWith(".md"));
			expect(notes.length, folder).toBeGreaterThanOrEqual(5);
			for (const note of notes) expect(text(`${folder}/${note}`).match(/^##\s/gm)?.length ?? 0, note).toBeGreaterThanOrEqual(3);
		}
		expect(file.questions.length).toBeGreaterThanOrEqual(25);
		expect(new Set(file.questions.map((x) => x.language))).toEqual(new Set(["zh", "ja", "ko", "th", "fr"]));
	});

	it("puts every answer in its section's body, past the first paragraph and never in the title", () => {
		for (const x of file.questions) {
			const body = sectionBody(text(x.note), x.section as string);
			expect(body, `${x.id}: section ${x.section}`).toBeDefined();
			const words = fold(x.question).split(/\s+/);
			for (const w of words) expect(fold(body as string), `${x.id}: ${w}`).toContain(w);
			// The first paragraph is what sync indexes today (the description): the answer is past it.
			const intro = text(x.note).replace(/^---\n[\s\S]*?\n---\n/, "").split(/^## /m)[0].replace(/^# .*$/m, "");
			expect(intro.trim(), `${x.id}: a paragraph before the first section`).not.toBe("");
			for (const w of words) expect(fold(intro), `${x.id}: ${w} in the first paragraph`).not.toContain(w);
			const title = fold(x.note.split("/").pop() as string) + "\n" + fold(text(x.note).match(/^# (.*)$/m)?.[1] ?? "");
			for (const w of words) expect(title, `${x.id}: ${w} in the title`).not.toContain(w);
		}
	});

	it("asks for words that a space-separated tokenizer cannot find on its own", () => {
		for (const x of file.questions.filter((q) => q.language !== "fr")) {
			// The word never stands alone between spaces or punctuation: it sits inside a longer run
			// (CJK, Thai) or carries a particle (Korean), so only segmentation can find it.
			const tokens = text(x.note).split(/[\s\p{P}\p{S}]+/u);
			expect(tokens, `${x.id}: ${x.question}`).not.toContain(x.question);
			expect(tokens.some((t) => t.includes(x.question)), x.id).toBe(true);
		}
		const accentless = file.questions.filter((q) => q.language === "fr" && fold(q.question) === q.question && !text(q.note).includes(q.question));
		expect(accentless.length).toBeGreaterThanOrEqual(2);
	});
});
