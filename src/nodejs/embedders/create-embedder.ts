import { homedir } from "node:os";
import { dirname, join } from "node:path";
import type { EngramaConfig } from "../../config/engrama-config";
import { createHttpEmbeddingProvider, type EmbeddingProvider } from "../../engine/host";
import { createFetchHttpClient } from "./fetch-http-client";
import { TransformersEmbeddingProvider, type ModelProgress } from "./transformers-embedding-provider";
import { USE_LITE_MODEL, UseLiteEmbeddingProvider } from "./use-lite-embedding-provider";

export interface NodeEmbedderOptions {
	/** Model download progress of the local provider (the CLI prints it on stderr). */
	readonly onProgress?: (progress: ModelProgress) => void;
}

/** Downloaded local models live beside the database, in `models/`. */
export function modelCacheDir(config: Pick<EngramaConfig, "dbPath">): string {
	const base = config.dbPath === ":memory:" ? join(homedir(), ".engrama") : dirname(config.dbPath);
	return join(base, "models");
}

/** config.embedding → a provider (null when embedding is off). */
export function createNodeEmbedder(config: EngramaConfig, options: NodeEmbedderOptions = {}): EmbeddingProvider | null {
	const settings = config.embedding;
	switch (settings.provider) {
		case "none":
			return null;
		case "local":
			if (settings.model.trim().toLowerCase() === USE_LITE_MODEL) return new UseLiteEmbeddingProvider();
			return new TransformersEmbeddingProvider({
				model: settings.model || undefined,
				cacheDir: modelCacheDir(config),
				localModelPath: settings.localModelPath || undefined,
				allowRemoteModels: settings.allowRemoteModels,
				dimensions: settings.dimensions,
				onProgress: options.onProgress,
			});
		default:
			return createHttpEmbeddingProvider(settings, createFetchHttpClient());
	}
}

/** Providers whose dimension is only known after a first call expose `probe()`. */
interface Probeable {
	probe(): Promise<number>;
}

function canProbe(embedder: EmbeddingProvider): embedder is EmbeddingProvider & Probeable {
	return typeof (embedder as Partial<Probeable>).probe === "function";
}

/**
 * When the dimension is not known from the config or the model name, asks the provider once so
 * writes can embed. A failure is not fatal: writes then store nodes without vectors (reindex
 * fixes them) and search reports the embedder's error as its degraded reason.
 */
export async function resolveDimensions(embedder: EmbeddingProvider | null): Promise<string | undefined> {
	if (!embedder || embedder.dimensions > 0 || !canProbe(embedder)) return undefined;
	try {
		await embedder.probe();
		return undefined;
	} catch (error) {
		return error instanceof Error ? error.message : String(error);
	}
}
