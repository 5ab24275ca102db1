// In Obsidian's renderer a dynamic import() goes through Chromium's module loader, which rejects
// bare specifiers ("fs/promises"); Node built-ins are reached through require only. This reads the
// built main.js (as `npm run build` makes it) for import() calls that would fail there.
import { readFileSync } from "node:fs";
import { beforeAll, expect, test } from "vitest";
import { buildBundles } from "./harness";

let code = "";
beforeAll(async () => {
	code = readFileSync((await buildBundles()).mainJs, "utf8");
});

/** The specifier of every `import("…")` with a literal string, comments between allowed. */
function literalImports(source: string): string[] {
	return [...source.matchAll(/\bimport\(\s*(?:\/\*[\s\S]*?\*\/\s*)*(["'`])([^"'`]*)\1/g)].map((m) => m[2] ?? "");
}

/**
 * What Chromium cannot load: a bare specifier (no import map resolves it) or a `node:` URL (no
 * such scheme there). Relative paths, data:, blob: and http(s): URLs pass.
 */
function isBareSpecifier(specifier: string): boolean {
	return specifier.startsWith("node:") || !/^(\.{0,2}\/|[a-z][a-z0-9+.-]*:)/i.test(specifier);
}

test("the specifier scanner finds bare imports and lets relative and URL ones through", () => {
	const sample = `a=await import("fs/promises");b=import( /*x*/ 'os');c=import("./chunk.js");d=import("data:text/javascript,1");e=import(n)`;
	expect(literalImports(sample)).toEqual(["fs/promises", "os", "./chunk.js", "data:text/javascript,1"]);
	expect(literalImports(sample).filter(isBareSpecifier)).toEqual(["fs/promises", "os"]);
	expect(isBareSpecifier("node:fs")).toBe(true);
	expect(isBareSpecifier("blob:app://obsidian.md/1")).toBe(false);
	expect(isBareSpecifier("https://cdn.example/x.mjs")).toBe(false);
});

test("main.js has no dynamic import() of a bare specifier (Obsidian's renderer cannot resolve it)", () => {
	expect(code.length).toBeGreaterThan(1000);
	const bare = literalImports(code).filter(isBareSpecifier);
	expect(bare, `main.js imports ${bare.join(", ")} with import(); reach Node built-ins through require on desktop`).toEqual([]);
});
