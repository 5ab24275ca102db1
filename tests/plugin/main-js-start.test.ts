// What evaluating main.js runs: Obsidian evaluates it at every start, before onload, so it should
// be the plugin and what onload needs, while the engine waits for layout ready and the optional parts
// (the Neo4j driver, the MCP server and SDK, export/import, the local model's runtime) wait in the
// bundle until first used (#39). Each
// bundled module records its first evaluation (buildTracedMainJs); the assertions are on which
// modules ran, not on timings.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, expect, test } from "vitest";
import { buildTracedMainJs, loadPlugin, makeVault, manifest, waitFor, type LoadedPlugin, type VaultCopy } from "./harness";

/** The optional parts, by the bundled module paths that make them up. */
const OPTIONAL: Readonly<Record<string, RegExp>> = {
	"the Neo4j driver": /^node_modules\/(neo4j-driver[^/]*|rxjs)\//,
	"the Neo4j backend": /^src\/backends\/neo4j\//,
	"the MCP SDK": /^node_modules\/(@modelcontextprotocol\/sdk|ajv[^/]*|zod-to-json-schema|fast-uri)\//,
	"the MCP server": /^src\/mcp\//,
	"export and import": /^src\/engine\/transfer\//,
	"the local model's runtime": /^node_modules\/(@huggingface\/transformers|onnxruntime-web|onnxruntime-common)\//,
};

/**
 * The engine, the backends, the engine's configuration schema and the packages only they use, by
 * bundled module path. Before layout ready the plugin may evaluate only the engine's errors and its
 * plain values (src/engine/plain-values.ts, each from a module that imports nothing).
 */
const ENGINE = /^(src\/(engine|backends|config)\/|node_modules\/(yaml|chrono-node)\/)/;
const BEFORE_THE_ENGINE = new Set([
	"src/engine/errors.ts",
	"src/engine/plain-values.ts",
	"src/engine/sync/vault-source.ts",
	"src/engine/system-props.ts",
	"src/engine/resolver/system-insight.ts",
	"src/engine/sync/sync-report.ts",
	"src/engine/sync/markdown-text.ts",
	"src/engine/embedding/text-language.ts",
	"src/engine/sha256.ts",
]);

/** The engine's modules in `paths` that may not run before layout ready. */
function engineIn(paths: Iterable<string>): string[] {
	return [...paths].filter((path) => ENGINE.test(path) && !BEFORE_THE_ENGINE.has(path)).sort();
}

declare global {
	var __engramaEvaluated: Set<string> | undefined;
}

let traced = "";
let text = "";
let h: LoadedPlugin;
const evaluated = new Set<string>();
let vault: VaultCopy | undefined;

beforeAll(async () => {
	traced = await buildTracedMainJs();
	text = readFileSync(traced, "utf8");
	globalThis.__engramaEvaluated = evaluated;
	h = await loadPlugin({ mainJs: traced });
});

afterAll(() => {
	globalThis.__engramaEvaluated = undefined;
	vault?.cleanup();
});

/** Which optional parts have a module in `paths`, with the first such module. */
function optionalIn(paths: Iterable<string>): Record<string, string> {
	const found: Record<string, string> = {};
	for (const path of paths) {
		for (const [part, pattern] of Object.entries(OPTIONAL)) if (pattern.test(path)) found[part] ??= path;
	}
	return found;
}

test("every optional part is in main.js, each of its modules behind a lazy wrapper (not hoisted into the code that runs at load)", () => {
	const bundled = [...text.matchAll(/^\/\/ (\S+)$/gm)].map((m) => m[1] ?? "");
	const wrapped = new Set([...text.matchAll(/^var \w+ = __(?:esm|commonJS)\(\{\n\s+"([^"]+)"\(/gm)].map((m) => m[1] ?? ""));
	expect(Object.keys(optionalIn(bundled)).sort()).toEqual(Object.keys(OPTIONAL).sort());
	const hoisted = bundled.filter((path) => Object.values(OPTIONAL).some((p) => p.test(path)) && !wrapped.has(path));
	expect(hoisted).toEqual([]);
});

test("evaluating main.js runs none of the optional parts; the recorder works (zod, for the settings, ran)", () => {
	expect(optionalIn(evaluated)).toEqual({});
	expect([...evaluated].some((path) => path.startsWith("node_modules/zod/"))).toBe(true);
});

test("every engine module is in main.js behind a lazy wrapper, so it runs when first used", () => {
	const bundled = [...text.matchAll(/^\/\/ (\S+)$/gm)].map((m) => m[1] ?? "");
	const wrapped = new Set([...text.matchAll(/^var \w+ = __(?:esm|commonJS)\(\{\n\s+"([^"]+)"\(/gm)].map((m) => m[1] ?? ""));
	expect(bundled.filter((path) => path.startsWith("src/engine/")).length).toBeGreaterThan(100);
	expect(bundled.filter((path) => ENGINE.test(path) && !wrapped.has(path))).toEqual([]);
});

test("evaluating main.js runs none of the engine (nor the backends, its configuration schema, yaml, chrono-node): it opens after layout ready", () => {
	expect(engineIn(evaluated)).toEqual([]);
});

test("nor do onload, layout ready and opening the default engine (SQLite) with its first sync", async () => {
	vault = makeVault({ settings: { sync: { debounceMs: 30 } } });
	const app = h.fake.createFakeApp(vault.path);
	const plugin = new h.Plugin(app, manifest());
	await plugin.fakeLoad();
	expect(optionalIn(evaluated)).toEqual({});
	expect(engineIn(evaluated)).toEqual([]);
	await app.workspace.fakeLayoutReady();
	const controller = await waitFor(() => plugin.controller, "the controller");
	const engine = await controller.ready();
	await waitFor(() => controller.tasks.current === null && controller.counts !== null, "the startup sync");
	await engine.sync.idle();
	// The engine did open: SQLite's WASM glue, evaluated on first use, was recorded.
	expect([...evaluated].some((path) => path.startsWith("node_modules/sqlite-vec-wasm-demo/"))).toBe(true);
	expect(engineIn(evaluated)).toContain("src/engine/memory.ts");
	expect(optionalIn(evaluated)).toEqual({});
	plugin.unload();
	await plugin.closed;
});

test("main.js builds small namespace objects at load (esbuild builds every one there, lazy modules' too): no package's whole export list", () => {
	// `__export(ns, { name: () => name, … })`, one getter a line; esbuild hoists these calls out of
	// the lazy wrappers. An import() of transformers.js (973 names) or `import { z } from "zod"`
	// (≈900 over its namespaces) each made one at every start.
	const getters = [...text.matchAll(/^__export\(\w+, \{\n([\s\S]*?)\n\}\);$/gm)].map((m) => (m[1] ?? "").split("\n").length);
	expect(getters.length).toBeGreaterThan(0);
	expect(Math.max(...getters)).toBeLessThan(200);
	expect(getters.reduce((a, b) => a + b, 0)).toBeLessThan(500);
});

test("zod's parts nothing here uses are not in main.js: its JSON Schema importer (which built tables at every start) and its non-English locales", () => {
	const zod = [...text.matchAll(/^\/\/ (node_modules\/zod\/\S+)$/gm)].map((m) => m[1] ?? "");
	expect(zod.length).toBeGreaterThan(10);
	expect(zod.filter((path) => path.includes("from-json-schema") || (path.includes("/locales/") && !/\/locales\/(en|index)\.js$/.test(path)))).toEqual([]);
});
