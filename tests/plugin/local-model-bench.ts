// Benchmark (not a test): the plugin's local embedder through the built main.js and the fake
// `obsidian`, against a local stand-in for the model hub. Prints main.js size and evaluation
// time, download + verification time, model load time and embedding throughput (wall and CPU).
//
//   npx esbuild tests/plugin/local-model-bench.ts --bundle --platform=node --format=esm --target=node20 \
//     --packages=external --outfile=.test-out/local-model-bench.mjs \
//     --banner:js="import { createRequire as __r } from 'node:module'; const require = __r(import.meta.url);"
//   node --expose-gc .test-out/local-model-bench.mjs [--models <folder with Xenova/all-MiniLM-L6-v2>] [--baseline <old main.js>]
//
// Without --models only the tiny generated test model runs (16 dimensions: load and transfer
// costs, not a model's compute). scripts/bench/models/prepare-minilm.sh builds a real
// all-MiniLM-L6-v2 (q8, 23 MB) into .bench-out/models/models without the hub.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { makeTempDir } from "../helpers/temp-dir";
import { writeTinyModel } from "../nodejs/embedders/tiny-onnx-model";
import { PLUGIN_DIR, loadPlugin, manifest, type LoadedPlugin } from "./harness";
import { startHubServer } from "./model-hub-server";

const args = process.argv.slice(2);
const option = (name: string) => {
	const at = args.indexOf(name);
	return at >= 0 ? args[at + 1] : undefined;
};

function clock(): () => { wallMs: number; cpuMs: number } {
	const wall = performance.now();
	const cpu = process.cpuUsage();
	return () => {
		const used = process.cpuUsage(cpu);
		return { wallMs: performance.now() - wall, cpuMs: (used.user + used.system) / 1000 };
	};
}

const fmt = (t: { wallMs: number; cpuMs: number }) => `${t.wallMs.toFixed(0)} ms wall, ${t.cpuMs.toFixed(0)} ms CPU`;

/** Evaluating main.js files in fresh Node processes with the fake `obsidian`, interleaved: median wall and CPU ms each. */
function evaluation(mainJs: readonly string[], fakeCjs: string, runs = 9): { wallMs: number; cpuMs: number }[] {
	const script = (file: string) => `
const Module = require("node:module");
const original = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) { return request === "obsidian" ? ${JSON.stringify(fakeCjs)} : original.call(this, request, ...rest); };
require(${JSON.stringify(fakeCjs)});
const t = performance.now();
const c = process.cpuUsage();
require(${JSON.stringify(file)});
const u = process.cpuUsage(c);
process.stdout.write(JSON.stringify({ wallMs: performance.now() - t, cpuMs: (u.user + u.system) / 1000 }));`;
	const samples = mainJs.map(() => [] as { wallMs: number; cpuMs: number }[]);
	for (let i = 0; i < runs; i++) {
		mainJs.forEach((file, k) => samples[k].push(JSON.parse(execFileSync(process.execPath, ["-e", script(file)], { encoding: "utf8" })) as { wallMs: number; cpuMs: number }));
	}
	const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
	return samples.map((xs) => ({ wallMs: median(xs.map((x) => x.wallMs)), cpuMs: median(xs.map((x) => x.cpuMs)) }));
}

/** Child process: a new Obsidian session (nothing loaded yet) embeds its first text. */
async function cold(vault: string): Promise<void> {
	const h = await loadPlugin();
	const app = h.fake.createFakeApp(vault);
	const plugin = new h.Plugin(app, manifest());
	await plugin.fakeLoad();
	await app.workspace.fakeLayoutReady();
	const embedder = (await plugin.controller!.ready()).embedder!;
	const t = clock();
	await embedder.embed("first call loads the runtime and the model");
	console.log(`  new session: runtime (14 MB WASM compiled) + model loaded from the plugin folder + first embed: ${fmt(t())}`);
	plugin.unload();
	await plugin.closed;
}

async function main(): Promise<void> {
	console.log(`load average ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`);
	const h: LoadedPlugin = await loadPlugin();
	const size = statSync(h.bundles.mainJs).size;
	const gz = gzipSync(readFileSync(h.bundles.mainJs)).length;
	console.log(`main.js ${size.toLocaleString("en-US")} B (${gz.toLocaleString("en-US")} B gzipped)`);
	const baseline = option("--baseline");
	if (baseline) {
		const base = statSync(baseline).size;
		console.log(`baseline main.js ${base.toLocaleString("en-US")} B (${gzipSync(readFileSync(baseline)).length.toLocaleString("en-US")} B gzipped): +${(size - base).toLocaleString("en-US")} B`);
		// The baseline must sit where `require` finds CommonJS: copy it next to ours.
		const copy = join(h.bundles.mainJs, "..", "baseline-main.js");
		cpSync(baseline, copy);
		const [before, now] = evaluation([copy, h.bundles.mainJs], h.bundles.fakeCjs);
		console.log(`evaluating main.js (median of 9 fresh processes each, interleaved): baseline ${fmt(before)}, now ${fmt(now)}`);
	}

	const hub = makeTempDir("engrama-bench-hub-");
	writeTinyModel(hub.path, "engrama/tiny-encoder");
	const models = ["engrama/tiny-encoder"];
	const real = option("--models");
	if (real && existsSync(join(real, "Xenova", "all-MiniLM-L6-v2", "onnx", "model_quantized.onnx"))) {
		cpSync(join(real, "Xenova", "all-MiniLM-L6-v2"), join(hub.path, "Xenova", "all-MiniLM-L6-v2"), { recursive: true });
		models.push("Xenova/all-MiniLM-L6-v2");
	}
	const texts = Array.from({ length: 256 }, (_, i) => `Note ${i}: the graph database keeps a vector for each idea so that search finds related notes, not only matching words.`);
	try {
		for (const model of models) {
			const server = await startHubServer(hub.path);
			const vault = makeTempDir("engrama-bench-vault-");
			mkdirSync(join(vault.path, PLUGIN_DIR), { recursive: true });
			writeFileSync(join(vault.path, PLUGIN_DIR, "data.json"), JSON.stringify({ embedding: { provider: "local", model, hubUrl: server.url, runtimeUrl: server.runtimeUrl }, sync: { autoSync: false } }));
			const open = async () => {
				const app = h.fake.createFakeApp(vault.path);
				const plugin = new h.Plugin(app, manifest());
				await plugin.fakeLoad();
				await app.workspace.fakeLayoutReady();
				await plugin.controller!.ready();
				return plugin;
			};
			let plugin = await open();
			let t = clock();
			const installed = await plugin.controller!.models.download(model, { hubUrl: server.url, runtimeUrl: server.runtimeUrl });
			if (!installed) throw new Error(`download of ${model} failed`);
			const bytes = installed.files.reduce((n, f) => n + f.size, 0);
			console.log(`\n${model}: download + verify (runtime ${models[0] === model ? "included, 14.3 MB" : "already there"}; model ${(bytes / 1_048_576).toFixed(1)} MB, ${installed.dimensions} d): ${fmt(t())}`);
			plugin.unload();
			await plugin.closed;
			// A fresh session with the hub gone: the model loads from the model folder (desktop: ~/.engrama/obsidian-models, checked against its SHA-256).
			await server.close().catch(() => undefined);
			plugin = await open();
			const embedder = (await plugin.controller!.ready()).embedder!;
			t = clock();
			await embedder.embed("first call loads the model");
			console.log(`  load from the model folder (SHA-256 check included) + first embed: ${fmt(t())}`);
			// The longest main-thread block while embedding (ONNX Runtime runs on the renderer thread).
			const longText = Array.from({ length: 40 }, (_, i) => `sentence ${i} about graph databases and vector search in a note`).join(". ");
			for (const [what, work] of [
				["embedBatch of 64", () => embedder.embedBatch(texts.slice(0, 64))],
				["one long note (~400 words, truncated by the model)", () => embedder.embed(longText)],
			] as const) {
				let longest = 0;
				let last = performance.now();
				let ticking = true;
				const tick = () => {
					const now = performance.now();
					longest = Math.max(longest, now - last);
					last = now;
					if (ticking) setTimeout(tick, 0);
				};
				setTimeout(tick, 0);
				t = clock();
				await work();
				// Let the ticker see the last stretch too (a single call may never have yielded).
				await new Promise((resolve) => setTimeout(resolve, 0));
				ticking = false;
				console.log(`  ${what}: ${fmt(t())}; longest main-thread block ${longest.toFixed(0)} ms wall`);
			}
			for (const batch of [1, 256]) {
				t = clock();
				const out = batch === 1 ? await Promise.all(texts.slice(0, 32).map((x) => embedder.embed(x))) : await embedder.embedBatch(texts);
				const n = batch === 1 ? 32 : 256;
				const took = t();
				console.log(`  ${batch === 1 ? "32 single embed() calls" : "embedBatch of 256"}: ${fmt(took)}, ${((n / took.wallMs) * 1000).toFixed(1)} texts/s wall (${out.length} × ${out[0]?.length ?? 0} d)`);
			}
			plugin.unload();
			await plugin.closed;
			process.stdout.write(execFileSync(process.execPath, [process.argv[1], "--cold", vault.path], { encoding: "utf8" }));
			vault.cleanup();
		}
	} finally {
		hub.cleanup();
	}
	console.log(`\nload average ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`);
}

const coldVault = option("--cold");
if (coldVault) await cold(coldVault);
else await main();
