import { join } from "node:path";
import { configFromEnv, parseConfig } from "../../../src/config/engrama-config";
import type { EmbeddingProvider } from "../../../src/engine/protocols";
import { createNodeEmbedder, resolveDimensions } from "../../../src/nodejs/embedders/create-embedder";
import { TransformersEmbeddingProvider } from "../../../src/nodejs/embedders/transformers-embedding-provider";
import { UseLiteEmbeddingProvider } from "../../../src/nodejs/embedders/use-lite-embedding-provider";
import { CachedEmbeddingProvider } from "./vector-cache";

function arg(argv: readonly string[], name: string): string | undefined {
	const i = argv.indexOf(`--${name}`);
	return i >= 0 ? argv[i + 1] : undefined;
}

/**
 * The encoder of a LoCoMo run, wrapped in the vector cache:
 * - default: USE-lite (offline, TensorFlow.js);
 * - `--model-dir <models>/<org>/<name> [--dtype q8|fp32]`: the `local` provider (transformers.js)
 *   on a model folder on disk, remote loading off (scripts/bench/models/prepare-maven-model.sh makes one);
 *   its pooling and prompts follow the model's name, as in the product;
 * - `--embedder config`: whatever the EMBEDDING_* variables configure (local, openai, ollama).
 * The cache file names the provider, model and weights, so encoders never share vectors.
 */
export async function benchEmbedder(argv: readonly string[], cacheDir: string): Promise<{ embedder: CachedEmbeddingProvider; label: string }> {
	const modelDir = arg(argv, "model-dir");
	const dtype = (arg(argv, "dtype") ?? "q8") as "q8" | "fp32";
	let inner: EmbeddingProvider | null;
	let tag = "";
	if (modelDir) {
		const parts = modelDir.replace(/\/+$/, "").split("/");
		const local = new TransformersEmbeddingProvider({
			model: parts.slice(-2).join("/"),
			localModelPath: parts.slice(0, -2).join("/") || ".",
			cacheDir: join(cacheDir, "models"),
			allowRemoteModels: false,
			dtype,
			batchSize: 32,
			// A model transformers.js does not know (e.g. BAAI/bge-small-en-v1.5): `--dims 384`.
			...(arg(argv, "dims") ? { dimensions: Number(arg(argv, "dims")) } : {}),
		});
		// Pooling and prompts follow the model's name (poolingOf, promptsOf): name the folder after the hub id.
		if (arg(argv, "pooling") && arg(argv, "pooling") !== local.pooling) throw new Error(`--pooling ${String(arg(argv, "pooling"))}: ${local.model} pools by ${local.pooling} (poolingOf).`);
		inner = local;
		tag = local.pooling === "cls" ? `${dtype}-cls` : dtype;
	} else if (arg(argv, "embedder") === "config") {
		inner = createNodeEmbedder(parseConfig(configFromEnv(process.env, { dbPath: join(cacheDir, "models", "x.db") })));
	} else {
		inner = new UseLiteEmbeddingProvider(64);
	}
	if (!inner) throw new Error("--embedder config needs EMBEDDING_PROVIDER (local, openai, ollama).");
	if (inner.dimensions === 0) {
		const problem = await resolveDimensions(inner);
		if (problem) throw new Error(problem);
	}
	const name = `${inner.name}-${inner.model.replace(/[^\w.-]+/g, "_")}${tag ? `-${tag}` : ""}`;
	const embedder = new CachedEmbeddingProvider(inner, join(cacheDir, `${name}-vectors.json`), tag);
	return { embedder, label: `${inner.name}:${inner.model}${tag ? ` ${tag}` : ""} (${inner.dimensions}-d)` };
}
