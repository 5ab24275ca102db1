import { describe, expect, it } from "vitest";
import { bodyWikilinks, fileNameProblem, firstParagraph, inlineTags, maskCode, safeFileName } from "../../../src/engine/sync/markdown-text";

describe("maskCode", () => {
	it("returns a body without code or comments unchanged", () => {
		const body = "# Title\n\nPlain text with [[Link]] and #tag.\n";
		expect(maskCode(body)).toBe(body);
	});

	it("blanks fenced code, inline code and comments, keeping offsets", () => {
		const body = "See [[A]].\n```js\n[[B]] #no\n```\nText `[[C]]` %%[[D]]%% <!-- [[E]] --> [[F]] #yes\n~~~\n#no2\n~~~\n";
		const masked = maskCode(body);
		expect(masked).toHaveLength(body.length);
		expect(bodyWikilinks(masked)).toEqual(["A", "F"]);
		expect(inlineTags(masked)).toEqual(["yes"]);
	});

	it("blanks inline code and comments when there is no fence", () => {
		const masked = maskCode("a `[[X]]` b %% #hidden %% c <!-- [[Y]] --> [[Z]]");
		expect(bodyWikilinks(masked)).toEqual(["Z"]);
		expect(inlineTags(masked)).toEqual([]);
	});
});

describe("firstParagraph", () => {
	it("skips headings, lists and empty blocks, and joins the paragraph's lines", () => {
		expect(firstParagraph("# Title\n\n- item\n- item\n\n  \n\nFirst **real**\nparagraph.\n\nSecond.")).toBe("First real paragraph.");
	});

	it("reads a blockquote or callout, and the last block when nothing follows it", () => {
		expect(firstParagraph("## H\n\n> [!note] Title\n> Quoted [[Target|alias]] text")).toBe("Title Quoted alias text");
		expect(firstParagraph("# Only a heading")).toBeUndefined();
		expect(firstParagraph("")).toBeUndefined();
		expect(firstParagraph("a\n\n\nb")).toBe("a");
		expect(firstParagraph("# h\n\n\n\nlast")).toBe("last");
	});

	it("cuts long paragraphs", () => {
		expect(firstParagraph("word ".repeat(400), 20)).toBe(`${"word ".repeat(4).slice(0, 17)}...`);
	});
});

describe("safeFileName (every generated note name: agents' notes, Insights, the plugin's new notes)", () => {
	it("removes bidirectional, control and zero-width characters, so a name cannot disguise itself", () => {
		expect(safeFileName("Invoice \u202Edm.exe")).toBe("Invoice dm.exe");
		expect(safeFileName("\u2066Isolated\u2069 \u200Eleft\u200F \u061Cmark")).toBe("Isolated left mark");
		expect(safeFileName("Zero\u200Bwidth\u2060joined\uFEFF")).toBe("Zerowidthjoined");
		expect(safeFileName("tab\there\u0085next\u0007bell")).toBe("tabherenextbell");
	});

	it("keeps emoji sequences and scripts that need zero-width joiners", () => {
		expect(safeFileName("👩\u200D💻 notes")).toBe("👩\u200D💻 notes");
		expect(safeFileName("\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645")).toBe("\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645");
	});

	it("gives the composed (NFC) form, and replaces characters Windows refuses", () => {
		expect(safeFileName("Re\u0301sume\u0301")).toBe("R\u00e9sum\u00e9");
		expect(safeFileName('What? A: b*c|d"e<f>g')).toBe("What A b c d e f g");
	});
});

describe("fileNameProblem (existing notes: warned, still synced)", () => {
	it("names hidden characters by code point, and characters Windows refuses", () => {
		expect(fileNameProblem("Inbox/Invoice \u202Edm.exe.md")?.problem).toContain("U+202E");
		expect(fileNameProblem("Zero\u200Bwidth.md")?.problem).toContain("U+200B");
		expect(fileNameProblem("What? A: b.md")?.problem).toContain('"?" ":"');
		expect(fileNameProblem("👩\u200D💻 Café notes.md")).toBeUndefined();
	});
});
