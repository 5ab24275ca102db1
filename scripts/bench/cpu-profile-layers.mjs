// Splits a V8 CPU profile of `engrama serve` (mcp-load --cpu-prof DIR) into the bridge's layers:
// each sample goes to the innermost frame that names one (HTTP and sockets, JSON, the MCP SDK,
// zod, chrono-node, SQLite calls, the bridge's own code, the engine, GC). Frames in the CLI bundle
// are placed by the `// src/...` comment esbuild writes before each module (an unminified bundle).
//
//   node scripts/bench/cpu-profile-layers.mjs DIR/*.cpuprofile [--calls N] [--last SECONDS]
//
// --last keeps only the profile's last SECONDS (the timed run mcp-load prints, "over 3.74 s"), so
// start-up, first compilations and the seed are left out; --calls N adds milliseconds per call.
// Used for the per-layer table in docs/benchmarks-mcp.md.
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const args = process.argv.slice(2);
const callsAt = args.indexOf("--calls");
const calls = callsAt >= 0 ? Number(args.splice(callsAt, 2)[1]) : 0;
const lastAt = args.indexOf("--last");
const lastMs = lastAt >= 0 ? Number(args.splice(lastAt, 2)[1]) * 1000 : Number.POSITIVE_INFINITY;
const files = args.filter((a) => a.endsWith(".cpuprofile"));

/** Line (0-based) → the source module esbuild placed there, for one bundle file. */
function bundleModules(url) {
	const path = url.startsWith("file:") ? fileURLToPath(url) : url;
	if (!existsSync(path)) return () => "bundle";
	const starts = [];
	readFileSync(path, "utf8")
		.split("\n")
		.forEach((line, i) => {
			const m = /^\/\/ (?:\S*\/)?((?:src|node_modules)\/\S+)$/.exec(line);
			if (m) starts.push([i, m[1]]);
		});
	return (line) => {
		let lo = 0;
		let hi = starts.length - 1;
		let found = "bundle";
		while (lo <= hi) {
			const mid = (lo + hi) >> 1;
			if (starts[mid][0] <= line) {
				found = starts[mid][1];
				lo = mid + 1;
			} else hi = mid - 1;
		}
		return found;
	};
}

const BUNDLE_LAYERS = [
	[/^src\/backends\/sqlite\/native\/native-connection/, "SQLite statements (native)"],
	[/^src\/backends\//, "backend JS (rows, SQL text)"],
	[/^src\/engine\/temporal\//, "temporal (dates)"],
	[/^src\/engine\//, "engine JS"],
	[/^src\/mcp\/(http-|json-http|jsonrpc|session-ids|scope-headers)/, "bridge: HTTP, sessions, JSON-RPC checks"],
	[/^src\/mcp\/request-guard/, "bridge: request guard"],
	[/^src\/mcp\//, "bridge: server, tools"],
	[/^node_modules\/chrono-node/, "chrono-node"],
	[/^node_modules\/zod/, "zod"],
	[/^node_modules\//, "other packages"],
];

function layerOf(frame, modules) {
	const { url, functionName } = frame;
	if (functionName === "(garbage collector)") return "GC";
	if (functionName === "(idle)") return "idle";
	if (functionName === "(program)") return "V8 (program)";
	if (url.includes("/node_modules/zod/")) return "zod";
	if (url.includes("/node_modules/@modelcontextprotocol/")) return "MCP SDK";
	if (url.includes("/node_modules/chrono-node/")) return "chrono-node";
	if (url.includes("/node_modules/better-sqlite3/")) return "SQLite statements (native)";
	if (url.includes("/node_modules/")) return `package ${url.split("/node_modules/").pop().split("/")[0]}`;
	if (/^node:(_http|net|internal\/(streams|stream_base|http))/.test(url) || functionName === "writev" || functionName === "writeUtf8String") return "Node HTTP, streams, sockets";
	if (/^node:internal\/(modules|bootstrap)/.test(url) || functionName === "compileFunction") return "start-up (module loading)";
	if (url === "" && (functionName === "parse" || functionName === "stringify")) return `JSON.${functionName}`;
	if (url.includes("/dist/cli-")) {
		const module = modules(url)(frame.lineNumber);
		for (const [pattern, layer] of BUNDLE_LAYERS) if (pattern.test(module)) return layer;
		return "CLI bundle (other)";
	}
	if (url.startsWith("node:")) return undefined;
	return undefined;
}

for (const file of files) {
	const profile = JSON.parse(readFileSync(file, "utf8"));
	const byId = new Map(profile.nodes.map((n) => [n.id, n]));
	const parent = new Map();
	for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
	const bundles = new Map();
	const modules = (url) => {
		if (!bundles.has(url)) bundles.set(url, bundleModules(url));
		return bundles.get(url);
	};
	const layers = new Map();
	let busy = 0;
	const totalMs = profile.timeDeltas.reduce((sum, d) => sum + d, 0) / 1000;
	let at = 0;
	for (let i = 0; i < profile.samples.length; i++) {
		const ms = (profile.timeDeltas[i] ?? 0) / 1000;
		at += ms;
		if (at < totalMs - lastMs) continue;
		let layer;
		for (let id = profile.samples[i]; id !== undefined && !layer; id = parent.get(id)) layer = layerOf(byId.get(id).callFrame, modules);
		layer ??= "Node (other)";
		layers.set(layer, (layers.get(layer) ?? 0) + ms);
		if (layer !== "idle") busy += ms;
	}
	console.log(`${file}: ${busy.toFixed(0)} ms busy on the main thread`);
	console.log(`| layer | ms | share of busy |${calls ? " ms per call |" : ""}`);
	console.log(`|---|---:|---:|${calls ? "---:|" : ""}`);
	for (const [layer, ms] of [...layers].filter(([l]) => l !== "idle").sort((a, b) => b[1] - a[1])) {
		console.log(`| ${layer} | ${ms.toFixed(0)} | ${((100 * ms) / busy).toFixed(1)} % |${calls ? ` ${(ms / calls).toFixed(3)} |` : ""}`);
	}
}
