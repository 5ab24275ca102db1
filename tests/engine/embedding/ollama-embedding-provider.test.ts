import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EmbedderError } from "../../../src/engine/embedding/embedder-error";
import { HashEmbeddingProvider } from "../../../src/engine/embedding/hash-embedding-provider";
import { OllamaEmbeddingProvider } from "../../../src/engine/embedding/ollama-embedding-provider";
import { createFetchHttpClient } from "../../../src/nodejs/embedders/fetch-http-client";
import { EmbeddingServer } from "./embedding-server";

describe("Ollama native provider against a real local /api/embeddings server", () => {
	const server = new EmbeddingServer(32);
	beforeAll(async () => {
		await server.start();
	});
	afterAll(async () => {
		await server.stop();
	});

	it("sends one prompt per request and returns vectors in order", async () => {
		const p = new OllamaEmbeddingProvider(createFetchHttpClient(), { baseUrl: server.baseUrl, model: "nomic-embed-text", dimensions: 32 });
		const vectors = await p.embedBatch(["first note", "second note"]);
		expect(server.requests.map((r) => r.body)).toEqual([
			{ model: "nomic-embed-text", prompt: "first note" },
			{ model: "nomic-embed-text", prompt: "second note" },
		]);
		expect(Array.from(vectors[1])).toEqual(Array.from(new HashEmbeddingProvider(32).embedSync("second note")));
	});

	it("accepts an OpenAI-style base URL ending in /v1", async () => {
		const p = new OllamaEmbeddingProvider(createFetchHttpClient(), { baseUrl: `${server.baseUrl}/v1`, model: "all-minilm", dimensions: 32 });
		expect((await p.embed("x")).length).toBe(32);
		expect(server.requests.at(-1)?.path).toBe("/api/embeddings");
	});

	it("says to pull a model the server does not have", async () => {
		const p = new OllamaEmbeddingProvider(createFetchHttpClient(), { baseUrl: server.baseUrl, model: "missing-model" });
		const error = await p.embed("x").catch((e: unknown) => e);
		expect(error).toBeInstanceOf(EmbedderError);
		expect((error as EmbedderError).message).toMatch(/ollama pull missing-model/);
	});

	it("knows the default model's dimension before any call", () => {
		expect(new OllamaEmbeddingProvider(createFetchHttpClient(), { baseUrl: "", model: "nomic-embed-text:latest" }).dimensions).toBe(768);
	});
});
