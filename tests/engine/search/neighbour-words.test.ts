import { afterEach, describe, expect, it } from "vitest";
import { HashEmbeddingProvider } from "../../../src/engine/embedding/hash-embedding-provider";
import type { ChainWalk } from "../../../src/engine/protocols";
import { HybridSearch } from "../../../src/engine/search/hybrid-search";
import type { PartialScope } from "../../../src/engine/types";
import { ManualClock, openSearchMemory, type SearchMemory } from "./search-fixture";

/** Three turns of a conversation, one after another, and a fact on its own that shares a word with the question. */
async function conversation(m: SearchMemory): Promise<void> {
	await m.remember("Concept", "Turn 1", { description: "How was the weekend at the lake?" });
	await m.remember("Concept", "Turn 2", { description: "We rented a cabin, it rained the whole time" });
	await m.remember("Concept", "Turn 3", { description: "Next time bring warm blankets and board games" });
	await m.remember("Concept", "Lake map", { description: "A map of the lake" });
	await m.relate(["Concept", "Turn 1"], "RELATED_TO", ["Concept", "Turn 2"]);
	await m.relate(["Concept", "Turn 2"], "RELATED_TO", ["Concept", "Turn 3"]);
}

const names = async (m: SearchMemory, query: string, graph?: boolean) => (await m.memory.search(m.scope, query, { temporal: false, graph })).results.map((r) => r.name);

describe("neighbour words: a sequence's items share their words", () => {
	let m: SearchMemory;
	afterEach(async () => {
		await m.close();
	});

	it("finds a turn by the words of the turns around it, and ranks the turn between two matches first (the default)", async () => {
		m = await openSearchMemory();
		await conversation(m);
		const found = await names(m, "lake cabin");
		// Turn 3 holds neither word: Turn 2 (cabin, next to it) and Turn 1 (lake, two turns back) do.
		expect(found).toContain("Turn 3");
		// Turn 2 has "cabin" and the lake of the turn it answers; the map only the lake.
		expect(found.indexOf("Turn 2")).toBeLessThan(found.indexOf("Lake map"));
		// A walk of the graph: a search without the graph term does not take it.
		expect(await names(m, "lake cabin", false)).not.toContain("Turn 3");
	});

	it("at weight 0 only items holding a word of the query are found", async () => {
		m = await openSearchMemory({ search: { neighbourWordsWeight: 0 } });
		await conversation(m);
		expect(await names(m, "lake cabin")).not.toContain("Turn 3");
	});

	it("passes nothing between linked notes that are not a chain (an item related to three or more of its label)", async () => {
		m = await openSearchMemory();
		await m.remember("Concept", "Lake house", { description: "The lake house by the pier" });
		for (const key of ["Recipes", "Garden", "Taxes"]) {
			await m.remember("Concept", key, { description: `Notes on ${key.toLowerCase()}` });
			await m.relate(["Concept", "Lake house"], "RELATED_TO", ["Concept", key]);
		}
		expect(await names(m, "lake pier")).toEqual(["Lake house"]);
	});

	it("leaves notes out: linked notes in a row neither give nor take words", async () => {
		m = await openSearchMemory();
		const note = (key: string, description: string) => m.remember("Concept", key, { description, obsidian_path: `${key}.md` }, "sync");
		await note("Lake trip", "The weekend at the lake");
		await note("Cabin", "We rented a cabin");
		await note("Packing", "Warm blankets and board games");
		await m.relate(["Concept", "Lake trip"], "RELATED_TO", ["Concept", "Cabin"]);
		await m.relate(["Concept", "Cabin"], "RELATED_TO", ["Concept", "Packing"]);
		expect(await names(m, "lake cabin")).not.toContain("Packing");
	});

	it("reads the walk's lists and the other channel's in one call ahead, and answers as it does reading them hop by hop", async () => {
		m = await openSearchMemory({ clock: new ManualClock(), embedder: new HashEmbeddingProvider(64) });
		// Twelve turns in a chain, every third about the lake; a turn related to three others (no
		// chain link); a hub every turn relates to.
		for (let i = 1; i <= 12; i++) {
			await m.remember("Concept", `Turn ${i}`, { description: i % 3 === 1 ? "the lake at dawn" : `small talk ${i}, a cabin` });
			if (i > 1) await m.relate(["Concept", `Turn ${i - 1}`], "RELATED_TO", ["Concept", `Turn ${i}`]);
		}
		for (const key of ["Recipes", "Garden", "Taxes"]) {
			await m.remember("Concept", key, { description: `notes on ${key.toLowerCase()} by the lake` });
			await m.relate(["Concept", "Turn 4"], "RELATED_TO", ["Concept", key]);
		}
		await m.remember("Technology", "Hub", { description: "everything" });
		for (let i = 1; i <= 12; i++) await m.relate(["Concept", `Turn ${i}`], "RELATED_TO", ["Technology", "Hub"]);
		/** The real store, counting its adjacency calls; `walks` false drops ChainWalk (a store that cannot read ahead). */
		const counted = (walks: boolean) => {
			const calls = { n: 0 };
			const graph = m.memory.graph;
			const adjacency = (scope: PartialScope, ids: readonly string[], cap: number, along?: ChainWalk) => {
				calls.n++;
				return graph.adjacency?.(scope, ids, cap, walks ? along : undefined) ?? Promise.resolve(new Map());
			};
			const reads = new Proxy(graph, { get: (target, prop, receiver) => (prop === "adjacency" ? adjacency : (Reflect.get(target, prop, receiver) as unknown)) });
			return { calls, search: new HybridSearch({ graph: reads, vectors: m.memory.vectors, embedder: m.memory.embedder, clock: m.memory.clock, settings: { fanOutCap: 8, channelK: 5 } }) };
		};
		const ahead = counted(true);
		const hopByHop = counted(false);
		for (const query of ["lake", "lake cabin", "small talk", "notes on taxes"]) {
			const [a, b] = [await ahead.search.search(m.scope, query, { limit: 20 }), await hopByHop.search.search(m.scope, query, { limit: 20 })];
			expect(a.hits.map((h) => [h.node.key, h.score, h.signals]), query).toEqual(b.hits.map((h) => [h.node.key, h.score, h.signals]));
			expect(a.anchors, query).toEqual(b.anchors);
		}
		// One call a search; hop by hop, the walk's second hop and the window's lists are calls of their own (7 here).
		expect(ahead.calls.n).toBe(4);
		expect(hopByHop.calls.n).toBeGreaterThan(5);
	});
});
