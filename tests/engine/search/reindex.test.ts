import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { embedderIdentity, poolingOf, type Pooling } from "../../../src/engine/embedding/dimensions";
import { HashEmbeddingProvider } from "../../../src/engine/embedding/hash-embedding-provider";
import { OpenAiEmbeddingProvider } from "../../../src/engine/embedding/openai-embedding-provider";
import { ValidationError } from "../../../src/engine/errors";
import type { EmbeddingProvider } from "../../../src/engine/protocols";
import { EMBEDDING_MODEL_META, reindex, type ReindexProgress } from "../../../src/engine/search/reindex";
import { createFetchHttpClient } from "../../../src/nodejs/embedders/fetch-http-client";
import { EmbeddingServer, closedPort } from "../embedding/embedding-server";
import { openSearchMemory, type SearchMemory } from "./search-fixture";

const deps = (m: SearchMemory) => m.memory;

async function seedWithoutEmbedder(): Promise<SearchMemory> {
	const m = await openSearchMemory();
	for (const name of ["Raft", "Paxos", "Gossip", "Vector clocks", "CRDT"]) {
		await m.remember("Concept", name, { description: `${name} in distributed consensus` });
	}
	await m.remember("Concept", "Two phase commit", { description: "distributed transactions" });
	await m.memory.forget(m.ctx, { label: "Concept", key: "Two phase commit" });
	return m;
}

describe("reindex", () => {
	const server = new EmbeddingServer(64);
	let m: SearchMemory;
	beforeAll(async () => {
		await server.start();
	});
	afterAll(async () => {
		await server.stop();
	});
	afterEach(async () => {
		await m.close();
	});

	it("dry run (the default) classifies nodes written with embedding off and writes nothing", async () => {
		m = await (await seedWithoutEmbedder()).reopen(new HashEmbeddingProvider(64));
		const report = await reindex(deps(m), m.scope);
		expect(report).toMatchObject({
			dry_run: true,
			embedder: "hash",
			dimensions: 64,
			stored_dimensions: 0,
			scanned: 5,
			up_to_date: 0,
			to_embed: 5,
			reasons: { no_vectors_yet: 5, missing: 0 },
			embedded: 0,
		});
		expect(report.sample.map((s) => s.name)).toContain("Raft");
		expect(await m.memory.vectors?.count(m.scope)).toBe(0);
	});

	it("applies in batches with progress and a limit, then finishes the rest", async () => {
		m = await (await seedWithoutEmbedder()).reopen(new HashEmbeddingProvider(64));
		const progress: ReindexProgress[] = [];
		const first = await reindex(deps(m), m.scope, { apply: true, limit: 3, batchSize: 2, onProgress: (p) => progress.push(p) });
		expect(first).toMatchObject({ dry_run: false, to_embed: 5, embedded: 3, deferred: 2, failed: 0 });
		expect(progress).toEqual([
			{ done: 2, total: 3, failed: 0 },
			{ done: 3, total: 3, failed: 0 },
		]);
		const second = await reindex(deps(m), m.scope, { apply: true });
		expect(second).toMatchObject({ up_to_date: 3, to_embed: 2, reasons: { missing: 2 }, embedded: 2 });
		expect(await m.memory.vectors?.count(m.scope)).toBe(5);
		expect(await m.memory.graph.getMeta(EMBEDDING_MODEL_META)).toBe("hash:hash-64");
		const view = await m.memory.search(m.scope, "consensus");
		expect(view.degraded).toBe(false);
		expect(view.results.every((r) => r.scores.vector > 0)).toBe(true);
		expect((await reindex(deps(m), m.scope)).to_embed).toBe(0);
	});

	it("after a model change to another dimension, --rebuild drops the old vectors and re-embeds", async () => {
		m = await (await seedWithoutEmbedder()).reopen(new HashEmbeddingProvider(64));
		await reindex(deps(m), m.scope, { apply: true });
		m = await m.reopen(new HashEmbeddingProvider(32));
		expect((await m.memory.search(m.scope, "consensus")).reason).toMatch(/dimension mismatch/);
		const dry = await reindex(deps(m), m.scope);
		expect(dry).toMatchObject({ stored_dimensions: 64, dimensions: 32, reasons: { dimension_changed: 5 } });
		const applied = await reindex(deps(m), m.scope, { apply: true, rebuild: true });
		expect(applied).toMatchObject({ reset: true, embedded: 5 });
		expect(await m.memory.vectors?.dimensions()).toBe(32);
		expect((await m.memory.search(m.scope, "consensus")).degraded).toBe(false);
	});

	it("counts vectors a release pooled differently (bge-small, mean then [CLS]) as another model, and leaves mean-pooled models' records as they were", async () => {
		/** A local sentence model as a provider reports it; vectors from the hash embedder. */
		class LocalModel implements EmbeddingProvider {
			readonly name = "local";
			readonly dimensions = 64;
			private readonly hash = new HashEmbeddingProvider(64);
			constructor(
				readonly model: string,
				readonly pooling: Pooling,
			) {}
			embed = (text: string) => this.hash.embed(text);
			embedBatch = (texts: readonly string[]) => this.hash.embedBatch(texts);
			health = () => this.hash.health();
		}
		expect(poolingOf("Xenova/bge-small-en-v1.5")).toBe("cls");
		expect(poolingOf("BAAI/bge-base-en-v1.5")).toBe("cls");
		expect(poolingOf("Xenova/all-MiniLM-L6-v2")).toBe("mean");
		expect(poolingOf("Xenova/paraphrase-multilingual-MiniLM-L12-v2")).toBe("mean");
		// Files embedded with MiniLM before pooling was recorded keep their identity: no re-embed.
		expect(embedderIdentity(new LocalModel("Xenova/all-MiniLM-L6-v2", "mean"))).toBe("local:Xenova/all-MiniLM-L6-v2");

		m = await (await seedWithoutEmbedder()).reopen(new LocalModel("Xenova/bge-small-en-v1.5", "mean"));
		await reindex(deps(m), m.scope, { apply: true });
		expect(await m.memory.graph.getMeta(EMBEDDING_MODEL_META)).toBe("local:Xenova/bge-small-en-v1.5");
		m = await m.reopen(new LocalModel("Xenova/bge-small-en-v1.5", "cls"));
		expect((await reindex(deps(m), m.scope)).reasons.model_changed).toBe(5);
		expect(await reindex(deps(m), m.scope, { apply: true, rebuild: true })).toMatchObject({ embedded: 5 });
		expect(await m.memory.graph.getMeta(EMBEDDING_MODEL_META)).toBe("local:Xenova/bge-small-en-v1.5#cls");
		expect((await reindex(deps(m), m.scope)).to_embed).toBe(0);
	});

	it("notices a model change of the same dimension, and --rebuild re-embeds everything", async () => {
		m = await (await seedWithoutEmbedder()).reopen(new HashEmbeddingProvider(64));
		await reindex(deps(m), m.scope, { apply: true });
		m = await m.reopen(new OpenAiEmbeddingProvider(createFetchHttpClient(), { baseUrl: `${server.baseUrl}/v1`, model: "served-model", dimensions: 64 }));
		expect((await reindex(deps(m), m.scope)).reasons.model_changed).toBe(5);
		await reindex(deps(m), m.scope, { apply: true });
		expect(await m.memory.graph.getMeta(EMBEDDING_MODEL_META)).toBe("openai:served-model");
		const rebuild = await reindex(deps(m), m.scope, { rebuild: true });
		expect(rebuild.reasons.rebuild).toBe(5);
	});

	it("after a model change, runs cut short by a limit finish the re-embedding instead of redoing the first nodes", async () => {
		m = await (await seedWithoutEmbedder()).reopen(new HashEmbeddingProvider(64));
		await reindex(deps(m), m.scope, { apply: true });
		m = await m.reopen(new OpenAiEmbeddingProvider(createFetchHttpClient(), { baseUrl: `${server.baseUrl}/v1`, model: "served-model", dimensions: 64 }));
		const first = await reindex(deps(m), m.scope, { apply: true, limit: 2 });
		expect(first).toMatchObject({ reasons: { model_changed: 5 }, embedded: 2, deferred: 3, reset: true });
		// No vector of the old model is left beside the new ones, and search uses the new ones.
		expect(await m.memory.vectors?.count(m.scope)).toBe(2);
		expect(await m.memory.graph.getMeta(EMBEDDING_MODEL_META)).toBe("openai:served-model");
		expect((await m.memory.search(m.scope, "consensus")).degraded).toBe(false);
		const second = await reindex(deps(m), m.scope, { apply: true, limit: 2 });
		expect(second).toMatchObject({ up_to_date: 2, reasons: { missing: 3 }, embedded: 2, deferred: 1, reset: false });
		const third = await reindex(deps(m), m.scope, { apply: true, limit: 2 });
		expect(third).toMatchObject({ up_to_date: 4, embedded: 1, deferred: 0 });
		expect(await m.memory.vectors?.count(m.scope)).toBe(5);
		expect((await reindex(deps(m), m.scope)).to_embed).toBe(0);
	});

	it("counts failures and stops when the embedder keeps failing; the nodes stay for a later run", async () => {
		m = await (await seedWithoutEmbedder()).reopen(
			new OpenAiEmbeddingProvider(createFetchHttpClient(), {
				baseUrl: `http://127.0.0.1:${await closedPort()}/v1`,
				model: "down",
				dimensions: 64,
				retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 },
			}),
		);
		const report = await reindex(deps(m), m.scope, { apply: true, batchSize: 1 });
		expect(report).toMatchObject({ embedded: 0, failed: 3 });
		expect(report.errors[0]).toMatch(/ECONNREFUSED/);
		expect(report.errors.at(-1)).toMatch(/Stopped after 3 failed batches/);
		expect(await m.memory.vectors?.count(m.scope)).toBe(0);
	});

	it("reads the nodes in short pages, so a caller's gate can yield between them (a 500-node page held Obsidian's thread ~50 ms)", async () => {
		const seeded = await openSearchMemory();
		for (let i = 0; i < 210; i++) await seeded.remember("Concept", `Idea ${i}`, { description: `idea number ${i}` });
		m = await seeded.reopen(new HashEmbeddingProvider(64));
		const limits: number[] = [];
		const graph = m.memory.graph;
		const counted = new Proxy(graph, {
			get: (target, prop) => (prop === "listNodes" ? (...args: Parameters<typeof graph.listNodes>) => (limits.push(args[1]?.limit ?? Infinity), target.listNodes(...args)) : (Reflect.get(target, prop) as unknown)),
		});
		const memory = new Proxy(m.memory, { get: (target, prop) => (prop === "graph" ? counted : (Reflect.get(target, prop) as unknown)) });
		const report = await reindex(memory, m.scope, { apply: false });
		expect(report.scanned).toBe(210);
		expect(limits.length).toBeGreaterThanOrEqual(3);
		expect(Math.max(...limits)).toBeLessThanOrEqual(100);
	});

	it("refuses to run without an embedder", async () => {
		m = await seedWithoutEmbedder();
		await expect(reindex(deps(m), m.scope)).rejects.toThrow(ValidationError);
	});
});
