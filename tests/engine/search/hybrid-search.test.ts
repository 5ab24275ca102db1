import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { HashEmbeddingProvider } from "../../../src/engine/embedding/hash-embedding-provider";
import { OpenAiEmbeddingProvider } from "../../../src/engine/embedding/openai-embedding-provider";
import { ValidationError } from "../../../src/engine/errors";
import type { EmbedderHealth, EmbeddingProvider } from "../../../src/engine/protocols";
import { DEFAULT_SEARCH_SETTINGS, type SearchSettings } from "../../../src/engine/search/hybrid-search";
import { createFetchHttpClient } from "../../../src/nodejs/embedders/fetch-http-client";
import { EmbeddingServer, closedPort } from "../embedding/embedding-server";
import { ManualClock, openSearchMemory, type SearchMemory } from "./search-fixture";

const noRetry = { retries: 0, baseDelayMs: 1, maxDelayMs: 1 };

async function seed(m: SearchMemory): Promise<void> {
	await m.remember("Concept", "Exponential backoff", { description: "wait longer between retries after each failure" });
	await m.remember("Concept", "Circuit breaker", { description: "stop calling a failing service for a while" });
	await m.remember("Technology", "SQLite", { description: "embedded SQL database in one file" });
	await m.remember("Project", "Billing portal", { description: "invoices and payments for clients" });
}

describe("hybrid search", () => {
	let m: SearchMemory;
	afterEach(async () => {
		await m.close();
	});

	it("finds through the vector channel what fulltext misses, with per-signal scores", async () => {
		m = await openSearchMemory({ embedder: new HashEmbeddingProvider(256) });
		await seed(m);
		expect((await m.memory.searchFulltext(m.scope, "retrying")).length).toBe(0);
		const view = await m.memory.search(m.scope, "retrying");
		expect(view.degraded).toBe(false);
		expect(view.mode).toBe("rrf");
		const top = view.results[0];
		expect(top.name).toBe("Exponential backoff");
		expect(top.scores.vector).toBeGreaterThan(0);
		expect(top.scores.fulltext).toBe(0);
		expect(top.scores.vector_rank).toBe(1);
		expect(top.scores.fulltext_rank).toBeUndefined();
		expect(Object.keys(top.scores)).toEqual(expect.arrayContaining(["rrf", "fulltext", "vector", "graph", "temporal", "trust"]));
	});

	it("ranks a node found by both channels first, with rrf 1 when it tops both", async () => {
		m = await openSearchMemory({ embedder: new HashEmbeddingProvider(256) });
		await seed(m);
		const view = await m.memory.search(m.scope, "circuit breaker failing service", { graph: false, temporal: false });
		const top = view.results[0];
		expect(top).toMatchObject({ name: "Circuit breaker", scores: { rrf: 1, fulltext_rank: 1, vector_rank: 1, fulltext: 1 } });
		// The fused base, plus the channels' own scores (graph and time are off).
		const { fulltextWeight, vectorWeight } = DEFAULT_SEARCH_SETTINGS;
		expect(top.score).toBeCloseTo(1 + fulltextWeight * top.scores.fulltext + vectorWeight * top.scores.vector, 4);
	});

	it("takes each channel's window size from its own setting", async () => {
		m = await openSearchMemory({ embedder: new HashEmbeddingProvider(256), search: { channelK: 20, fulltextK: 1, vectorK: 3 } });
		await seed(m);
		// Every seeded node holds a word of the query: fulltext alone would return several.
		const query = "retries service database payments";
		expect((await m.memory.searchFulltext(m.scope, query)).length).toBeGreaterThan(1);
		const view = await m.memory.search(m.scope, query, { limit: 20, graph: false, temporal: false });
		const fulltextRanked = view.results.filter((r) => r.scores.fulltext_rank !== undefined);
		const vectorRanked = view.results.filter((r) => r.scores.vector_rank !== undefined);
		expect(fulltextRanked.map((r) => r.scores.fulltext_rank)).toEqual([1]);
		expect(vectorRanked.map((r) => r.scores.vector_rank).sort()).toEqual([1, 2, 3]);
		expect(view.results.length).toBe(new Set([...fulltextRanked, ...vectorRanked].map((r) => r.name)).size);
	});

	it("legacy linear mode blends min-max channel scores with alpha", async () => {
		m = await openSearchMemory({ embedder: new HashEmbeddingProvider(256), search: { fusion: "linear" } });
		await seed(m);
		const view = await m.memory.search(m.scope, "circuit breaker failing service", { graph: false, temporal: false });
		expect(view.mode).toBe("linear");
		expect(view.results[0].name).toBe("Circuit breaker");
		expect(view.results[0].scores.linear).toBe(1);
		expect(view.results.at(-1)?.scores.linear).toBeLessThan(1);
	});

	it("never returns archived nodes from either channel", async () => {
		m = await openSearchMemory({ embedder: new HashEmbeddingProvider(256) });
		await seed(m);
		await m.memory.forget(m.ctx, { label: "Concept", key: "Circuit breaker" });
		const view = await m.memory.search(m.scope, "circuit breaker failing service");
		expect(view.results.map((r) => r.name)).not.toContain("Circuit breaker");
	});

	it("filters by label and by valid_at", async () => {
		m = await openSearchMemory({ embedder: new HashEmbeddingProvider(256) });
		await seed(m);
		await m.remember("Concept", "Old billing rule", { description: "invoices rounded to cents", valid_from: "2019-01-01", valid_to: "2020-01-01" });
		const concepts = await m.memory.search(m.scope, "invoices database retries", { labels: ["concept"] });
		expect(concepts.results.length).toBeGreaterThan(0);
		expect(new Set(concepts.results.map((r) => r.label))).toEqual(new Set(["Concept"]));
		const in2019 = await m.memory.search(m.scope, "invoices", { validAt: "2019-06-01" });
		expect(in2019.results.map((r) => r.name)).toEqual(["Old billing rule"]);
		const now = await m.memory.search(m.scope, "invoices", { validAt: new Date().toISOString() });
		expect(now.results.map((r) => r.name)).not.toContain("Old billing rule");
		await expect(m.memory.search(m.scope, "invoices", { validAt: "last tuesday" })).rejects.toThrow(ValidationError);
	});

	it("ranks trusted sources above agent-written nodes of equal relevance", async () => {
		m = await openSearchMemory();
		await m.remember("Concept", "Agent note", { description: "kafka consumer lag" }, "mcp");
		await m.remember("Concept", "Vault note", { description: "kafka consumer lag" }, "sync");
		const view = await m.memory.search(m.scope, "kafka consumer lag", { graph: false });
		expect(view.results.map((r) => r.name)).toEqual(["Vault note", "Agent note"]);
		expect(view.results.map((r) => r.scores.trust)).toEqual([1, 0.5]);
	});

	it("ranks fresh nodes above stale ones of equal relevance (confidence × 2^(−days/30))", async () => {
		const clock = new ManualClock();
		m = await openSearchMemory({ clock });
		await m.remember("Concept", "Fresh note", { description: "grafana dashboard alerts" });
		clock.advanceDays(-60);
		await m.remember("Concept", "Stale note", { description: "grafana dashboard alerts" });
		clock.advanceDays(60);
		const view = await m.memory.search(m.scope, "grafana dashboard alerts", { graph: false });
		expect(view.results.map((r) => r.name)).toEqual(["Fresh note", "Stale note"]);
		expect(view.results[0].scores.temporal).toBe(1);
		expect(view.results[1].scores.temporal).toBeCloseTo(0.25, 5);
		const timeless = await m.memory.search(m.scope, "grafana dashboard alerts", { graph: false, temporal: false });
		expect(timeless.results.map((r) => r.score)).toEqual([expect.any(Number), expect.any(Number)]);
		expect(timeless.results[0].score - timeless.results[1].score).toBeLessThan(0.05);
	});

	it("answers bad input from the channels without breaking", async () => {
		m = await openSearchMemory({ embedder: new HashEmbeddingProvider(256) });
		await seed(m);
		expect((await m.memory.search(m.scope, "   ")).results).toEqual([]);
		const huge = `${"invoices ".repeat(1200)}payments`;
		expect(huge.length).toBeGreaterThan(10_000);
		expect((await m.memory.search(m.scope, huge)).results[0].name).toBe("Billing portal");
		for (const q of ['"unbalanced', "invoices AND OR NOT", "NEAR(invoices payments)", "invoic* ^clients", "name:SQLite", "-- ; drop table nodes"]) {
			const view = await m.memory.search(m.scope, q);
			expect(view.degraded).toBe(false);
		}
		expect((await m.memory.search(m.scope, "name:SQLite")).results[0].name).toBe("SQLite");
	});

	it("reads nothing for a partial scope", async () => {
		m = await openSearchMemory({ embedder: new HashEmbeddingProvider(256) });
		await seed(m);
		expect((await m.memory.search({ orgId: m.scope.orgId }, "invoices")).results).toEqual([]);
		expect((await m.memory.search({ orgId: m.scope.orgId, userId: "someone-else" }, "invoices")).results).toEqual([]);
	});
});

/**
 * A model by name English-only, its vectors from a table: the query and every text about cinema
 * point one way, the rest another, so the vector channel ranks the cinema note first whatever its words.
 */
class EnglishOnlyTableEmbedder implements EmbeddingProvider {
	readonly name = "local";
	readonly model = "Xenova/all-MiniLM-L6-v2";
	readonly dimensions = 2;
	constructor(private readonly queries: readonly string[]) {}
	async embed(text: string): Promise<Float32Array> {
		return this.queries.includes(text) || /cine/i.test(text) ? new Float32Array([1, 0]) : new Float32Array([0, 1]);
	}
	async embedBatch(texts: readonly string[]): Promise<Float32Array[]> {
		return Promise.all(texts.map((t) => this.embed(t)));
	}
	async health(): Promise<EmbedderHealth> {
		return { ok: true };
	}
}

describe("an English-only model and a query in another language", () => {
	const spanish = "las lecturas fantasma con aislamiento serializable";
	const english = "phantom reads under serializable isolation";
	let m: SearchMemory;
	afterEach(async () => {
		await m.close();
	});
	async function seedBoth(search: Partial<SearchSettings> = {}): Promise<void> {
		m = await openSearchMemory({ embedder: new EnglishOnlyTableEmbedder([spanish, english]), search });
		// The answers match every word; the cinema notes fewer, but the (table) model puts them first.
		await m.remember("Concept", "Aislamiento", { description: "lecturas fantasma con aislamiento serializable en las transacciones" });
		await m.remember("Concept", "Películas de cine", { description: "lecturas sobre fantasmas del cine" });
		await m.remember("Concept", "Isolation", { description: "phantom reads under serializable isolation in transactions" });
		await m.remember("Concept", "Cinema", { description: "phantom reads about cinema ghosts" });
	}
	const top = async (query: string) => (await m.memory.search(m.scope, query, { graph: false, temporal: false })).results.map((r) => r.name);

	it("the words decide for the Spanish query; the model still counts for the English one", async () => {
		await seedBoth();
		expect((await top(spanish))[0]).toBe("Aislamiento");
		expect((await top(english))[0]).toBe("Cinema");
		const view = await m.memory.search(m.scope, spanish, { graph: false, temporal: false });
		expect(view.results[0].scores.language_mismatch).toBe(1);
		expect((await m.memory.search(m.scope, english, { graph: false, temporal: false })).results[0].scores.language_mismatch).toBeUndefined();
		const outcome = await m.memory.searcher.search(m.scope, spanish, { graph: false, temporal: false });
		expect(outcome.hits.every((h) => h.signals.languageMismatch === 1)).toBe(true);
		const cinema = outcome.hits.find((h) => h.node.key === "Películas de cine");
		// Share 0: the vector list would neither fuse nor add its cosine, so it is not asked (skipped-vectors.test.ts).
		expect(cinema?.signals.vectorRank).toBeUndefined();
		expect(cinema?.signals.vector).toBe(0);
		expect(cinema?.score).toBeCloseTo((cinema?.signals.fusion ?? 0) + DEFAULT_SEARCH_SETTINGS.fulltextWeight * (cinema?.signals.fulltext ?? 0), 6);
	});

	it("at full share the model outvotes the words in Spanish too (what the setting guards against)", async () => {
		await seedBoth({ foreignVectorShare: 1 });
		expect((await top(spanish))[0]).toBe("Películas de cine");
	});
});

describe("degraded search: fulltext still answers and the reason names the cause", () => {
	const server = new EmbeddingServer(64);
	let m: SearchMemory;
	beforeAll(async () => {
		await server.start();
	});
	afterAll(async () => {
		await server.stop();
	});
	afterEach(async () => {
		server.behaviour = {};
		await m.close();
	});

	const openai = (baseUrl: string, options: { timeoutMs?: number; dimensions?: number } = {}) =>
		new OpenAiEmbeddingProvider(createFetchHttpClient(), { baseUrl, model: "test-model", retry: noRetry, ...options });

	it("without an embedder", async () => {
		m = await openSearchMemory();
		await seed(m);
		const view = await m.memory.search(m.scope, "invoices");
		expect(view).toMatchObject({ degraded: true, results: [expect.objectContaining({ name: "Billing portal" })] });
		expect(view.reason).toMatch(/no embedder is configured/);
		expect(view.degraded_cause).toBe("no_embedder");
	});

	it("with an embedder but no vectors stored yet", async () => {
		m = await openSearchMemory();
		await seed(m);
		m = await m.reopen(new HashEmbeddingProvider(64));
		const view = await m.memory.search(m.scope, "invoices");
		expect(view.degraded).toBe(true);
		expect(view.reason).toMatch(/no vectors yet.*engrama reindex --apply/);
		expect(view.degraded_cause).toBe("no_vectors");
		expect(view.results[0].name).toBe("Billing portal");
	});

	it("when the embedder refuses connections", async () => {
		m = await openSearchMemory({ embedder: openai(`http://127.0.0.1:${await closedPort()}/v1`, { dimensions: 64 }) });
		await seed(m);
		const view = await m.memory.search(m.scope, "invoices");
		expect(view.degraded).toBe(true);
		expect(view.reason).toMatch(/ECONNREFUSED/);
		expect(view.degraded_cause).toBe("embedder_failed");
		expect(view.results[0].name).toBe("Billing portal");
	});

	it("when the embedder times out", async () => {
		m = await openSearchMemory({ embedder: openai(`${server.baseUrl}/v1`, { timeoutMs: 100 }) });
		await seed(m);
		server.behaviour = { delayMs: 1000 };
		const view = await m.memory.search(m.scope, "invoices");
		expect(view.degraded).toBe(true);
		expect(view.reason).toMatch(/timeout/);
		expect(view.results[0].name).toBe("Billing portal");
	});

	it("when the embedder returns another dimension than it promised", async () => {
		m = await openSearchMemory({ embedder: openai(`${server.baseUrl}/v1`, { dimensions: 64 }) });
		await seed(m);
		server.behaviour = { dimensions: 32 };
		const view = await m.memory.search(m.scope, "invoices");
		expect(view.degraded).toBe(true);
		expect(view.reason).toMatch(/32-dimensional vectors, but 64 were expected/);
		expect(view.results[0].name).toBe("Billing portal");
	});

	it("when the model changed and the stored vectors have another dimension", async () => {
		m = await openSearchMemory({ embedder: openai(`${server.baseUrl}/v1`, { dimensions: 64 }) });
		await seed(m);
		expect((await m.memory.search(m.scope, "invoices")).degraded).toBe(false);
		m = await m.reopen(new HashEmbeddingProvider(32));
		const view = await m.memory.search(m.scope, "invoices");
		expect(view.degraded).toBe(true);
		expect(view.reason).toMatch(/dimension mismatch.*32-dimensional.*64-dimensional.*reindex --rebuild --apply/);
		expect(view.degraded_cause).toBe("dimension_mismatch");
		expect(view.results[0].name).toBe("Billing portal");
	});

	it("writes still succeed while the embedder is down, and search works from fulltext", async () => {
		m = await openSearchMemory({ embedder: openai(`http://127.0.0.1:${await closedPort()}/v1`, { dimensions: 64 }) });
		const write = await m.memory.remember(m.ctx, { label: "Concept", key: "Offline write", props: { description: "stored anyway" } });
		expect(write.embedded).toBe(false);
		expect((await m.memory.search(m.scope, "stored anyway")).results[0].name).toBe("Offline write");
	});
});
