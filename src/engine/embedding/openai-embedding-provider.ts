import { toFloat32 } from "./dimensions";
import { EmbedderError } from "./embedder-error";
import { HttpEmbeddingProvider, type HttpEmbeddingOptions } from "./http-embedding-provider";
import { joinUrl, type HttpClient } from "./http-client";

export const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1";

/**
 * Any server with an OpenAI-style `POST {baseUrl}/embeddings`: OpenAI, Ollama (`/v1`), LM Studio,
 * vLLM, llama.cpp, Jina. The base URL includes the version path (`http://localhost:11434/v1`).
 */
export class OpenAiEmbeddingProvider extends HttpEmbeddingProvider {
	readonly name = "openai";
	private readonly requestDimensions: number | undefined;

	constructor(http: HttpClient, options: HttpEmbeddingOptions) {
		super(http, options, { baseUrl: OPENAI_DEFAULT_BASE_URL, batchSize: 64 });
		// Only the text-embedding-3 models accept a `dimensions` parameter; others reject it.
		this.requestDimensions = options.dimensions && /^text-embedding-3/i.test(this.model) ? options.dimensions : undefined;
	}

	protected async request(texts: readonly string[], timeoutMs: number): Promise<Float32Array[]> {
		const url = joinUrl(this.baseUrl, "embeddings");
		const body: Record<string, unknown> = { model: this.model, input: texts, encoding_format: "float" };
		if (this.requestDimensions) body.dimensions = this.requestDimensions;
		const response = await this.http.post(url, body, this.headers(), timeoutMs);
		this.checkStatus(response, url);
		const data = (response.json as { data?: unknown } | undefined)?.data;
		if (!Array.isArray(data)) throw new EmbedderError("bad_response", `${this.describe()} answered without a "data" array.`);
		const ordered: Float32Array[] = new Array<Float32Array>(texts.length);
		data.forEach((item: unknown, position) => {
			const entry = (item ?? {}) as { embedding?: unknown; index?: unknown };
			const index = typeof entry.index === "number" ? entry.index : position;
			if (index < 0 || index >= texts.length) throw new EmbedderError("bad_response", `${this.describe()} answered an out-of-range index ${index}.`);
			ordered[index] = toFloat32(entry.embedding, this.describe());
		});
		return Array.from(ordered, (v, i) => {
			if (!v) throw new EmbedderError("bad_response", `${this.describe()} left text ${i} without a vector.`);
			return v;
		});
	}
}
