import { afterEach, describe, expect, it } from "vitest";
import { HashEmbeddingProvider } from "../../../src/engine/embedding/hash-embedding-provider";
import type { EmbedderHealth, EmbeddingProvider, GraphReads, VectorReads } from "../../../src/engine/protocols";
import { HybridSearch, type SearchHit, type SearchOptions, type SearchSettings } from "../../../src/engine/search/hybrid-search";
import { ManualClock, openSearchMemory, type SearchMemory } from "./search-fixture";

/** The hash embedder under an English-only model's name, counting the texts it embeds. */
class CountingEnglishEmbedder implements EmbeddingProvider {
	readonly name = "local";
	readonly model = "Xenova/all-MiniLM-L6-v2";
	readonly dimensions = 64;
	private readonly hash = new HashEmbeddingProvider(64);
	embedded = 0;
	async embed(text: string): Promise<Float32Array> {
		this.embedded++;
		return this.hash.embed(text);
	}
	async embedBatch(texts: readonly string[]): Promise<Float32Array[]> {
		return Promise.all(texts.map((t) => this.embed(t)));
	}
	async health(): Promise<EmbedderHealth> {
		return { ok: true };
	}
}

/** The memory's own stores, counting every nearest-vector read (nodes and passages) on the way through. */
function countingReads(m: SearchMemory): { graph: GraphReads; vectors: VectorReads | null; reads: () => number } {
	let reads = 0;
	const count = <T extends object>(target: T, method: string): T =>
		new Proxy(target, {
			get(t, key, receiver) {
				const value: unknown = Reflect.get(t, key, receiver);
				if (typeof value !== "function") return value;
				if (key !== method) return (value as (...a: unknown[]) => unknown).bind(t);
				return (...args: unknown[]) => {
					reads++;
					return (value as (...a: unknown[]) => unknown).apply(t, args);
				};
			},
		});
	const { graph, vectors } = m.memory;
	return { graph: count(graph, "passageKnn"), vectors: vectors && count(vectors, "knn"), reads: () => reads };
}

const SPANISH = "cómo se configura la replicación de la base de datos";
const ENGLISH = "how is the database replication configured";

async function seed(m: SearchMemory): Promise<void> {
	await m.remember("Concept", "Replicación", { description: "la replicación de la base de datos copia cada escritura a otro servidor" });
	await m.remember("Concept", "Copias de seguridad", { description: "las copias de la base de datos se guardan cada noche" });
	await m.remember("Concept", "Índices", { description: "un índice acelera las consultas de la base" });
	await m.remember("Concept", "Replication", { description: "database replication copies every write to another server" });
	await m.remember("Concept", "Backups", { description: "database backups are kept every night" });
	await m.remember("Concept", "Servidores", { description: "cada servidor tiene su configuración" });
	await m.remember("Concept", "Ruido", { description: "nada que ver con bases ni servidores: recetas de cocina" });
}

describe("the vector channel is not asked when it would count for nothing", () => {
	let m: SearchMemory;
	let embedder: CountingEnglishEmbedder;
	afterEach(async () => {
		await m.close();
	});

	async function open(search: Partial<SearchSettings> = {}): Promise<{ engine: (settings?: Partial<SearchSettings>) => HybridSearch; reads: () => number }> {
		embedder = new CountingEnglishEmbedder();
		// A still clock: two searches of one query score alike to the last bit.
		m = await openSearchMemory({ embedder, search, clock: new ManualClock() });
		await seed(m);
		const counted = countingReads(m);
		const engine = (settings: Partial<SearchSettings> = {}) =>
			new HybridSearch({ graph: counted.graph, vectors: counted.vectors, embedder, clock: m.memory.clock, settings: { ...m.memory.searcher.settings, ...settings } });
		return { engine, reads: counted.reads };
	}

	it("a Spanish query and an English-only model: no query embedded, no vector read; an English query still asks", async () => {
		const { engine, reads } = await open();
		const search = engine();
		embedder.embedded = 0;
		const spanish = await search.search(m.scope, SPANISH);
		expect([embedder.embedded, reads()]).toEqual([0, 0]);
		expect(spanish.hits[0].node.key).toBe("Replicación");
		expect(spanish.degraded).toBe(false);
		expect(spanish.hits.every((h) => h.signals.languageMismatch === 1 && h.signals.vector === 0 && h.signals.vectorRank === undefined)).toBe(true);
		const english = await search.search(m.scope, ENGLISH);
		expect(embedder.embedded).toBe(1);
		expect(reads()).toBe(2);
		expect(english.hits.some((h) => h.signals.vectorRank !== undefined)).toBe(true);
		expect(english.hits.every((h) => h.signals.languageMismatch === undefined)).toBe(true);
	});

	it("asks whenever the channel counts: a share above 0, the linear blend (alpha weighs it, not the share), or the vectors alone asked for", async () => {
		const { engine, reads } = await open();
		embedder.embedded = 0;
		await engine({ foreignVectorShare: 0.5 }).search(m.scope, SPANISH);
		expect([embedder.embedded, reads()]).toEqual([1, 2]);
		await engine().search(m.scope, SPANISH, { fusion: "linear" });
		expect([embedder.embedded, reads()]).toEqual([2, 4]);
		// Only the vectors: every fused score is 0 at share 0, but the caller asked for them (their ranks break ties, compareHits).
		const alone = await engine().search(m.scope, SPANISH, { channels: { fulltext: false } });
		expect([embedder.embedded, reads()]).toEqual([3, 6]);
		expect(alone.hits.length).toBeGreaterThan(0);
		expect(alone.hits.every((h) => h.signals.vectorRank !== undefined && h.signals.fusion === 0)).toBe(true);
	});

	it("keeps the words' hits, their order and scores (a memory without links), and drops only the candidates the channel alone found", async () => {
		const { engine } = await open();
		// The smallest positive share: the channel runs and adds its candidates, but each of its terms rounds to 0.
		const asked = engine({ foreignVectorShare: Number.MIN_VALUE });
		const skipped = engine();
		const view = (hits: readonly SearchHit[]) => hits.map((h) => [h.node.key, h.score, h.signals.fusion, h.signals.fulltextRank]);
		for (const options of [{}, { graph: false }, { temporal: false }, { labels: ["Concept"] }] as SearchOptions[]) {
			embedder.embedded = 0;
			const all = await asked.search(m.scope, SPANISH, { ...options, limit: 200 });
			expect(embedder.embedded).toBe(1);
			expect(all.hits.some((h) => h.signals.vectorRank !== undefined && h.signals.fulltextRank === undefined)).toBe(true);
			const skip = await skipped.search(m.scope, SPANISH, { ...options, limit: 200 });
			expect(embedder.embedded).toBe(1);
			// What differs: the channel's own candidates, which joined at a fused 0 behind every hit the words found.
			// With links they also took part in the graph term (cohesion is scaled by the window's best; docs/benchmarks-search.md).
			const byWords = all.hits.filter((h) => h.signals.fulltextRank !== undefined);
			expect(view(skip.hits)).toEqual(view(byWords));
			expect(all.hits.slice(0, byWords.length).map((h) => h.node.key)).toEqual(byWords.map((h) => h.node.key));
			expect(view((await skipped.search(m.scope, SPANISH, { ...options, limit: 3 })).hits)).toEqual(view(all.hits.slice(0, 3)));
		}
	});

	it("a memory with no vectors says so for a query the channel is not asked for, as for any other", async () => {
		embedder = new CountingEnglishEmbedder();
		const plain = await openSearchMemory({ embedder: null });
		await seed(plain);
		m = await plain.reopen(embedder);
		const spanish = await m.memory.searcher.search(m.scope, SPANISH);
		expect(embedder.embedded).toBe(0);
		// An English query still embeds first: an embedder that is down is the cause to fix before any reindex.
		const english = await m.memory.searcher.search(m.scope, ENGLISH);
		expect(embedder.embedded).toBe(1);
		for (const outcome of [spanish, english]) {
			expect(outcome).toMatchObject({ degraded: true, cause: "no_vectors" });
			expect(outcome.hits.length).toBeGreaterThan(0);
		}
	});
});
