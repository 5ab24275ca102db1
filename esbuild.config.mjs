// Builds the Obsidian plugin (main.js, CommonJS, SQLite WASM inlined, ONNX Runtime WASM not) and the command line (dist/cli-<hash>.cjs, named by dist/cli.json).
// Modes: `node esbuild.config.mjs` watches the plugin; `production` builds both minified; `cli` builds the CLI only;
// `release` builds the minified plugin alone (into ENGRAMA_PLUGIN_OUT; scripts/release-check.mjs).
import esbuild from "esbuild";
import { builtinModules } from "node:module";
import { existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { sqliteEnumJsonPlugin, sqliteWasmPlugin } from "./src/backends/sqlite/wasm/esbuild-wasm-plugin.mjs";
import { localModelPlugin } from "./src/plugin/local-model/esbuild-local-model-plugin.mjs";
import { preparsedProfilesPlugin } from "./src/nodejs/preparse-profiles.mjs";

const mode = process.argv[2] ?? "dev";
const production = mode === "production";
const version = JSON.parse(readFileSync("manifest.json", "utf8")).version;
const define = { ENGRAMA_VERSION: JSON.stringify(version) };

const builtins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

/**
 * The command line bundles the pure-JavaScript packages every command loads: left in node_modules,
 * Node resolves and reads them file by file (~450 files of chrono-node, zod, yaml and commander,
 * 0.25 s of CPU in a one-shot `get`; docs/benchmarks.md, command line), and sqlite-vec-wasm-demo,
 * which has no CommonJS entry (its sqlite3.wasm is still read from the package at run time). The
 * rest stay there: model runtimes, the Neo4j driver, the MCP SDK (loaded only by their commands).
 */
const CLI_BUNDLED = new Set(["chrono-node", "commander", "fflate", "yaml", "zod", "sqlite-vec-wasm-demo"]);
const packageJson = JSON.parse(readFileSync("package.json", "utf8"));
/**
 * The native engine's optional packages, better-sqlite3 and sqlite-vec, are bundled too where they
 * are installed (their JavaScript file by file was ≈ 12 ms of every command; the addon and vec0
 * stay in node_modules: src/backends/sqlite/native/native-driver.ts), left out where they are not
 * (the command line then runs WASM, as before). `bindings`, better-sqlite3's addon finder, is not
 * used from the bundle.
 */
const nativeMissing = Object.keys(packageJson.optionalDependencies ?? {}).filter((name) => !existsSync(join("node_modules", name, "package.json")));
const cliExternal = [...Object.keys(packageJson.dependencies).filter((name) => !CLI_BUNDLED.has(name)), ...nativeMissing, "bindings"].flatMap((name) => [name, `${name}/*`]);

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
	plugins: [sqliteWasmPlugin(), localModelPlugin()],
	define,
	loader: { ".yaml": "text" },
};

/**
 * commander requires node:child_process at load, for subcommands run as separate programs, which
 * this CLI has none of; loading it (and the net, dgram and stream modules it pulls in) was 5-20 ms
 * of every command. Required on first use instead. The build fails if commander's line changes.
 * @type {esbuild.Plugin}
 */
const commanderLazyChildProcess = {
	name: "commander-lazy-child-process",
	setup(build) {
		build.onLoad({ filter: /[\\/]commander[\\/]lib[\\/]command\.js$/ }, (args) => {
			const eager = "const childProcess = require('node:child_process');";
			const source = readFileSync(args.path, "utf8");
			if (!source.includes(eager)) throw new Error(`commander changed: "${eager}" is not in ${args.path}`);
			const lazy = "const childProcess = { spawn: (...a) => require('node:child_process').spawn(...a) };";
			return { contents: source.replace(eager, lazy), loader: "js" };
		});
	},
};

/**
 * A bundled package evaluated on the first call of one of its functions rather than when the
 * module importing it is: fflate builds its Huffman and bit-reversal tables at load, ≈ 6-8 ms of
 * every command that opens a SQLite memory (schema.ts imports passage-text.ts), where only a sync of
 * note passages deflates; chrono-node's two locales, ≈ 2 ms, run only on text that may hold a date. `functions` are the names importers may use, plain functions (not
 * classes): importing another fails the build ("No matching export").
 * @param {string} name the import path importers use
 * @param {string} target the package entry to bundle
 * @param {string[]} functions
 * @returns {esbuild.Plugin}
 */
function lazyPackage(name, target, functions) {
	const filter = new RegExp(`^${name.replace(/[/\\^$.*+?()[\]{}|-]/g, "\\$&")}$`);
	return {
		name: `lazy-${name}`,
		setup(build) {
			// The shim's own require of the package (target may be the same path) resolves as usual.
			build.onResolve({ filter }, (args) => (args.namespace === "lazy-package" ? undefined : { path: name, namespace: "lazy-package" }));
			build.onLoad({ filter, namespace: "lazy-package" }, () => ({
				resolveDir: process.cwd(),
				loader: "js",
				contents: [
					"let loaded;",
					`const load = () => (loaded ??= require(${JSON.stringify(target)}));`,
					...functions.map((fn) => `export function ${fn}(...args) { return load().${fn}(...args); }`),
				].join("\n"),
			}));
		},
	};
}

/**
 * The command line: one CommonJS file that bin/engrama.mjs compiles with V8's code cache (its
 * cache file under dist/cache), so a one-shot command neither parses nor compiles the bundle
 * again (docs/benchmarks.md, command line). Command groups are still imported dynamically in the
 * source: in CommonJS esbuild keeps each module's evaluation lazy until its import() runs.
 * @type {esbuild.BuildOptions}
 */
const cli = {
	// entry.ts: every command; flags-entry.ts: a bare --help/--version, commander and the command table only.
	entryPoints: ["src/cli/entry.ts", "src/cli/flags-entry.ts"],
	bundle: true,
	platform: "node",
	format: "cjs",
	target: "node20",
	outdir: "dist",
	entryNames: "cli-[hash]",
	outExtension: { ".js": ".cjs" },
	metafile: true,
	external: [...cliExternal, ...builtins],
	// The shipped profiles go in already parsed (src/nodejs/preparse-profiles.mjs), and SQLite's
	// constants as JSON computed from sqlite3.wasm (used while the package's file has that hash).
	// fflate's build for the web, as main.js has it: its Node build requires node:worker_threads at
	// load for the asynchronous API, which the engine never calls (it deflates synchronously);
	// requiring it and the package was ≈ 15 ms of a `remember` (docs/benchmarks.md, command line).
	// Evaluated when a passage is first deflated or inflated.
	plugins: [
		commanderLazyChildProcess,
		preparsedProfilesPlugin("profiles"),
		sqliteEnumJsonPlugin(),
		lazyPackage("fflate", "fflate/browser", ["deflateSync", "inflateSync", "strFromU8", "strToU8"]),
		// chrono-node's English and Spanish parsers: only text that may mention a date runs them.
		lazyPackage("chrono-node/en", "chrono-node/en", ["parse"]),
		lazyPackage("chrono-node/es", "chrono-node/es", ["parse"]),
	],
	// A script compiled with a code cache has no import() on Node 20 (vm needs a flag for it):
	// packages outside the bundle are required, so each must have a CommonJS entry, and the one
	// ESM-only package, sqlite-vec-wasm-demo, is bundled (its sqlite3.wasm still read from it).
	supported: { "dynamic-import": false },
	define: { ...define, "import.meta.url": "__engramaModuleUrl" },
	logLevel: "warning",
	// The file is one function expression, CommonJS's own wrapper, which bin/engrama.mjs compiles
	// as it reads it (no copy of 2 MB of source to wrap it).
	banner: { js: "(function (exports, require, module, __filename, __dirname) {\n\"use strict\";\nconst __engramaModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
	footer: { js: "})" },
};

/**
 * Every character of a bundle beyond ASCII as a \uXXXX escape, so bin/engrama.mjs can read the file
 * as Latin-1: decoding 2.5 MB of UTF-8 was ≈ 10 ms of every command, Latin-1 ≈ 3 ms. esbuild
 * escapes strings itself but leaves comments and regular expression literals (chrono-node's
 * "mañana"); the escape means the same character in a string, a regular expression (with or without
 * the u flag, where a surrogate pair's two escapes are one code point) and a comment. A character
 * that follows a backslash (an identity escape, "\é") would change meaning: the build stops there.
 */
function escapeNonAscii(file) {
	const text = readFileSync(file, "utf8");
	const escaped = text.replace(/(\\*)([^\x00-\x7f])/g, (match, slashes, char, at) => {
		if (slashes.length % 2 === 1) throw new Error(`${file}: a backslash before "${char}" at ${at}: cannot escape it as \\uXXXX`);
		return slashes + `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;
	});
	writeFileSync(file, escaped);
}

/**
 * Builds the command line and names its two bundles in dist/cli.json for bin/engrama.mjs: `bundle`
 * (every command) and `flags` (a bare --help or --version); each file's name carries its content
 * hash, which keys the code cache; `ascii` says both are ASCII (escapeNonAscii), to be read as
 * Latin-1. Bundles and caches of earlier builds are removed once an hour old: a process started
 * before the rebuild (a running serve) may still read them.
 */
async function buildCli() {
	const result = await esbuild.build(cli);
	const outputOf = (entry) => basename(Object.entries(result.metafile.outputs).find(([, out]) => out.entryPoint === entry)[0]);
	const bundles = { bundle: outputOf("src/cli/entry.ts"), flags: outputOf("src/cli/flags-entry.ts") };
	for (const name of Object.values(bundles)) escapeNonAscii(join("dist", name));
	writeFileSync("dist/cli.json", `${JSON.stringify({ ...bundles, ascii: true })}\n`);
	const current = Object.values(bundles).map((name) => name.replace(/\.cjs$/, ""));
	for (const dir of ["dist", "dist/cache", "dist/chunks"]) {
		for (const name of existsSync(dir) ? readdirSync(dir) : []) {
			const file = join(dir, name);
			const stale = !current.some((stem) => name.startsWith(stem)) && /\.(cjs|mjs|v8)$/.test(name);
			if (stale && statSync(file).isFile() && Date.now() - statSync(file).mtimeMs > 3_600_000) rmSync(file, { force: true });
		}
	}
}

if (mode === "cli") {
	await buildCli();
} else if (mode === "release") {
	// The plugin alone, minified as `production` builds it, where `npm run release-check` asks
	// (ENGRAMA_PLUGIN_OUT), so checking a release never overwrites the main.js being developed.
	await esbuild.build({ ...plugin, minify: true, sourcemap: false, outfile: process.env.ENGRAMA_PLUGIN_OUT ?? "main.js", logLevel: "warning" });
} else if (production) {
	await Promise.all([esbuild.build(plugin), buildCli()]);
} else {
	const context = await esbuild.context(plugin);
	await context.watch();
}
