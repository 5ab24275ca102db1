import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../../src/config/engrama-config";
import { HashEmbeddingProvider } from "../../../src/engine/embedding/hash-embedding-provider";
import { OllamaEmbeddingProvider } from "../../../src/engine/embedding/ollama-embedding-provider";
import { OpenAiEmbeddingProvider } from "../../../src/engine/embedding/openai-embedding-provider";
import { createNodeEmbedder, modelCacheDir, resolveDimensions } from "../../../src/nodejs/embedders/create-embedder";
import { TransformersEmbeddingProvider } from "../../../src/nodejs/embedders/transformers-embedding-provider";
import { UseLiteEmbeddingProvider } from "../../../src/nodejs/embedders/use-lite-embedding-provider";
import { EmbeddingServer } from "../../engine/embedding/embedding-server";

const config = (embedding: Record<string, unknown>) => parseConfig({ dbPath: "/data/memory/engrama.db", embedding });

describe("createNodeEmbedder", () => {
	it("maps each provider name to its implementation", () => {
		expect(createNodeEmbedder(config({ provider: "none" }))).toBeNull();
		expect(createNodeEmbedder(config({ provider: "hash", dimensions: 64 }))).toBeInstanceOf(HashEmbeddingProvider);
		expect(createNodeEmbedder(config({ provider: "openai", model: "text-embedding-3-small" }))).toBeInstanceOf(OpenAiEmbeddingProvider);
		expect(createNodeEmbedder(config({ provider: "ollama" }))).toBeInstanceOf(OllamaEmbeddingProvider);
		expect(createNodeEmbedder(config({ provider: "local", model: "use-lite" }))).toBeInstanceOf(UseLiteEmbeddingProvider);
		const local = createNodeEmbedder(config({ provider: "local" }));
		expect(local).toBeInstanceOf(TransformersEmbeddingProvider);
		expect(local?.model).toBe("Xenova/all-MiniLM-L6-v2");
		expect(local?.dimensions).toBe(384);
	});

	it("caches downloaded models beside the database", () => {
		expect(modelCacheDir({ dbPath: "/data/memory/engrama.db" })).toBe(join("/data/memory", "models"));
	});

	it("learns an unknown dimension with one probe, and reports a probe failure instead of throwing", async () => {
		const server = await new EmbeddingServer(24).start();
		try {
			const embedder = createNodeEmbedder(config({ provider: "openai", model: "custom", baseUrl: `${server.baseUrl}/v1` }));
			expect(embedder?.dimensions).toBe(0);
			expect(await resolveDimensions(embedder)).toBeUndefined();
			expect(embedder?.dimensions).toBe(24);
			server.behaviour = { status: 500 };
			const broken = createNodeEmbedder(config({ provider: "openai", model: "custom", baseUrl: `${server.baseUrl}/v1`, timeoutMs: 200 }));
			const retryless = broken as OpenAiEmbeddingProvider;
			expect(await resolveDimensions(retryless)).toMatch(/HTTP 500/);
			expect(retryless.dimensions).toBe(0);
		} finally {
			await server.stop();
		}
	});
});

describe("fetch HttpClient", () => {
	it("names the cause of a network failure that is not a refused connection", async () => {
		const { createFetchHttpClient } = await import("../../../src/nodejs/embedders/fetch-http-client");
		// Port 9 is a "bad port" for fetch: it fails before connecting, with the reason in `cause`.
		const error = await createFetchHttpClient()
			.post("http://127.0.0.1:9/v1/embeddings", {}, {}, 1000)
			.catch((e: unknown) => e);
		expect((error as Error).message).toMatch(/could not be reached \(fetch failed: bad port\)/);
	});
});
