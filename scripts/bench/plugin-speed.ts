// The plugin's speed, measured on the built main.js against the fake `obsidian` module:
// main.js size, require time, onload before layout ready, time to engine ready with a 10k-note
// database, a first and a catch-up sync of a 10k-note vault with the longest main-thread block
// (event-loop gap) while syncing, and memory after the sync.
// Usage: npm run bench -- plugin-speed [--notes 10000] [--runs 20]
// --chromium [--main <file>]: the same in headless Chromium (Obsidian's renderer engine), blocks
// as long tasks; --main measures another build of main.js (a baseline) the same way.
// --evaluate <main.js> [<main.js> …]: only evaluating main.js, CPU of compiling and of running it,
// each in a fresh Node process, the files interleaved, --runs times (medians); with --chromium,
// the main-thread CPU of the task that evaluates it, each time in a fresh page.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { bootBundle } from "../../tests/plugin/browser/boot-bundle";
import { vaultFiles } from "../../tests/plugin/browser/vault-files";
import { gzipSync } from "node:zlib";
import { buildBundles, loadPlugin, makeVault, manifest, PLUGIN_DIR, type LoadedPlugin, type PluginInstance } from "../../tests/plugin/harness";
import { makeTempDir } from "../../tests/helpers/temp-dir";
import { CHROMIUM, generatedVault, mainThreadTasks, tasksBetween, TRACE_CATEGORIES, type TraceFile } from "./chromium-bench";

function arg(name: string, fallback: number): number {
	const i = process.argv.indexOf(`--${name}`);
	return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

const NOTES = arg("notes", 10_000);
const RUNS = arg("runs", 20);

function quantile(values: readonly number[], q: number): number {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

const ms = (n: number) => `${n.toFixed(1)} ms`;
const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;

/**
 * The longest gap between two turns of the event loop: how long the main thread was blocked.
 * On a loaded machine a wall-clock gap also counts time the process was not scheduled, so the
 * CPU time the process used during the gap is reported too (the work that really held the thread).
 */
function blockMonitor(label: () => string = () => "") {
	const worst: { ms: number; cpu: number; at: string }[] = [];
	let last = performance.now();
	let lastCpu = process.cpuUsage();
	let longest = 0;
	let longestCpu = 0;
	let running = true;
	const histogram = monitorEventLoopDelay({ resolution: 5 });
	histogram.enable();
	const tick = () => {
		const now = performance.now();
		const cpu = process.cpuUsage(lastCpu);
		longest = Math.max(longest, now - last);
		const cpuMs = (cpu.user + cpu.system) / 1000;
		longestCpu = Math.max(longestCpu, cpuMs);
		if (cpuMs > 50) worst.push({ ms: Math.round(now - last), cpu: Math.round(cpuMs), at: label() });
		last = now;
		lastCpu = process.cpuUsage();
		if (running) setTimeout(tick, 0);
	};
	setTimeout(tick, 0);
	return {
		stop() {
			running = false;
			histogram.disable();
			return { longest, longestCpu, p99: histogram.percentile(99) / 1e6, worst: worst.sort((a, b) => b.cpu - a.cpu).slice(0, 8) };
		},
	};
}

function loadAverage(): string {
	try {
		return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
	} catch {
		return "n/a";
	}
}

function gc(): void {
	(globalThis as { gc?: () => void }).gc?.();
}

/** --verbose: the slowest single steps between two gate passes (what held the thread). */
const slowSteps: { ms: number; after: string }[] = [];

function traceGate(plugin: PluginInstance): void {
	const gate = plugin.controller!.host.gate as unknown as { pass(kind?: string): Promise<void> };
	const original = gate.pass.bind(gate);
	let last = performance.now();
	let lastKind = "start";
	gate.pass = (kind?: string) => {
		const now = performance.now();
		if (now - last > 30) slowSteps.push({ ms: Math.round(now - last), after: lastKind });
		lastKind = kind ?? "?";
		const result = original(kind);
		last = performance.now();
		void result.then(() => (last = performance.now()));
		return result;
	};
}

async function session(h: LoadedPlugin, vaultPath: string) {
	const app = h.fake.createFakeApp(vaultPath);
	// The fake vault (every note's parsed metadata) is Obsidian's memory, not the plugin's: measure from here.
	gc();
	const baseline = process.memoryUsage();
	const plugin: PluginInstance = new h.Plugin(app, manifest());
	const loadStarted = performance.now();
	await plugin.fakeLoad();
	const onloadMs = performance.now() - loadStarted;
	if (process.argv.includes("--verbose")) traceGate(plugin);
	const monitor = blockMonitor(() => {
		const c = plugin.controller;
		return c ? `${c.host.state.kind}${c.tasks.current ? ` ${c.tasks.current.title}: ${c.tasks.current.detail}` : ""}` : "";
	});
	const cpuStarted = process.cpuUsage();
	const readyStarted = performance.now();
	await app.workspace.fakeLayoutReady();
	const engine = await plugin.controller!.ready();
	const readyMs = performance.now() - readyStarted;
	// The catch-up sync that follows layout ready (a first sync when the database is new).
	const syncStarted = performance.now();
	while (plugin.controller!.tasks.current) await new Promise((r) => setTimeout(r, 20));
	await engine.sync.idle();
	const syncMs = performance.now() - syncStarted;
	const blocks = monitor.stop();
	const cpu = process.cpuUsage(cpuStarted);
	const cpuMs = (cpu.user + cpu.system) / 1000;
	const report = plugin.controller!.activity.lastReport;
	const counts = await engine.memory.graph.counts(engine.scope);
	gc();
	const memory = process.memoryUsage();
	return { plugin, onloadMs, readyMs, syncMs, cpuMs, blocks, report, counts, memory, baseline };
}

const vaultSource = () => generatedVault(NOTES);

/**
 * In the page: main.js (fetched in an earlier task) evaluated in a task of its own between the
 * marks tasksCpu reads, as Obsidian does (`new Function`, CommonJS), over a stand-in `obsidian`
 * whose every export is an empty class.
 */
const EVALUATE_IN_PAGE = `(async () => {
	const code = await (await fetch("/main.js")).text();
	await new Promise((resolve) => setTimeout(resolve, 50));
	console.timeStamp("engrama:evaluate:start");
	const stub = new Proxy({}, { get: (_, k) => (k === "Platform" ? { isDesktop: false, isMobile: true } : class {}) });
	const m = { exports: {} };
	new Function("require", "module", "exports", code)((r) => { if (r === "obsidian") return stub; throw new Error("no " + r); }, m, m.exports);
	console.timeStamp("engrama:evaluate:end");
	await new Promise((resolve) => setTimeout(resolve, 50));
	if (!m.exports.default) throw new Error("no plugin class");
})()`;

/** --chromium --evaluate: only evaluating each main.js, in a fresh page each time, the files interleaved. */
async function chromiumEvaluate(files: readonly string[]): Promise<void> {
	console.log(`machine: ${process.arch}, Chromium (/usr/bin/chromium), load average ${loadAverage()}`);
	const cpu = new Map(files.map((f) => [f, [] as number[]]));
	const browser = await chromium.launch(CHROMIUM);
	try {
		for (let i = 0; i < RUNS; i++) {
			for (const file of files) {
				const tab = await browser.newPage();
				await tab.route("http://localhost:1/**", (route) =>
					new URL(route.request().url()).pathname === "/main.js"
						? route.fulfill({ status: 200, body: readFileSync(file), contentType: "text/javascript" })
						: route.fulfill({ status: 200, body: "<!doctype html><body></body>", contentType: "text/html" }),
				);
				await tab.goto("http://localhost:1/");
				await browser.startTracing(tab, { categories: TRACE_CATEGORIES });
				await tab.evaluate(EVALUATE_IN_PAGE);
				const phases = tasksCpu(JSON.parse((await browser.stopTracing()).toString("utf8")) as TraceFile);
				cpu.get(file)?.push(phases.evaluate?.totalCpuMs ?? Number.NaN);
				await tab.close();
			}
		}
	} finally {
		await browser.close();
	}
	for (const [file, values] of cpu) console.log(`${file} (${mb(readFileSync(file).length)}): evaluating, main-thread CPU, median of ${values.length} ${ms(quantile(values, 0.5))} (${values.map((v) => v.toFixed(1)).join(", ")})`);
	console.log(`load average at the end ${loadAverage()}`);
}

/**
 * Chromium: main.js evaluated in a page as Obsidian does, over the fake with an in-memory vault
 * (the mobile adapter and snapshot storage: a page has no Node fs). Blocks are the main thread's
 * long tasks (PerformanceObserver "longtask") and the longest gap of a MessageChannel ticker.
 */
async function chromiumMain(): Promise<void> {
	const [built, page] = await Promise.all([buildBundles(), bootBundle("tests/plugin/browser/bench-page.ts")]);
	// --main <file>: another build (a baseline) in the same page and conditions.
	const given = process.argv.indexOf("--main");
	const mainJs = given >= 0 ? (process.argv[given + 1] ?? "") : built.mainJs;
	const origin = "http://localhost:1";
	const assets: Record<string, { body: string | Buffer; type: string }> = {
		"/": { body: `<!doctype html><html><head><meta charset="utf-8"></head><body><script src="/bench.js"></script></body></html>`, type: "text/html" },
		"/bench.js": { body: page, type: "text/javascript" },
		"/main.js": { body: readFileSync(mainJs), type: "text/javascript" },
		"/vault.json": { body: JSON.stringify(vaultFiles(vaultSource())), type: "application/json" },
	};
	const size = readFileSync(mainJs).length;
	console.log(`machine: ${process.arch}, Chromium (/usr/bin/chromium), load average ${loadAverage()}`);
	console.log(`main.js: ${mb(size)} (${mb(gzipSync(readFileSync(mainJs)).length)} gzipped)`);
	const browser = await chromium.launch(CHROMIUM);
	try {
		const tab = await browser.newPage();
		tab.on("pageerror", (error) => console.error(`page error: ${error.message}`));
		await tab.route(`${origin}/**`, (route) => {
			const asset = assets[new URL(route.request().url()).pathname];
			return asset ? route.fulfill({ status: 200, body: asset.body, contentType: asset.type }) : route.fulfill({ status: 404, body: "not found" });
		});
		await tab.goto(`${origin}/`);
		const profileAt = process.argv.indexOf("--profile");
		const cdp = profileAt >= 0 ? await tab.context().newCDPSession(tab) : null;
		if (cdp) {
			await cdp.send("Profiler.enable");
			await cdp.send("Profiler.setSamplingInterval", { interval: 200 });
			await cdp.send("Profiler.start");
		}
		// Each main-thread task's CPU time (tdur) from Chromium's trace: wall-clock task lengths mostly
		// measure the machine's load when other jobs share the cores.
		await browser.startTracing(tab, { categories: TRACE_CATEGORIES });
		type Phase = { ms: number; longestTaskMs: number; tasksOver50: number; longestGapMs: number };
		const r = (await tab.evaluate(
			async ({ manifest, runs, pluginDir }) => {
				const main = await (await window.fetch("/main.js")).text();
				const bench = (window as unknown as { engramaBench: (v: string, m: string, man: unknown, runs: number, pluginDir: string) => Promise<unknown> }).engramaBench;
				return bench("/vault.json", main, manifest, runs, pluginDir);
			},
			{ manifest: manifest(), runs: RUNS, pluginDir: PLUGIN_DIR },
		)) as { evaluate: Phase; onloads: number[]; onload: Phase; open: Phase; sync: Phase; notes: number };
		const traceText = (await browser.stopTracing()).toString("utf8");
		const cpu = tasksCpu(JSON.parse(traceText) as TraceFile);
		// --profile: the trace beside the CPU profile (same clock), to find which samples made a long task.
		if (profileAt >= 0) writeFileSync(`${process.argv[profileAt + 1] ?? "plugin-speed.cpuprofile"}.trace.json`, traceText);
		if (cdp) {
			const { profile } = await cdp.send("Profiler.stop");
			writeFileSync(process.argv[profileAt + 1] ?? "plugin-speed.cpuprofile", JSON.stringify(profile));
			const tasks = await tab.evaluate<unknown>("window.engramaLongTasks");
			console.log(`long tasks (start, duration): ${JSON.stringify(tasks)}`);
		}
		const line = (p: Phase, name: string) => {
			const c = cpu[name];
			const byCpu = c ? `; main-thread CPU ${ms(c.totalCpuMs)}, longest task ${ms(c.longestCpuMs)} CPU (${c.over50} over 50 ms CPU)` : "";
			return `${ms(p.ms)} wall${byCpu}; longest task ${ms(p.longestTaskMs)} wall (${p.tasksOver50} over 50 ms), longest ticker gap ${ms(p.longestGapMs)}`;
		};
		console.log(`evaluating main.js: ${line(r.evaluate, "evaluate")}`);
		console.log(`onload before layout ready (${RUNS} runs): median ${ms(quantile(r.onloads, 0.5))}, p95 ${ms(quantile(r.onloads, 0.95))}`);
		console.log(`\nfirst session on a new ${r.notes}-note vault (in memory):`);
		console.log(`  onload ${line(r.onload, "onload")}`);
		console.log(`  layout ready → engine ready ${line(r.open, "open")}`);
		console.log(`  first full sync ${line(r.sync, "sync")}`);
		console.log(`\nJSON ${JSON.stringify({ mainJsBytes: size, ...r, cpu, onloadMedianMs: quantile(r.onloads, 0.5), onloadP95Ms: quantile(r.onloads, 0.95), onloads: undefined, loadAverage: loadAverage() })}`);
	} finally {
		await browser.close();
	}
}

/** Per phase (between the page's engrama:<phase>:start/end marks): the main thread's tasks by CPU time. */
function tasksCpu(trace: TraceFile): Record<string, { totalCpuMs: number; longestCpuMs: number; over50: number }> {
	const tasks = mainThreadTasks(trace);
	const out: Record<string, { totalCpuMs: number; longestCpuMs: number; over50: number }> = {};
	for (const name of ["evaluate", "onload", "open", "sync"]) {
		const inside = tasksBetween(trace, tasks, name)?.map((t) => t.cpuMs);
		if (!inside) continue;
		if (process.argv.includes("--verbose")) console.log(`${name}: tasks over 20 ms CPU: ${inside.filter((d) => d > 20).map((d) => Math.round(d)).join(", ")}`);
		out[name] = { totalCpuMs: inside.reduce((a, b) => a + b, 0), longestCpuMs: inside.reduce((a, b) => Math.max(a, b), 0), over50: inside.filter((d) => d > 50).length };
	}
	return out;
}

/**
 * What one evaluation of a main.js costs in a fresh Node process (no compile cache): CPU of the
 * compile (V8 pre-parses every function) and of running its top level, against a stand-in
 * `obsidian` whose every export is an empty class (enough to define the plugin's classes).
 */
const EVALUATE_ONCE = `
const vm = require("node:vm"), fs = require("node:fs");
const text = fs.readFileSync(process.argv[1], "utf8");
const stub = new Proxy({}, { get: (_, k) => (k === "Platform" ? { isDesktop: true, isMobile: false } : class {}) });
const req = (r) => { if (r === "obsidian") return stub; if (require("node:module").builtinModules.includes(r.replace(/^node:/, ""))) return require(r); throw new Error("no " + r); };
const cpu = () => { const c = process.cpuUsage(); return (c.user + c.system) / 1000; };
const a = cpu(); const script = new vm.Script("(function (require, module, exports) {" + text + "\\n})");
const b = cpu(); const m = { exports: {} }; script.runInThisContext()(req, m, m.exports);
const c = cpu(); if (!m.exports.default) throw new Error("no plugin class");
console.log(JSON.stringify({ compile: b - a, run: c - b }));`;

function evaluateMain(files: readonly string[]): void {
	console.log(`machine: ${process.arch}, Node ${process.version}, load average ${loadAverage()}`);
	const runs = new Map(files.map((f) => [f, [] as { compile: number; run: number }[]]));
	for (let i = 0; i < RUNS; i++) {
		for (const file of files) runs.get(file)?.push(JSON.parse(execFileSync(process.execPath, ["-e", EVALUATE_ONCE, file], { encoding: "utf8" })) as { compile: number; run: number });
	}
	for (const [file, r] of runs) {
		const median = (pick: (x: { compile: number; run: number }) => number) => ms(quantile(r.map(pick), 0.5));
		console.log(`${file} (${mb(readFileSync(file).length)}): evaluating, median CPU of ${r.length}: compile ${median((x) => x.compile)}, run ${median((x) => x.run)}, total ${median((x) => x.compile + x.run)}`);
	}
	console.log(`load average at the end ${loadAverage()}`);
}

async function main(): Promise<void> {
	const evaluate = process.argv.indexOf("--evaluate");
	if (evaluate >= 0) {
		const after = process.argv.slice(evaluate + 1);
		const end = after.findIndex((a) => a.startsWith("--"));
		const files = end < 0 ? after : after.slice(0, end);
		return process.argv.includes("--chromium") ? chromiumEvaluate(files) : evaluateMain(files);
	}
	if (process.argv.includes("--chromium")) return chromiumMain();
	await buildBundles();
	// Evaluating main.js (what Obsidian does before calling onload): the WASM bytes are decoded here.
	const h = await loadPlugin();
	const requireMs = h.mainRequireMs;
	const mainJs = readFileSync(h.bundles.mainJs);
	console.log(`machine: ${process.arch}, Node ${process.version}, load average ${loadAverage()}`);
	console.log(`main.js: ${mb(mainJs.length)} (${mb(gzipSync(mainJs).length)} gzipped); evaluating it (require) ${ms(requireMs)}`);

	// onload before layout ready, on a small vault, many times.
	const onloads: number[] = [];
	for (let i = 0; i < RUNS; i++) {
		const vault = makeVault({ settings: { sync: { autoSync: false } } });
		const app = h.fake.createFakeApp(vault.path);
		const plugin = new h.Plugin(app, manifest());
		const started = performance.now();
		await plugin.fakeLoad();
		onloads.push(performance.now() - started);
		plugin.unload();
		await plugin.closed;
		vault.cleanup();
	}
	console.log(`onload before layout ready (${RUNS} runs): median ${ms(quantile(onloads, 0.5))}, p95 ${ms(quantile(onloads, 0.95))}, first ${ms(onloads[0] ?? 0)}`);

	const source = vaultSource();
	const dir = makeTempDir("engrama-plugin-bench-");
	cpSync(source, dir.path, { recursive: true });
	// A vault where Engrama was set up (a data.json): the start syncs at once, no welcome waits for a person.
	mkdirSync(join(dir.path, PLUGIN_DIR), { recursive: true });
	writeFileSync(join(dir.path, PLUGIN_DIR, "data.json"), "{}");

	let first = await session(h, dir.path);
	console.log(`\nfirst session on a new ${NOTES}-note vault:`);
	console.log(`  onload ${ms(first.onloadMs)}; layout ready → engine ready ${ms(first.readyMs)}`);
	console.log(`  first full sync ${ms(first.syncMs)} wall, ${ms(first.cpuMs)} CPU (${Math.round((NOTES / first.syncMs) * 1000)} notes/s); graph ${first.counts.nodes} nodes, ${first.counts.edges} edges`);
	console.log(`  longest main-thread block while syncing ${ms(first.blocks.longest)} wall, ${ms(first.blocks.longestCpu)} CPU (event-loop delay p99 ${ms(first.blocks.p99)})`);
	if (process.argv.includes("--verbose")) {
		console.log(`  longest blocks: ${JSON.stringify(first.blocks.worst)}`);
		console.log(`  slowest steps between gate passes: ${JSON.stringify(slowSteps.sort((a, b) => b.ms - a.ms).slice(0, 12))}`);
	}
	const grew = (m: typeof first) =>
		`rss +${mb(m.memory.rss - m.baseline.rss)} (total ${mb(m.memory.rss)}), JS heap +${mb(m.memory.heapUsed - m.baseline.heapUsed)}, array buffers (WASM memory) +${mb(m.memory.arrayBuffers - m.baseline.arrayBuffers)}`;
	console.log(`  memory the plugin added by the end of the sync: ${grew(first)}`);
	const firstSummary = { ...first, plugin: null };
	first.plugin.unload();
	await first.plugin.closed;
	first = firstSummary as unknown as typeof first;

	gc();
	const second = await session(h, dir.path);
	console.log(`\nnext session, the same vault and its ${second.counts.nodes}-node database:`);
	console.log(`  onload ${ms(second.onloadMs)}; layout ready → engine ready ${ms(second.readyMs)}`);
	console.log(`  catch-up sync of the unchanged vault ${ms(second.syncMs)} wall, ${ms(second.cpuMs)} CPU; longest main-thread block ${ms(second.blocks.longest)} wall, ${ms(second.blocks.longestCpu)} CPU (p99 ${ms(second.blocks.p99)})`);
	console.log(`  memory the plugin added: ${grew(second)}`);
	second.plugin.unload();
	await second.plugin.closed;

	console.log(
		`\nJSON ${JSON.stringify({
			mainJsBytes: mainJs.length,
			mainJsGzipBytes: gzipSync(mainJs).length,
			requireMs,
			onloadMedianMs: quantile(onloads, 0.5),
			onloadP95Ms: quantile(onloads, 0.95),
			notes: NOTES,
			firstReadyMs: first.readyMs,
			firstSyncMs: first.syncMs,
			firstSyncCpuMs: first.cpuMs,
			firstLongestBlockMs: first.blocks.longest,
			firstLongestBlockCpuMs: first.blocks.longestCpu,
			rssAddedBytes: first.memory.rss - first.baseline.rss,
			heapAddedBytes: first.memory.heapUsed - first.baseline.heapUsed,
			wasmAddedBytes: first.memory.arrayBuffers - first.baseline.arrayBuffers,
			readyWithDatabaseMs: second.readyMs,
			catchUpSyncMs: second.syncMs,
			catchUpLongestBlockMs: second.blocks.longest,
			catchUpLongestBlockCpuMs: second.blocks.longestCpu,
			loadAverage: loadAverage(),
		})}`,
	);
	rmSync(dir.path, { recursive: true, force: true });
}

await main();
