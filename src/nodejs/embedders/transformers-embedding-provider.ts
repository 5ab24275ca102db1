import type { FeatureExtractionPipeline, ProgressInfo } from "@huggingface/transformers";
import { EmbedderError, embedByLength, LOCAL_BATCH_CHARS, type EmbedderHealth, type EmbeddingProvider, knownDimensions, LoadOnce, pooledVectors, type Pooling, poolingOf, promptsOf, type TextPrompts } from "../../engine/host";
import { errorMessage } from "../../engine/errors";

/** The plugin's default too (src/plugin/local-model/catalogue.ts says why). */
export const DEFAULT_LOCAL_MODEL = "Xenova/all-MiniLM-L6-v2";

/** One step of loading a model: downloads report bytes; a cached or local file just "loads". */
export interface ModelProgress {
	readonly status: "initiate" | "download" | "progress" | "done" | "ready";
	readonly file?: string;
	/** 0..100 for "progress". */
	readonly progress?: number;
	readonly loaded?: number;
	readonly total?: number;
}

export interface LocalEmbeddingOptions {
	/** A Hugging Face model id with ONNX weights (e.g. Xenova/all-MiniLM-L6-v2) or a folder name under localModelPath. */
	readonly model?: string;
	/** Where downloaded models are kept (beside the database); later runs load from here offline. */
	readonly cacheDir: string;
	/** A folder of models already on disk, looked up before the cache and the network. */
	readonly localModelPath?: string;
	/** false: never touch the network (the model must be in localModelPath or cacheDir). */
	readonly allowRemoteModels?: boolean;
	/** A mirror of the model hub (default https://huggingface.co/). */
	readonly remoteHost?: string;
	/** Weights to load: q8 (`onnx/model_quantized.onnx`, smallest) or fp32 (`onnx/model.onnx`). */
	readonly dtype?: "q8" | "fp32" | "fp16" | "int8" | "uint8" | "q4";
	/** 0 = known for the model or learned when it loads. */
	readonly dimensions?: number;
	readonly batchSize?: number;
	readonly onProgress?: (progress: ModelProgress) => void;
}

type Transformers = typeof import("@huggingface/transformers");

/**
 * ONNX Runtime's session options (onnxruntime-node): its intra-op threads sleep between kernels
 * instead of spinning. Spinning threads burn CPU waiting for the next kernel, and they wait often
 * with small batches on a busy machine: 35 → 45–49 texts per CPU-second on obsidian-hub's passages,
 * the same vectors (npm run bench -- embed-speed, docs/benchmarks-plugin.md).
 */
export const SESSION_OPTIONS = { extra: { session: { intra_op: { allow_spinning: "0" } } } } as const;

/** transformers.js's own defaults, restored for providers that do not set them. */
let defaults: { readonly localModelPath: string; readonly remoteHost: string } | undefined;

function withSlash(path: string): string {
	return path.endsWith("/") ? path : `${path}/`;
}

/**
 * In-process sentence embeddings with transformers.js (ONNX Runtime): the model's own pooling
 * (poolingOf: [CLS] for BGE, else the mean) and prompts (promptsOf: E5's "query: " / "passage: "), unit length.
 * The model loads on first use: from `localModelPath`, else the cache beside the database, else
 * (when allowed) downloaded from the hub with progress and cached, so later runs work offline.
 */
export class TransformersEmbeddingProvider implements EmbeddingProvider {
	readonly name = "local";
	readonly model: string;
	readonly pooling: Pooling;
	readonly prompts: TextPrompts;
	private readonly options: LocalEmbeddingOptions;
	private learned = 0;
	private readonly extractor = new LoadOnce(() => this.open());

	constructor(options: LocalEmbeddingOptions) {
		this.options = options;
		this.model = options.model?.trim() || DEFAULT_LOCAL_MODEL;
		this.pooling = poolingOf(this.model);
		this.prompts = promptsOf(this.model);
	}

	get dimensions(): number {
		return (this.options.dimensions ?? 0) || this.learned || knownDimensions(this.model);
	}

	/** Loads (and if needed downloads) the model once; a failed load is retried on the next call. */
	load(): Promise<FeatureExtractionPipeline> {
		return this.extractor.get();
	}

	private async open(): Promise<FeatureExtractionPipeline> {
		let transformers: Transformers;
		try {
			transformers = await import("@huggingface/transformers");
		} catch (error) {
			throw new EmbedderError("model", `The local embedder needs @huggingface/transformers, which failed to load: ${errorMessage(error)}.`);
		}
		const { env, pipeline } = transformers;
		// transformers.js keeps these settings globally; they are only read while a model loads.
		const allowRemote = this.options.allowRemoteModels ?? true;
		env.allowLocalModels = true;
		env.allowRemoteModels = allowRemote;
		env.cacheDir = this.options.cacheDir;
		env.useFSCache = true;
		defaults ??= { localModelPath: env.localModelPath, remoteHost: env.remoteHost };
		env.localModelPath = this.options.localModelPath ? withSlash(this.options.localModelPath) : defaults.localModelPath;
		env.remoteHost = this.options.remoteHost ? withSlash(this.options.remoteHost) : defaults.remoteHost;
		const onProgress = this.options.onProgress;
		try {
			const extractor = await pipeline("feature-extraction", this.model, {
				dtype: this.options.dtype ?? "q8",
				session_options: SESSION_OPTIONS,
				progress_callback: onProgress ? (info: ProgressInfo) => forwardProgress(info, onProgress) : undefined,
			});
			return extractor;
		} catch (error) {
			const message = errorMessage(error);
			if (!allowRemote && /not found locally|allowRemoteModels=false|local_files_only/i.test(message)) {
				throw new EmbedderError(
					"model",
					`The local model "${this.model}" is not on disk (looked in ${this.options.localModelPath ?? "no local model folder"} and ${this.options.cacheDir}) and downloading is off. Allow remote models once to download it, or put the model folder there. (${message})`,
				);
			}
			if (/fetch failed|ENOTFOUND|ECONNREFUSED|ETIMEDOUT|network/i.test(message)) {
				throw new EmbedderError("network", `Downloading the local model "${this.model}" failed (${message}). Check the connection, or allow it later; nothing else is affected.`);
			}
			throw new EmbedderError("model", `The local model "${this.model}" could not be loaded: ${message}`);
		}
	}

	async embed(text: string): Promise<Float32Array> {
		const [vector] = await this.embedBatch([text]);
		return vector;
	}

	embedBatch(texts: readonly string[]): Promise<Float32Array[]> {
		return this.run(texts, this.prompts.passage);
	}

	async embedQuery(text: string): Promise<Float32Array> {
		const [vector] = await this.run([text], this.prompts.query);
		return vector;
	}

	/** Many queries at once (benchmarks embed a question set up front). */
	embedQueries(texts: readonly string[]): Promise<Float32Array[]> {
		return this.run(texts, this.prompts.query);
	}

	private async run(texts: readonly string[], prompt: string): Promise<Float32Array[]> {
		if (texts.length === 0) return [];
		const extractor = await this.load();
		// By length, under a padded-text budget: less padding to compute, and a peak that the budget sets.
		const limits = { maxCount: this.options.batchSize ?? 32, maxChars: LOCAL_BATCH_CHARS };
		return embedByLength(texts, limits, async (batch) => {
			const tensor = await extractor(
				batch.map((t) => prompt + (t.trim() || " ")),
				{ pooling: this.pooling, normalize: true },
			);
			const vectors = pooledVectors(tensor, batch.length, this.dimensions, `The local model ${this.model}`);
			// The output tensor holds ONNX Runtime memory until disposed; the vectors are copies.
			tensor.dispose();
			if (!this.learned) this.learned = vectors[0].length;
			return vectors;
		});
	}

	/** Loads the model and reports its dimension. */
	async probe(): Promise<number> {
		await this.embed("dimension probe");
		return this.dimensions;
	}

	async health(): Promise<EmbedderHealth> {
		try {
			const dims = await this.probe();
			return { ok: true, detail: `local model ${this.model}: ${dims} dimensions` };
		} catch (error) {
			return { ok: false, detail: errorMessage(error) };
		}
	}

	/** Frees the ONNX session. */
	async close(): Promise<void> {
		await this.extractor.reset((extractor) => extractor.dispose());
	}
}

function forwardProgress(info: ProgressInfo, onProgress: (progress: ModelProgress) => void): void {
	switch (info.status) {
		case "initiate":
		case "download":
		case "done":
			onProgress({ status: info.status, file: info.file });
			return;
		case "progress":
			onProgress({ status: "progress", file: info.file, progress: info.progress, loaded: info.loaded, total: info.total });
			return;
		case "ready":
			onProgress({ status: "ready" });
			return;
		default:
			return;
	}
}
