// The panel while the plugin embeds a vault with the local model, in headless Chromium (Obsidian's
// renderer engine): the built main.js over the fake `obsidian` with an in-memory generated vault,
// the local model (all-MiniLM-L6-v2 q8) chosen but not downloaded, the first sync done (nodes
// without vectors). Then the model is downloaded as the settings' button does it, the engine
// reopens and embeds the missing vectors; for a fixed window (embedding a whole 5,000-note vault
// takes far longer) it records, from Chromium's trace, every main-thread task (CPU and wall), the
// tasks over 50 ms and, with --profile, what ran in them; and the progress the person sees.
//
//   npm run bench -- embed-ui [--notes 5000] [--seconds 120] [--models .bench-out/models-local/models] [--main <file>] [--profile <file>.cpuprofile] [--trace <file>.json]
//
// The model folder holds Xenova/all-MiniLM-L6-v2 with onnx/model_quantized.onnx
// (scripts/bench/models/prepare-maven-model.sh minilm q8 <dir>). --main: another build of main.js
// (a baseline, measured the same way; run the two alternately). --profile: an unminified build
// unless --main is given, so the profile names functions. --trace: keep Chromium's trace (for
// chrome://tracing or Perfetto).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { bootBundle } from "../../tests/plugin/browser/boot-bundle";
import { vaultFiles } from "../../tests/plugin/browser/vault-files";
import { buildBundles, buildTracedMainJs, manifest, PLUGIN_DIR } from "../../tests/plugin/harness";
import { hubRouteAnswer } from "../../tests/plugin/model-hub-server";
import { CHROMIUM, generatedVault, mainThreadTasks, type MainTask, taskBreakdown, tasksBetween, traceMarks, type TraceFile } from "./chromium-bench";

const MODEL = "Xenova/all-MiniLM-L6-v2";
const ORIGIN = "http://localhost:1";

function option(name: string): string | undefined {
	const i = process.argv.indexOf(`--${name}`);
	return i >= 0 ? process.argv[i + 1] : undefined;
}

const NOTES = Number(option("notes") ?? 5000);
const SECONDS = Number(option("seconds") ?? 120);
const MODELS = option("models") ?? ".bench-out/models-local/models";
const PROFILE = option("profile");

// Beside the tasks: GC (V8's and Blink's), compiling (JavaScript and WebAssembly) and each entry
// into V8, so a long task's breakdown says what it was.
const EMBED_TRACE_CATEGORIES = ["toplevel", "devtools.timeline", "v8.execute", "v8.wasm", "disabled-by-default-v8.gc", "disabled-by-default-v8.compile", "blink_gc"];

const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

interface Profile {
	nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number }; children?: number[] }[];
	startTime: number;
	samples: number[];
	timeDeltas: number[];
}

/** What ran in a long task: the functions with the most samples inside it (self time), and the deepest frames of its hottest stack. */
function whatRan(profile: Profile, task: MainTask): string {
	const byId = new Map(profile.nodes.map((n) => [n.id, n]));
	const parent = new Map<number, number>();
	for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
	const self = new Map<string, number>();
	const stacks = new Map<string, number>();
	let at = profile.startTime;
	const end = task.ts + task.wallMs * 1000;
	const name = (id: number) => {
		const f = byId.get(id)!.callFrame;
		return `${f.functionName || "(anonymous)"}:${f.lineNumber + 1}`;
	};
	for (let i = 0; i < profile.samples.length; i++) {
		at += profile.timeDeltas[i] ?? 0;
		if (at < task.ts || at > end) continue;
		const leaf = profile.samples[i];
		self.set(name(leaf), (self.get(name(leaf)) ?? 0) + 1);
		const frames: string[] = [];
		for (let id: number | undefined = leaf; id !== undefined && frames.length < 40; id = parent.get(id)) frames.push(name(id));
		const key = frames.filter((f) => !f.startsWith("(")).slice(0, 12).join(" < ");
		stacks.set(key, (stacks.get(key) ?? 0) + 1);
	}
	const top = (m: Map<string, number>, n: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n);
	return `self: ${top(self, 6).map(([k, v]) => `${k} ×${v}`).join(", ")}\n      hottest stacks: ${top(stacks, 2).map(([k, v]) => `[×${v}] ${k}`).join("\n                      ")}`;
}

function summarise(tasks: readonly MainTask[]): Record<string, number> {
	const cpu = tasks.map((t) => t.cpuMs);
	const wall = tasks.map((t) => t.wallMs);
	const sorted = [...cpu].sort((a, b) => a - b);
	return {
		tasks: tasks.length,
		longestCpuMs: Math.max(0, ...cpu),
		longestWallMs: Math.max(0, ...wall),
		over50Cpu: cpu.filter((c) => c > 50).length,
		over50Wall: wall.filter((w) => w > 50).length,
		p99CpuMs: sorted[Math.floor(sorted.length * 0.99)] ?? 0,
		mainThreadCpuS: cpu.reduce((a, b) => a + b, 0) / 1000,
	};
}

async function main(): Promise<void> {
	if (!existsSync(join(MODELS, MODEL, "onnx", "model_quantized.onnx"))) throw new Error(`no ${MODEL}/onnx/model_quantized.onnx under ${MODELS} (scripts/bench/models/prepare-maven-model.sh minilm q8 <dir>)`);
	const given = option("main");
	const [built, page] = await Promise.all([buildBundles(), bootBundle("tests/plugin/browser/embed-page.ts")]);
	const mainJs = given ?? (PROFILE ? await buildTracedMainJs() : built.mainJs);
	const assets: Record<string, { body: string | Buffer; type: string }> = {
		"/": { body: `<!doctype html><html><head><meta charset="utf-8"></head><body><div id="main"></div><div id="sidebar"></div><script src="/embed.js"></script></body></html>`, type: "text/html" },
		"/embed.js": { body: page, type: "text/javascript" },
		"/main.js": { body: readFileSync(mainJs), type: "text/javascript" },
		"/vault.json": { body: JSON.stringify(vaultFiles(generatedVault(NOTES))), type: "application/json" },
	};
	console.log(`main.js ${mainJs}; ${NOTES}-note vault; window ${SECONDS} s; load average ${load()}`);
	const browser = await chromium.launch(CHROMIUM);
	try {
		const tab = await browser.newPage();
		tab.on("pageerror", (error) => console.error(`page error: ${error.message}`));
		await tab.route(`${ORIGIN}/**`, (route) => {
			const path = new URL(route.request().url()).pathname;
			if (path.startsWith("/hub/")) return route.fulfill(hubRouteAnswer(MODELS, path.slice("/hub".length), route.request().headers().range));
			const asset = assets[path];
			return asset ? route.fulfill({ status: 200, body: asset.body, contentType: asset.type }) : route.fulfill({ status: 404, body: "not found" });
		});
		await tab.goto(`${ORIGIN}/`);
		const settings = { embedding: { provider: "local", model: MODEL, hubUrl: `${ORIGIN}/hub`, runtimeUrl: `${ORIGIN}/hub/npm/onnxruntime-web@{version}/dist` } };
		const setup = await tab.evaluate(
			async ({ manifest, pluginDir, settings }) => {
				const main = await (await window.fetch("/main.js")).text();
				const w = window as unknown as { engramaEmbedSetup(v: string, m: string, man: unknown, dir: string, s: unknown): Promise<{ notes: number; syncMs: number }> };
				return w.engramaEmbedSetup("/vault.json", main, manifest, pluginDir, settings);
			},
			{ manifest: manifest(), pluginDir: PLUGIN_DIR, settings },
		);
		console.log(`first sync of ${setup.notes} notes without vectors: ${(setup.syncMs / 1000).toFixed(1)} s wall; load average ${load()}`);
		const cdp = PROFILE ? await tab.context().newCDPSession(tab) : null;
		if (cdp) {
			await cdp.send("Profiler.enable");
			await cdp.send("Profiler.setSamplingInterval", { interval: 500 });
			await cdp.send("Profiler.start");
		}
		await browser.startTracing(tab, { categories: EMBED_TRACE_CATEGORIES });
		const result = await tab.evaluate(
			({ ms, pluginDir }) => (window as unknown as { engramaEmbedWindow(ms: number, dir: string): Promise<WindowResult> }).engramaEmbedWindow(ms, pluginDir),
			{ ms: SECONDS * 1000, pluginDir: PLUGIN_DIR },
		);
		const traceText = (await browser.stopTracing()).toString("utf8");
		if (option("trace")) writeFileSync(option("trace")!, traceText);
		const trace = JSON.parse(traceText) as TraceFile;
		const profile = cdp ? ((await cdp.send("Profiler.stop")).profile as unknown as Profile) : null;
		if (profile && PROFILE) writeFileSync(PROFILE, JSON.stringify(profile));
		await tab.evaluate("window.engramaEmbedTeardown()");
		report(trace, result, profile);
	} finally {
		await browser.close();
	}
}

interface WindowResult {
	downloadMs: number;
	seen: { s: number; task: string; status: string; notice: string }[];
	finished: boolean;
	worker: boolean;
	snapshotBytes: number;
}

function report(trace: TraceFile, result: WindowResult, profile: Profile | null): void {
	const tasks = tasksBetween(trace, mainThreadTasks(trace), "embed");
	if (!tasks) throw new Error("the page left no embed marks in the trace");
	console.log(`download and verify ${(result.downloadMs / 1000).toFixed(1)} s; ONNX Runtime in its proxy worker: ${result.worker}${result.finished ? "; the embed finished inside the window" : ""}; database snapshot at the end ${(result.snapshotBytes / 1024 / 1024).toFixed(1)} MB`);
	const progress = [...new Set(result.seen.map((s) => s.task))];
	console.log(`progress (task, every 1 s, distinct): ${progress.slice(0, 3).join(" | ")} … ${progress.slice(-3).join(" | ")}`);
	console.log(`status bar at the end: ${result.seen.at(-1)?.status ?? ""}; notice: ${result.seen.at(-1)?.notice ?? ""}`);
	const firstLeft = result.seen.find((s) => /left/.test(s.task));
	console.log(`first "left" estimate after ${firstLeft ? `${firstLeft.s} s: ${firstLeft.task}` : "— (none in the window)"}`);
	const summary = summarise(tasks);
	console.log(`embed window: ${JSON.stringify(summary)}`);
	const long = tasks.filter((t) => t.cpuMs > 50 || t.wallMs > 50).sort((a, b) => b.cpuMs - a.cpuMs);
	const start = traceMarks(trace).get("embed:start") ?? 0;
	const at = (t: MainTask) => `${((t.ts - start) / 1e6).toFixed(1)} s`;
	console.log(`tasks over 50 ms (CPU / wall ms @ time into the embed): ${long.slice(0, 30).map((t) => `${t.cpuMs.toFixed(0)}/${t.wallMs.toFixed(0)} @${at(t)}`).join(", ")}`);
	// The longest ones since the download began (the reopen before the window too; a negative time
	// is before it), and what came near the bound (what a quieter machine would still show).
	const longest = mainThreadTasks(trace).sort((a, b) => b.cpuMs - a.cpuMs).slice(0, profile ? 10 : 5);
	for (const t of longest.filter((t) => t.cpuMs > 50)) console.log(`  task ${t.cpuMs.toFixed(0)} ms CPU @${at(t)}, self wall ms by trace event: ${taskBreakdown(trace, t)}`);
	if (profile) for (const t of longest) console.log(`  task ${t.cpuMs.toFixed(0)} ms CPU @${at(t)}: ${whatRan(profile, t)}`);
	console.log(`JSON ${JSON.stringify({ notes: NOTES, seconds: SECONDS, ...summary, downloadMs: result.downloadMs, snapshotBytes: result.snapshotBytes, worker: result.worker, lastProgress: result.seen.at(-1)?.task, firstLeftAfterS: firstLeft?.s ?? null, loadAverage: load() })}`);
}

await main();
