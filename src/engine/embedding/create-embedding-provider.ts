import { ValidationError } from "../errors";
import type { EmbeddingProvider } from "../protocols";
import { HashEmbeddingProvider } from "./hash-embedding-provider";
import type { HttpClient } from "./http-client";
import type { RetryPolicy, Sleep } from "./retry";
import { NullEmbeddingProvider } from "./null-embedding-provider";
import { OllamaEmbeddingProvider } from "./ollama-embedding-provider";
import { OpenAiEmbeddingProvider } from "./openai-embedding-provider";

/** The embedding part of the configuration (settings tab, or EMBEDDING_* variables). */
export interface EmbeddingSettings {
	readonly provider: "none" | "local" | "openai" | "ollama" | "hash";
	readonly model: string;
	readonly dimensions: number;
	readonly baseUrl: string;
	readonly apiKey: string;
	readonly timeoutMs?: number;
	readonly batchSize?: number;
	readonly retry?: RetryPolicy;
}

export const DEFAULT_MODELS = { openai: "text-embedding-3-small", ollama: "nomic-embed-text" } as const;

/**
 * Builds the providers that need nothing but HTTP (any platform): openai, ollama, hash, none.
 * `local` runs a model in-process and is built by the platform (src/nodejs/embedders).
 */
/** `sleep` waits between retries: the platform's timers (the plugin passes the window's). */
export function createHttpEmbeddingProvider(settings: EmbeddingSettings, http: HttpClient, sleep?: Sleep): EmbeddingProvider {
	switch (settings.provider) {
		case "none":
			return new NullEmbeddingProvider();
		case "hash":
			return new HashEmbeddingProvider(settings.dimensions > 0 ? settings.dimensions : 256);
		case "openai":
		case "ollama": {
			const options = {
				baseUrl: settings.baseUrl,
				model: settings.model || DEFAULT_MODELS[settings.provider],
				dimensions: settings.dimensions,
				apiKey: settings.apiKey,
				timeoutMs: settings.timeoutMs,
				batchSize: settings.batchSize,
				retry: settings.retry,
				...(sleep ? { sleep } : {}),
			};
			return settings.provider === "openai" ? new OpenAiEmbeddingProvider(http, options) : new OllamaEmbeddingProvider(http, options);
		}
		case "local":
			throw new ValidationError('The "local" embedder runs in-process and is built by the platform (Node or the plugin), not over HTTP.');
		default:
			throw new ValidationError(`Unknown embedding provider "${String(settings.provider)}". Use none, local, openai, ollama or hash.`);
	}
}
