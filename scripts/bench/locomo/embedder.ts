import { join } from "node:path";
import { configFromEnv, parseConfig } from "../../../src/config/engrama-config";
import type { EmbeddingProvider } from "../../../src/engine/protocols";
import { createNodeEmbedder, resolveDimensions } from "../../../src/node/embedders/create-embedder";
import { TransformersEmbeddingProvider } from "../../../src/node/embedders/transformers-embedding-provider";
import { UseLiteEmbeddingProvider } from "../../../src/node/embedders/use-lite-embedding-provider";
import { pooledVectors } from "../../../src/engine/embedding/dimensions";
import { CachedEmbeddingProvider } from "./vector-cache";

/**
 * The local provider with the first token's vector instead of the mean (`--pooling cls`): how the
 * BGE models were trained. Bench only; the product's provider pools by the mean.
 */
class ClsPooling extends TransformersEmbeddingProvider {
	override async embedBatch(texts: readonly string[]): Promise<Float32Array[]> {
		const extractor = await this.load();
		const out: Float32Array[] = [];
		for (let i = 0; i < texts.length; i += 32) {
			const batch = texts.slice(i, i + 32).map((t) => t.trim() || " ");
			const tensor = await extractor(batch, { pooling: "cls", normalize: true });
			out.push(...pooledVectors(tensor, batch.length, tensor.dims[1], `The local model ${this.model}`));
		}
		return out;
	}
}

function arg(argv: readonly string[], name: string): string | undefined {
	const i = argv.indexOf(`--${name}`);
	return i >= 0 ? argv[i + 1] : undefined;
}

/**
 * The encoder of a LoCoMo run, wrapped in the vector cache:
 * - default: USE-lite (offline, TensorFlow.js);
 * - `--model-dir <models>/<org>/<name> [--dtype q8|fp32]`: the `local` provider (transformers.js)
 *   on a model folder on disk, remote loading off (scripts/bench/models/prepare-minilm.sh makes one);
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
		const cls = arg(argv, "pooling") === "cls";
		inner = new (cls ? ClsPooling : TransformersEmbeddingProvider)({
			model: parts.slice(-2).join("/"),
			localModelPath: parts.slice(0, -2).join("/") || ".",
			cacheDir: join(cacheDir, "models"),
			allowRemoteModels: false,
			dtype,
			batchSize: 32,
			// A model transformers.js does not know (e.g. BAAI/bge-small-en-v1.5): `--dims 384`.
			...(arg(argv, "dims") ? { dimensions: Number(arg(argv, "dims")) } : {}),
		});
		tag = cls ? `${dtype}-cls` : dtype;
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
