// Benchmark (not a test): the local embedder inside headless Chromium (Obsidian's renderer
// engine), ONNX Runtime in its proxy worker versus on the main thread (Worker hidden), with a real
// all-MiniLM-L6-v2 served by the page. Prints the longest main-thread block while embedding.
//
//   npx esbuild tests/plugin/local-model-chromium-bench.ts --bundle --platform=node --format=esm --target=node20 \
//     --packages=external --outfile=.test-out/local-model-chromium-bench.mjs \
//     --banner:js="import { createRequire as __r } from 'node:module'; const require = __r(import.meta.url);"
//   node .test-out/local-model-chromium-bench.mjs .bench-out/models/models
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { bootBundle } from "./browser/boot-bundle";
import { PLUGIN_DIR, buildBundles, manifest } from "./harness";
import { hubRouteAnswer } from "./model-hub-server";

const ORIGIN = "http://localhost:1";
const MODEL = "Xenova/all-MiniLM-L6-v2";
const models = process.argv[2] ?? ".bench-out/models/models";
if (!existsSync(join(models, MODEL, "onnx", "model_quantized.onnx"))) throw new Error(`no ${MODEL} under ${models} (scripts/bench/models/prepare-minilm.sh)`);

const PAGE = `<!doctype html><html><head><meta charset="utf-8"></head><body><div id="main"></div><div id="sidebar"></div><div id="settings"></div><script src="/boot.js"></script></body></html>`;

async function run(hideWorker: boolean, mainJs: Buffer, boot: string): Promise<void> {
	const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"] });
	try {
		const page = await browser.newPage();
		await page.route(`${ORIGIN}/**`, (route) => {
			const path = new URL(route.request().url()).pathname;
			if (path.startsWith("/hub/")) return route.fulfill(hubRouteAnswer(models, path.slice(4), route.request().headers().range));
			const assets: Record<string, string | Buffer> = { "/": PAGE, "/boot.js": boot, "/main.js": mainJs };
			return assets[path] !== undefined ? route.fulfill({ status: 200, body: assets[path], contentType: path === "/" ? "text/html" : "text/javascript" }) : route.fulfill({ status: 404, body: "" });
		});
		await page.goto(`${ORIGIN}/`);
		const files: Record<string, string> = { "A.md": "the graph database keeps a vector for each idea\n", [`${PLUGIN_DIR}/data.json`]: JSON.stringify({ sync: { autoSync: false }, embedding: { provider: "local", model: MODEL, hubUrl: `${ORIGIN}/hub`, runtimeUrl: `${ORIGIN}/hub/npm/onnxruntime-web@{version}/dist` } }) };
		const result = await page.evaluate(
			async ({ files, manifest, hideWorker }) => {
				if (hideWorker) (window as unknown as { Worker?: unknown }).Worker = undefined;
				const main = await (await fetch("/main.js")).text();
				const w = window as unknown as { engramaBoot(f: unknown, m: string, man: unknown): Promise<void>; engrama: { plugin: { controller: { models: { download(m: string, s: unknown): Promise<unknown> }; restart(): Promise<void>; ready(): Promise<{ embedder: { embed(t: string): Promise<Float32Array>; embedBatch(t: string[]): Promise<Float32Array[]> } }> } } } };
				await w.engramaBoot(files, main, manifest);
				const controller = w.engrama.plugin.controller;
				let t = performance.now();
				await controller.models.download("Xenova/all-MiniLM-L6-v2", { hubUrl: "http://localhost:1/hub", runtimeUrl: "http://localhost:1/hub/npm/onnxruntime-web@{version}/dist" });
				const downloadMs = performance.now() - t;
				await controller.restart();
				const embedder = (await controller.ready()).embedder;
				t = performance.now();
				await embedder.embed("warm up");
				const loadMs = performance.now() - t;
				const measure = async (work: () => Promise<unknown>) => {
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
					const started = performance.now();
					await work();
					await new Promise((r) => setTimeout(r, 0));
					ticking = false;
					return { ms: Math.round(performance.now() - started), longestBlockMs: Math.round(longest) };
				};
				const texts = Array.from({ length: 64 }, (_, i) => `Note ${i}: the graph database keeps a vector for each idea so that search finds related notes.`);
				const long = Array.from({ length: 40 }, (_, i) => `sentence ${i} about graph databases and vector search in a note`).join(". ");
				return { downloadMs: Math.round(downloadMs), loadMs: Math.round(loadMs), batch64: await measure(() => embedder.embedBatch(texts)), longNote: await measure(() => embedder.embed(long)) };
			},
			{ files, manifest: manifest(), hideWorker },
		);
		console.log(`${hideWorker ? "main thread" : "proxy worker"}: ${JSON.stringify(result)}`);
	} finally {
		await browser.close();
	}
}

const [{ mainJs }, boot] = await Promise.all([buildBundles(), bootBundle()]);
const bytes = readFileSync(mainJs);
console.log(`load average ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`);
await run(false, bytes, boot);
await run(true, bytes, boot);
console.log(`load average ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`);
