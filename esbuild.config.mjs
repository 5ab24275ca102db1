// Builds the Obsidian plugin (main.js, CommonJS, SQLite WASM inlined, ONNX Runtime WASM not) and the command line (dist/cli.mjs).
// Modes: `node esbuild.config.mjs` watches the plugin; `production` builds both minified; `cli` builds the CLI only.
import esbuild from "esbuild";
import { builtinModules } from "node:module";
import { readFileSync } from "node:fs";
import { sqliteWasmPlugin } from "./src/backends/sqlite/wasm/esbuild-wasm-plugin.mjs";
import { localModelPlugin } from "./src/plugin/local-model/esbuild-local-model-plugin.mjs";

const mode = process.argv[2] ?? "dev";
const production = mode === "production";
const version = JSON.parse(readFileSync("manifest.json", "utf8")).version;
const define = { ENGRAMA_VERSION: JSON.stringify(version) };

const builtins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

/**
 * zod re-exports all of its ~50 message locales as one namespace object, which defeats tree
 * shaking (260 kB of main.js). Nothing here switches locale, so the index serves English only.
 * @type {esbuild.Plugin}
 */
const zodEnglishOnly = {
	name: "zod-english-only",
	setup(build) {
		build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({
			contents: 'export { default as en } from "./en.js";',
			loader: "js",
		}));
	},
};

/** @type {esbuild.BuildOptions} */
const plugin = {
	entryPoints: ["src/main.ts"],
	bundle: true,
	external: ["obsidian", "electron", "@codemirror/*", "@lezer/*", ...builtins],
	format: "cjs",
	target: "es2022",
	logLevel: "info",
	sourcemap: production ? false : "inline",
	treeShaking: true,
	minify: production,
	outfile: "main.js",
	// The local embedder's JavaScript is bundled; its 14 MB ONNX Runtime binary is downloaded on demand.
	plugins: [sqliteWasmPlugin(), localModelPlugin(), zodEnglishOnly],
	define,
	loader: { ".yaml": "text" },
};

/** @type {esbuild.BuildOptions} */
const cli = {
	entryPoints: ["src/cli/entry.ts"],
	bundle: true,
	platform: "node",
	format: "esm",
	target: "node20",
	outfile: "dist/cli.mjs",
	// npm dependencies (and sqlite3.wasm) stay in node_modules, read at run time.
	packages: "external",
	define,
	logLevel: "warning",
	banner: { js: "import { createRequire as __engramaRequire } from 'node:module'; const require = __engramaRequire(import.meta.url);" },
};

if (mode === "cli") {
	await esbuild.build(cli);
} else if (production) {
	await Promise.all([esbuild.build(plugin), esbuild.build(cli)]);
} else {
	const context = await esbuild.context(plugin);
	await context.watch();
}
