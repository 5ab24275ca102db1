// How fast the local model embeds a real vault, against the runtime's own floor.
//
//   npm run bench -- embed-speed --vault <folder of notes> --model-dir <models folder> [--notes 173] [--batch 32] [--save-texts <file>]
//   (--save-texts: keeps the recorded texts as JSON, to measure other settings on the same texts)
//
// 1. Syncs --notes notes of the vault (an even sample) into a fresh memory without a model, then
//    records the texts a re-embed asks for (node texts and passages), exactly as the memory does.
// 2. Embeds those texts with the local model (q8 all-MiniLM-L6-v2 from --model-dir, offline) in
//    each order below, each in a child process of its own, so its peak RSS is its own:
//      calls-32:  the provider asked 32 texts at a time in the memory's order (reindex's default
//                 batch); before lengthBatches each call was one batch padded to its longest text;
//      calls-256: 256 texts per call, so the provider sorts across more of them;
//      floor:     the mean-length text repeated: nothing padded, the runtime's best.
// 3. Prints texts per CPU-second (user + system, every thread), wall seconds, the padding (padded
//    characters over real ones, characters standing in for tokens) and the peak RSS, with the load.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { parseConfig } from "../../src/config/engrama-config";
import { reindex } from "../../src/engine/search/reindex";
import type { EmbedderHealth, EmbeddingProvider } from "../../src/engine/protocols";
import { createNodeVaultSync } from "../../src/nodejs/folder-vault-source";
import { openMemory } from "../../src/nodejs/open-memory";
import { TransformersEmbeddingProvider } from "../../src/nodejs/embedders/transformers-embedding-provider";
import { chunk, lengthBatches, LOCAL_BATCH_CHARS } from "../../src/engine/embedding/batching";
import { arg } from "./args";

const ORDERS = ["calls-32", "calls-256", "floor"] as const;
type Order = (typeof ORDERS)[number];

interface Measured {
	readonly order: Order;
	readonly texts: number;
	readonly cpuSeconds: number;
	readonly wallSeconds: number;
	readonly padding: number;
	readonly peakRssMB: number;
}

/** Stands in for the model while the memory says what it would embed. */
class RecordingEmbedder implements EmbeddingProvider {
	readonly name = "recording";
	readonly model = "recording";
	readonly dimensions = 384;
	readonly texts: string[] = [];
	embed(text: string): Promise<Float32Array> {
		this.texts.push(text);
		return Promise.resolve(new Float32Array(this.dimensions).fill(0.05));
	}
	async embedBatch(texts: readonly string[]): Promise<Float32Array[]> {
		return Promise.all(texts.map((t) => this.embed(t)));
	}
	health(): Promise<EmbedderHealth> {
		return Promise.resolve({ ok: true, detail: "recording" });
	}
}

function markdownFiles(dir: string): string[] {
	const out: string[] = [];
	const walk = (d: string) => {
		for (const name of readdirSync(d)) {
			if (name.startsWith(".")) continue;
			const path = join(d, name);
			if (statSync(path).isDirectory()) walk(path);
			else if (name.endsWith(".md")) out.push(relative(dir, path));
		}
	};
	walk(dir);
	return out.sort();
}

/** The texts a re-embed of `notes` asks the model for, in the memory's order. */
async function textsOf(vaultDir: string, count: number, work: string): Promise<string[]> {
	const all = markdownFiles(vaultDir);
	const step = Math.max(1, all.length / count);
	const vault = join(work, "vault");
	for (let i = 0; i < all.length && Math.floor(i / step) < count; i += step) {
		const path = all[Math.floor(i)];
		mkdirSync(dirname(join(vault, path)), { recursive: true });
		copyFileSync(join(vaultDir, path), join(vault, path));
	}
	const opened = await openMemory(parseConfig({ backend: "sqlite", dbPath: join(work, "memory.db"), vaultPath: vault }), { embedder: null });
	const { sync } = await createNodeVaultSync({ memory: opened.memory, scope: opened.scope, vaultPath: vault, settings: { writeEngramaIds: false, writeGraphToVault: false } });
	await sync.fullSync();
	await sync.stop();
	const recorder = new RecordingEmbedder();
	const { memory } = opened;
	await reindex({ graph: memory.graph, vectors: memory.vectors, embedder: recorder, pipeline: memory.pipeline, write: (job) => memory.write(job) }, opened.scope, { apply: true, batchSize: 32 });
	await opened.close();
	return recorder.texts;
}

/** Padded characters over real ones when `batches` are padded to their longest text. */
function paddingOf(batches: readonly (readonly string[])[]): number {
	let real = 0;
	let padded = 0;
	for (const batch of batches) {
		const longest = Math.max(...batch.map((t) => t.length));
		padded += longest * batch.length;
		real += batch.reduce((n, t) => n + t.length, 0);
	}
	return padded / real;
}

/** One order, in this process (a child of the main run). */
async function measure(order: Order, texts: readonly string[], modelDir: string, batch: number): Promise<Measured> {
	const provider = new TransformersEmbeddingProvider({ model: "Xenova/all-MiniLM-L6-v2", cacheDir: modelDir, localModelPath: modelDir, allowRemoteModels: false, dtype: "q8", batchSize: batch });
	await provider.embed("warm up the session");
	const meanLength = Math.round(texts.reduce((n, t) => n + t.length, 0) / texts.length);
	const mean = texts.reduce((best, t) => (Math.abs(t.length - meanLength) < Math.abs(best.length - meanLength) ? t : best), texts[0]);
	const input = order === "floor" ? texts.map(() => mean) : texts;
	// The memory hands the provider `call` texts at a time, in its own order (reindex's batch); the
	// provider batches each call by length under its budget (lengthBatches).
	const call = order === "calls-256" ? 256 : batch;
	const calls = chunk(input, call);
	const batches = calls.flatMap((c) => lengthBatches(c, batch, LOCAL_BATCH_CHARS).map((b) => b.map((i) => c[i])));
	const cpu = process.cpuUsage();
	const t0 = performance.now();
	for (const c of calls) await provider.embedBatch(c);
	const wallSeconds = (performance.now() - t0) / 1000;
	const used = process.cpuUsage(cpu);
	await provider.close();
	return { order, texts: input.length, cpuSeconds: (used.user + used.system) / 1e6, wallSeconds, padding: paddingOf(batches), peakRssMB: Math.round(process.resourceUsage().maxRSS / 1024) };
}

async function main(): Promise<void> {
	const modelDir = resolve(arg("model-dir", ".bench-out/models/models"));
	const batch = Number(arg("batch", "32"));
	const child = arg("only", "");
	if (child !== "") {
		const texts = JSON.parse(readFileSync(arg("texts", ""), "utf8")) as string[];
		process.stdout.write(`${JSON.stringify(await measure(child as Order, texts, modelDir, batch))}\n`);
		return;
	}
	const vaultDir = resolve(arg("vault", ".bench-out/vault-retrieval/obsidian-hub-dae4bcf"));
	const notes = Number(arg("notes", "173"));
	const work = mkdtempSync(join(tmpdir(), "engrama-embed-speed-"));
	try {
		const texts = await textsOf(vaultDir, notes, work);
		const file = join(work, "texts.json");
		writeFileSync(file, JSON.stringify(texts));
		const keep = arg("save-texts", "");
		if (keep !== "") copyFileSync(file, keep);
		const rows: Measured[] = [];
		const load = loadavg()[0].toFixed(1);
		for (const order of ORDERS) {
			const run = spawnSync(process.execPath, [process.argv[1], "--only", order, "--texts", file, "--model-dir", modelDir, "--batch", String(batch)], { encoding: "utf8", maxBuffer: 1 << 26 });
			if (run.status !== 0) throw new Error(`${order}: ${run.stderr}`);
			rows.push(JSON.parse(run.stdout.trim().split("\n").at(-1)!) as Measured);
		}
		console.log(`embed-speed: ${notes} notes of ${vaultDir}, ${texts.length} texts, batch ${batch}, q8 all-MiniLM-L6-v2; load ${load} → ${loadavg()[0].toFixed(1)}`);
		console.log("| order | texts | CPU s | texts / CPU s | wall s | padding | peak RSS |");
		console.log("|---|---:|---:|---:|---:|---:|---:|");
		for (const r of rows) {
			console.log(`| ${r.order} | ${r.texts} | ${r.cpuSeconds.toFixed(1)} | ${(r.texts / r.cpuSeconds).toFixed(1)} | ${r.wallSeconds.toFixed(1)} | ${r.padding.toFixed(2)}× | ${r.peakRssMB} MB |`);
		}
	} finally {
		rmSync(work, { recursive: true, force: true });
	}
}

await main();
