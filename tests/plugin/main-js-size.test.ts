// main.js as `npm run build` makes it carries the SQLite WASM compressed and without its debug
// sections, and decodes nothing while it is evaluated (Obsidian evaluates main.js at every start).
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { beforeAll, expect, test } from "vitest";
import { buildBundles } from "./harness";

let code = "";
beforeAll(async () => {
	code = readFileSync((await buildBundles()).mainJs, "utf8");
});

test("the SQLite WASM is inside main.js gzip-compressed, without debug sections, not as raw base64", async () => {
	// "AGFzbQEAAAA" is base64 of the WASM header (\0asm, version 1): a raw copy would start with it.
	expect(code).not.toContain("AGFzbQEAAAA");
	// The gzip header (1f 8b 08) in base64.
	const packed = /"(H4sI[A-Za-z0-9+/=]+)"/.exec(code)?.[1] ?? "";
	expect(packed.length).toBeGreaterThan(100_000);
	expect(packed.length).toBeLessThan(1_300_000);
	const wasm = new Uint8Array(gunzipSync(Buffer.from(packed, "base64")));
	const module = await WebAssembly.compile(wasm);
	expect(WebAssembly.Module.customSections(module, ".debug_info")).toEqual([]);
	expect(WebAssembly.Module.customSections(module, ".debug_line")).toEqual([]);
	expect(WebAssembly.Module.exports(module).map((e) => e.name)).toContain("sqlite3_open_v2");
});
