// Embedding throughput of the in-process providers (sentences/s), batch by batch.
// Usage: npm run bench -- search-embedders [--sentences 256] [--batch 32] [--model-dir <models>/<org>/<name>]
//        [--only model-dir]
// --model-dir adds a transformers.js model folder on disk (loaded with remote models off), once per
// weight file it holds: onnx/model_quantized.onnx (q8, the provider's default) and onnx/model.onnx (fp32).
// scripts/bench/models/prepare-minilm.sh makes such a folder for all-MiniLM-L6-v2.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { HashEmbeddingProvider } from "../../src/engine/embedding/hash-embedding-provider";
import type { EmbeddingProvider } from "../../src/engine/protocols";
import { TransformersEmbeddingProvider } from "../../src/nodejs/embedders/transformers-embedding-provider";
import { UseLiteEmbeddingProvider } from "../../src/nodejs/embedders/use-lite-embedding-provider";
import { writeTinyModel } from "../../tests/nodejs/embedders/tiny-onnx-model";
import { arg } from "./args";
import { seededRandom, sentence } from "./stats";

const count = Number(arg("sentences", "256"));
const batch = Number(arg("batch", "32"));
const rand = seededRandom(11);
const texts = Array.from({ length: count }, () => sentence(rand, 8 + Math.floor(rand() * 16)));
const dir = mkdtempSync(join(tmpdir(), "engrama-embed-bench-"));
writeTinyModel(join(dir, "models"), "engrama/tiny-encoder");
const modelDir = process.argv.includes("--model-dir") ? arg("model-dir", "") : "";

let providers: [string, EmbeddingProvider][] = [
	["hash (256-d, no model)", new HashEmbeddingProvider(256)],
	["USE-lite (TensorFlow.js, 512-d)", new UseLiteEmbeddingProvider(batch)],
	[
		"transformers.js, tiny generated model (pipeline overhead only)",
		new TransformersEmbeddingProvider({ model: "engrama/tiny-encoder", cacheDir: join(dir, "cache"), localModelPath: join(dir, "models"), allowRemoteModels: false, batchSize: batch }),
	],
];
if (modelDir) {
	for (const [dtype, file] of [["q8", "model_quantized.onnx"], ["fp32", "model.onnx"]] as const) {
		if (!existsSync(join(modelDir, "onnx", file))) continue;
		providers.push([
			`transformers.js, ${modelDir.split("/").slice(-2).join("/")} ${dtype}`,
			new TransformersEmbeddingProvider({
				model: modelDir.split("/").slice(-2).join("/"),
				localModelPath: join(modelDir, "..", ".."),
				cacheDir: join(dir, "cache"),
				allowRemoteModels: false,
				dtype,
				batchSize: batch,
			}),
		]);
	}
}
if (arg("only", "") === "model-dir") providers = providers.slice(3);

console.log(`\nEmbedding throughput: ${count} sentences of 8-23 words, batches of ${batch}`);
console.log("| provider | dimensions | load | sentences/s (wall) | CPU ms per sentence |");
console.log("| --- | ---: | ---: | ---: | ---: |");
for (const [name, provider] of providers) {
	const t0 = performance.now();
	await provider.embed("warm up");
	const load = performance.now() - t0;
	const t1 = performance.now();
	const cpu = process.cpuUsage();
	await provider.embedBatch(texts);
	const used = process.cpuUsage(cpu);
	const seconds = (performance.now() - t1) / 1000;
	const cpuMs = (used.user + used.system) / 1000;
	console.log(`| ${name} | ${provider.dimensions} | ${load.toFixed(0)} ms | ${(count / seconds).toFixed(0)} | ${(cpuMs / count).toFixed(2)} |`);
	await (provider as { close?: () => Promise<void> }).close?.();
}
rmSync(dir, { recursive: true, force: true });
console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
