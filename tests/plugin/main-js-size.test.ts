// main.js as `npm run build` makes it carries the SQLite WASM compressed, and decodes nothing while
// it is evaluated (Obsidian evaluates main.js at every start, on every device).
import { readFileSync } from "node:fs";
import { beforeAll, expect, test } from "vitest";
import { buildBundles } from "./harness";

let code = "";
beforeAll(async () => {
	code = readFileSync((await buildBundles()).mainJs, "utf8");
});

test("the SQLite WASM is inside main.js gzip-compressed, not as raw base64", () => {
	// "AGFzbQEAAAA" is base64 of the WASM header (\0asm, version 1): a raw copy would start with it.
	expect(code).not.toContain("AGFzbQEAAAA");
	// gzip header (1f 8b 08) in base64.
	expect(code).toMatch(/"H4sI[A-Za-z0-9+/]{1000}/);
	expect(code.length).toBeLessThan(6_000_000);
});
