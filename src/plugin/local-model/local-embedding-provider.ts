import type { FeatureExtractionPipeline } from "@huggingface/transformers";
import { EmbedderError, embedByLength, LOCAL_BATCH_CHARS, type EmbedderHealth, type EmbeddingProvider, knownDimensions, LoadOnce, pooledVectors, type Pooling, poolingOf, promptsOf, type TextPrompts } from "../../engine/host";
import { errorMessage } from "../../engine/errors";
import { LOCAL_MODELS } from "./catalogue";
import type { InstalledFile, ModelStore } from "./model-store";
import { bundledOrtVersion, loadRuntime, registerModelReader } from "./runtime";

/**
 * Longest input in tokens, as sentence-transformers cuts all-MiniLM-L6-v2 (max_seq_length 256).
 * The tokenizers say 512, and attention grows with the square of the length: a long note at 512
 * tokens held the main thread 0.9 s of CPU here.
 */
export const MAX_TOKENS = 256;

/** transformers.js truncates to the tokenizer's model_max_length (a getter over its config). */
function capTokens(extractor: FeatureExtractionPipeline): void {
	const config = (extractor.tokenizer as unknown as { _tokenizerConfig?: { model_max_length?: number } })._tokenizerConfig;
	if (config && !(typeof config.model_max_length === "number" && config.model_max_length <= MAX_TOKENS)) config.model_max_length = MAX_TOKENS;
}

export interface LocalEmbedderOptions {
	readonly store: ModelStore;
	readonly model: string;
	/** Read the files from this folder instead of the installed one (checking a download). */
	readonly folder?: string;
	readonly batchSize?: number;
}

/** Said wherever the model is missing: search's degraded reason, the status bar, the notice. */
export function notDownloadedMessage(model: string): string {
	return `The local model "${model}" is not downloaded yet: download the model in settings (Engrama → Embeddings → Download model). Search uses fulltext and the graph until then.`;
}

/**
 * The plugin's in-process embedder: transformers.js + onnxruntime-web (WebAssembly) in Obsidian's
 * renderer, desktop and mobile. The model's own pooling (poolingOf) and prompts (promptsOf), unit length. The model and the runtime binary come
 * from the model store only (model-location.ts), checked against their SHA-256 when loaded; until
 * they are downloaded every call fails with a message that says where to download them, and the
 * engine degrades to fulltext.
 */
export class LocalEmbeddingProvider implements EmbeddingProvider {
	readonly name = "local";
	readonly model: string;
	readonly pooling: Pooling;
	readonly prompts: TextPrompts;
	private installedDims = 0;
	/** The installed files' sizes and SHA-256, checked as they are read to load the model. */
	private installedFiles: ReadonlyMap<string, InstalledFile> = new Map();
	private learned = 0;
	private missing = false;
	private readonly extractor = new LoadOnce(() => this.open());

	constructor(private readonly options: LocalEmbedderOptions) {
		this.model = options.model;
		this.pooling = poolingOf(options.model);
		this.prompts = promptsOf(options.model);
	}

	get dimensions(): number {
		return this.installedDims || this.learned || LOCAL_MODELS.find((m) => m.id === this.model)?.dimensions || knownDimensions(this.model);
	}

	/** Reads the manifest so the dimension is known before the first call; false when not downloaded. */
	async prepare(): Promise<boolean> {
		if (this.options.folder) return true;
		const installed = await this.options.store.installedModel(this.model);
		if (installed) {
			this.installedDims = installed.dimensions;
			this.installedFiles = new Map(installed.files.map((f) => [f.path, f]));
		}
		return installed !== null;
	}

	load(): Promise<FeatureExtractionPipeline> {
		return this.extractor.get();
	}

	private async open(): Promise<FeatureExtractionPipeline> {
		const { store } = this.options;
		// Not downloaded stays so for this engine (a download reopens the engine): writes during a
		// sync do not look for the files again each time.
		if (this.missing || !(await this.prepare())) {
			this.missing = true;
			throw new EmbedderError("model", notDownloadedMessage(this.model), { model: this.model }, false);
		}
		const version = await bundledOrtVersion();
		if (!(await store.installedRuntime(version))) throw new EmbedderError("model", notDownloadedMessage(this.model), { model: this.model, runtime: version }, false);
		const folder = this.options.folder ?? store.modelFolder(this.model);
		let refused: unknown;
		try {
			const { transformers } = await loadRuntime(() => store.readRuntime(version));
			// A staged download was hashed as it arrived; an installed model is checked at each load.
			const expected = this.options.folder ? new Map<string, InstalledFile>() : this.installedFiles;
			registerModelReader(this.model, async (_model, file) => {
				try {
					return await store.readFile(folder, file, expected.get(file));
				} catch (error) {
					// transformers.js reports any failed read as "not found": keep the real reason.
					refused ??= error;
					throw error;
				}
			});
			const extractor = await transformers.pipeline("feature-extraction", this.model, { dtype: "q8", device: "wasm" });
			capTokens(extractor);
			return extractor;
		} catch (error) {
			throw new EmbedderError("model", `The local model "${this.model}" could not be loaded: ${errorMessage(refused ?? error)}. Download it again in settings.`, { model: this.model }, false);
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

	private async run(texts: readonly string[], prompt: string): Promise<Float32Array[]> {
		if (texts.length === 0) return [];
		const extractor = await this.load();
		let first = true;
		// ONNX Runtime computes on Obsidian's main thread: small batches (single-threaded WASM gains
		// nothing from larger ones: ~30 ms CPU per short text either way), and a macrotask between
		// them, so a long reindex still lets Obsidian paint and handle input. By length, so a short
		// text is not padded to a long neighbour's length.
		const limits = { maxCount: this.options.batchSize ?? 2, maxChars: LOCAL_BATCH_CHARS };
		return embedByLength(texts, limits, async (batch) => {
			if (!first) await new Promise<void>((resolve) => window.setTimeout(resolve, 0));
			first = false;
			const tensor = await extractor(
				batch.map((t) => prompt + (t.trim() || " ")),
				{ pooling: this.pooling, normalize: true },
			);
			const vectors = pooledVectors(tensor, batch.length, this.dimensions, `The local model ${this.model}`);
			if (!this.learned) this.learned = vectors[0].length;
			tensor.dispose();
			return vectors;
		});
	}

	async health(): Promise<EmbedderHealth> {
		try {
			const vector = await this.embed("health check");
			return { ok: true, detail: `local model ${this.model}: ${vector.length} dimensions` };
		} catch (error) {
			return { ok: false, detail: errorMessage(error) };
		}
	}

	async close(): Promise<void> {
		await this.extractor.reset((extractor) => extractor.dispose());
	}
}
