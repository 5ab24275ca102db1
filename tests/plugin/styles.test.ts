// styles.css follows the writing direction: logical properties only (right-to-left vaults mirror the
// panel), and only Obsidian's theme variables for colours.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";

const css = readFileSync(join(__dirname, "..", "..", "styles.css"), "utf8");

test("no physical left/right property or value in styles.css", () => {
	const physical = css.split("\n").filter((line) => /^\s*(margin|padding|border)-(left|right)\b|^\s*(left|right)\s*:|text-align:\s*(left|right)|float:\s*(left|right)/.test(line));
	expect(physical).toEqual([]);
	expect(css).toContain("padding-inline-start");
});
