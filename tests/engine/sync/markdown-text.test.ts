import { describe, expect, it } from "vitest";
import { bodyWikilinks, firstParagraph, inlineTags, maskCode } from "../../../src/engine/sync/markdown-text";

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
