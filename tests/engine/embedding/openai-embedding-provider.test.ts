import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { EmbedderError } from "../../../src/engine/embedding/embedder-error";
import { HashEmbeddingProvider } from "../../../src/engine/embedding/hash-embedding-provider";
import { OpenAiEmbeddingProvider } from "../../../src/engine/embedding/openai-embedding-provider";
import type { HttpEmbeddingOptions } from "../../../src/engine/embedding/http-embedding-provider";
import { createFetchHttpClient } from "../../../src/nodejs/embedders/fetch-http-client";
import { EmbeddingServer, closedPort } from "./embedding-server";

const http = createFetchHttpClient();
const noWait = async () => {};

describe("OpenAI-compatible provider against a real local /v1/embeddings server", () => {
	const server = new EmbeddingServer(64);
	beforeAll(async () => {
		await server.start();
	});
	afterAll(async () => {
		await server.stop();
	});
	afterEach(() => {
		server.behaviour = {};
		server.requests.length = 0;
	});

	const provider = (options: Partial<HttpEmbeddingOptions> = {}) =>
		new OpenAiEmbeddingProvider(http, { baseUrl: `${server.baseUrl}/v1`, model: "local-embedder", sleep: noWait, ...options });

	it("posts the model and texts with the bearer key and returns the server's vectors", async () => {
		const vectors = await provider({ apiKey: "sk-test" }).embedBatch(["graph memory", "sqlite vectors"]);
		const reference = new HashEmbeddingProvider(64);
		expect(Array.from(vectors[0])).toEqual(Array.from(reference.embedSync("graph memory")));
		expect(Array.from(vectors[1])).toEqual(Array.from(reference.embedSync("sqlite vectors")));
		const [request] = server.requests;
		expect(request.path).toBe("/v1/embeddings");
		expect(request.headers.authorization).toBe("Bearer sk-test");
		expect(request.body).toMatchObject({ model: "local-embedder", input: ["graph memory", "sqlite vectors"], encoding_format: "float" });
		expect(request.body.dimensions).toBeUndefined();
	});

	it("orders vectors by the answer's index, not its position", async () => {
		server.behaviour = { shuffle: true };
		const [a, b] = await provider().embedBatch(["alpha", "beta"]);
		const reference = new HashEmbeddingProvider(64);
		expect(Array.from(a)).toEqual(Array.from(reference.embedSync("alpha")));
		expect(Array.from(b)).toEqual(Array.from(reference.embedSync("beta")));
	});

	it("splits large inputs into batches and keeps the order", async () => {
		const texts = ["one", "two", "three", "four", "five"];
		const vectors = await provider({ batchSize: 2 }).embedBatch(texts);
		expect(server.requests.map((r) => (r.body.input as string[]).length)).toEqual([2, 2, 1]);
		const reference = new HashEmbeddingProvider(64);
		vectors.forEach((v, i) => expect(Array.from(v)).toEqual(Array.from(reference.embedSync(texts[i]))));
	});

	it("learns an unknown model's dimension from the first answer, and knows common models up front", async () => {
		const p = provider();
		expect(p.dimensions).toBe(0);
		await p.embed("hello");
		expect(p.dimensions).toBe(64);
		expect(new OpenAiEmbeddingProvider(http, { baseUrl: "", model: "text-embedding-3-small" }).dimensions).toBe(1536);
	});

	it("sends `dimensions` only for text-embedding-3 models", async () => {
		server.behaviour = { dimensions: 32 };
		await provider({ model: "text-embedding-3-small", dimensions: 32 }).embed("x");
		expect(server.requests[0].body.dimensions).toBe(32);
	});

	it("retries 503 answers with backoff, then succeeds", async () => {
		server.behaviour = { failFirst: 2 };
		const delays: number[] = [];
		const p = provider({ retry: { retries: 3, baseDelayMs: 100, maxDelayMs: 1000 }, sleep: async (ms) => void delays.push(ms) });
		const vector = await p.embed("retry me");
		expect(vector.length).toBe(64);
		expect(server.requests).toHaveLength(3);
		expect(delays).toEqual([100, 200]);
	});

	it("does not retry a rejected key and says what to check", async () => {
		server.behaviour = { status: 401 };
		const error = await provider({ retry: { retries: 3, baseDelayMs: 1, maxDelayMs: 1 } }).embed("x").catch((e: unknown) => e);
		expect(error).toBeInstanceOf(EmbedderError);
		expect((error as EmbedderError).message).toMatch(/refused the API key \(HTTP 401\).*Check the embedding API key/);
		expect(server.requests).toHaveLength(1);
	});

	it("times out a server that does not answer, naming the timeout", async () => {
		// The answer would come after 2 s: only a working timeout gives failure "timeout" (no duration
		// assertion, which a busy machine could break).
		server.behaviour = { delayMs: 2000 };
		const error = await provider({ timeoutMs: 150, retry: { retries: 1, baseDelayMs: 1, maxDelayMs: 1 } })
			.embed("slow")
			.catch((e: unknown) => e);
		expect(error).toBeInstanceOf(EmbedderError);
		expect((error as EmbedderError).failure).toBe("timeout");
		expect((error as EmbedderError).message).toMatch(/did not answer within 150 ms/);
		expect(server.requests).toHaveLength(2);
	});

	it("reports a refused connection", async () => {
		const port = await closedPort();
		const p = new OpenAiEmbeddingProvider(http, { baseUrl: `http://127.0.0.1:${port}/v1`, model: "m", sleep: noWait });
		const error = await p.embed("x").catch((e: unknown) => e);
		expect((error as EmbedderError).failure).toBe("refused");
		expect((error as EmbedderError).message).toMatch(/refused the connection \(ECONNREFUSED\)/);
	});

	it("refuses vectors of the wrong dimension with a reindex hint", async () => {
		server.behaviour = { dimensions: 48 };
		const error = await provider({ dimensions: 64 }).embed("x").catch((e: unknown) => e);
		expect((error as EmbedderError).failure).toBe("dimension");
		expect((error as EmbedderError).message).toMatch(/48-dimensional vectors, but 64 were expected.*reindex --rebuild --apply/);
	});

	it("health reports the dimension or the failure", async () => {
		const healthy = await provider().health();
		expect(healthy.ok).toBe(true);
		expect(healthy.detail).toMatch(/64 dimensions/);
		server.behaviour = { status: 500 };
		const health = await provider({ retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } }).health();
		expect(health.ok).toBe(false);
		expect(health.detail).toMatch(/HTTP 500/);
	});
});
