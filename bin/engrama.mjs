#!/usr/bin/env node
// The command line lives in dist/cli-<hash>.cjs (named by dist/cli.json), built by `npm install`
// (prepare) or `npm run build`.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import v8 from "node:v8";
import vm from "node:vm";

// One-shot commands: V8's optimising tier compiles the 4.4 MB SQLite WASM in the background and
// Node waits for that at exit (~1 s). The baseline compiler alone is plenty for one command;
// long-running commands keep the optimised tier.
const LONG_RUNNING = new Set(["serve", "watch", "mcp", "mcp-proxy"]);
const longRunning = process.argv.slice(2).some((arg) => LONG_RUNNING.has(arg));
if (!longRunning) v8.setFlagsFromString("--liftoff-only");

const dist = fileURLToPath(new URL("../dist/", import.meta.url));
const manifest = join(dist, "cli.json");
if (!existsSync(manifest)) {
	process.stderr.write("engrama: the command line is not built yet. Run `npm install` (or `npm run build`) in the Engrama folder.\n");
	process.exit(1);
}

/**
 * V8's code cache of the bundle: parsing and compiling 2 MB of JavaScript was most of a one-shot
 * command's CPU (docs/benchmarks.md, command line). Keyed by the bundle's content hash (its name),
 * Node's version, the V8 flags above (V8 refuses a cache made under other flags) and the kind of
 * run (the cache holds the functions compiled by the time it is made). Made once, at the exit of the
 * first run of its kind, written to a temporary name and renamed, so concurrent
 * commands never read half a file. ENGRAMA_CODE_CACHE_DIR moves it (a read-only install); a folder
 * that cannot be written just goes without.
 */
const cacheDir = process.env.ENGRAMA_CODE_CACHE_DIR || join(dist, "cache");
// A bare --help or --version compiles a sliver of the bundle: a cache of its own stays small, where
// a command's (1 MB) would cost more to read than it saves there.
const ranCommand = process.argv.slice(2).some((arg) => !arg.startsWith("-"));
const kind = longRunning ? "long" : ranCommand ? "oneshot" : "flags";
// Without a command, the small bundle of commander and the command table: reading the commands'
// 2.4 MB as text was most of what --help cost above Node's own start.
const bundles = JSON.parse(readFileSync(manifest, "utf8"));
const file = join(dist, kind === "flags" && bundles.flags ? bundles.flags : bundles.bundle);
const cacheFile = join(cacheDir, `${file.split(/[\\/]/).pop().replace(/\.cjs$/, "")}-${process.version}-${process.arch}-${kind}.v8`);
let cachedData;
try {
	cachedData = readFileSync(cacheFile);
} catch {
	cachedData = undefined;
}
// The bundle is CommonJS's wrapper function (esbuild.config.mjs); it has no import(), which a
// script compiled with a cache cannot run on Node 20. A build that made it ASCII (`ascii`) is read
// as Latin-1, a third of the CPU of decoding UTF-8 (docs/benchmarks.md, command line).
const script = new vm.Script(readFileSync(file, bundles.ascii ? "latin1" : "utf8"), { filename: file, cachedData });
const cacheWanted = cachedData === undefined || script.cachedDataRejected === true;
if (cacheWanted) {
	process.once("exit", () => {
		const temp = `${cacheFile}.${process.pid}`;
		try {
			mkdirSync(cacheDir, { recursive: true });
			writeFileSync(temp, script.createCachedData());
			renameSync(temp, cacheFile);
		} catch {
			// Read-only install: every command compiles the bundle, as without a cache.
			rmSync(temp, { force: true });
		}
	});
}
const module = { exports: {} };
script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));
