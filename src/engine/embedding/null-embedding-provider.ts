import type { EmbedderHealth, EmbeddingProvider } from "../protocols";
import { EmbedderError } from "./embedder-error";

export const NO_EMBEDDER_REASON =
	"no embedder is configured (embedding provider none): fulltext only. Set EMBEDDING_PROVIDER (local, openai, ollama) to add the vector channel.";

/** Embedding switched off: dimension 0, so writes skip embedding and search runs on fulltext. */
export class NullEmbeddingProvider implements EmbeddingProvider {
	readonly name = "none";
	readonly model = "";
	readonly dimensions = 0;

	async embed(): Promise<Float32Array> {
		throw new EmbedderError("model", NO_EMBEDDER_REASON);
	}

	async embedBatch(texts: readonly string[]): Promise<Float32Array[]> {
		if (texts.length === 0) return [];
		throw new EmbedderError("model", NO_EMBEDDER_REASON);
	}

	async health(): Promise<EmbedderHealth> {
		return { ok: false, detail: NO_EMBEDDER_REASON };
	}
}

/** True for "no embedder": null, the null provider, or any provider of dimension 0 named none. */
export function isNullEmbedder(embedder: EmbeddingProvider | null | undefined): boolean {
	return !embedder || embedder.name === "none";
}
