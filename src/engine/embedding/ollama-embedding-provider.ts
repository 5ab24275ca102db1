import { toFloat32 } from "./dimensions";
import { EmbedderError } from "./embedder-error";
import { HttpEmbeddingProvider, type HttpEmbeddingOptions } from "./http-embedding-provider";
import { joinUrl, type HttpClient } from "./http-client";

export const OLLAMA_DEFAULT_BASE_URL = "http://localhost:11434";

/** Ollama's native `POST /api/embeddings` ({model, prompt} → {embedding}): one text per request. */
export class OllamaEmbeddingProvider extends HttpEmbeddingProvider {
	readonly name = "ollama";

	constructor(http: HttpClient, options: HttpEmbeddingOptions) {
		super(http, { ...options, baseUrl: options.baseUrl.replace(/\/v1\/?$/, "") }, { baseUrl: OLLAMA_DEFAULT_BASE_URL, batchSize: 16 });
	}

	protected async request(texts: readonly string[], timeoutMs: number): Promise<Float32Array[]> {
		const url = joinUrl(this.baseUrl, "api/embeddings");
		const out: Float32Array[] = [];
		for (const text of texts) {
			const response = await this.http.post(url, { model: this.model, prompt: text }, this.headers(), timeoutMs);
			this.checkStatus(response, url);
			const embedding = (response.json as { embedding?: unknown } | undefined)?.embedding;
			if (Array.isArray(embedding) && embedding.length === 0) {
				throw new EmbedderError("model", `${this.describe()} returned an empty embedding: "${this.model}" is probably not an embedding model.`);
			}
			out.push(toFloat32(embedding, this.describe()));
		}
		return out;
	}
}
