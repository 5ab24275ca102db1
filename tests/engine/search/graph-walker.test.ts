import { afterEach, describe, expect, it } from "vitest";
import type { GraphReads } from "../../../src/engine/protocols";
import { GraphWalker } from "../../../src/engine/search/graph-rerank";
import { HybridSearch } from "../../../src/engine/search/hybrid-search";
import { ManualClock, openSearchMemory, type SearchMemory } from "./search-fixture";

/** The same real store with the optional `adjacency` capability hidden (the fallback path). */
function withoutAdjacency(graph: GraphReads): GraphReads {
	return new Proxy(graph, {
		get: (target, prop, receiver) => (prop === "adjacency" ? undefined : (Reflect.get(target, prop, receiver) as unknown)),
	});
}

describe("adjacency and the graph walk", () => {
	let m: SearchMemory;
	afterEach(async () => {
		await m.close();
	});

	async function star(): Promise<Record<string, string>> {
		const ids: Record<string, string> = {};
		for (const name of ["Center", "Left", "Right", "Far", "Gone"]) ids[name] = await m.remember("Concept", name, { description: "graph walk" });
		await m.relate(["Concept", "Left"], "SIMILAR_TO", ["Concept", "Center"]);
		await m.relate(["Concept", "Center"], "SIMILAR_TO", ["Concept", "Right"]);
		await m.relate(["Concept", "Right"], "SIMILAR_TO", ["Concept", "Far"]);
		await m.relate(["Concept", "Center"], "SIMILAR_TO", ["Concept", "Gone"]);
		await m.memory.forget(m.ctx, { label: "Concept", key: "Gone" });
		ids.Hub = await m.remember("Technology", "Hub", { description: "linked from everything" });
		for (let i = 0; i < 6; i++) {
			await m.remember("Concept", `Spoke ${i}`);
			await m.relate(["Concept", `Spoke ${i}`], "RELATED_TO", ["Technology", "Hub"]);
		}
		await m.relate(["Concept", "Far"], "RELATED_TO", ["Technology", "Hub"]);
		return ids;
	}

	it("reads neighbour ids, labels, keys and capped degrees in one call, live nodes only", async () => {
		m = await openSearchMemory();
		const ids = await star();
		const adjacency = await m.memory.graph.adjacency?.(m.scope, [ids.Center, ids.Hub, "no-such-id"], 4);
		const center = adjacency?.get(ids.Center);
		expect(center?.degree).toBe(3);
		expect(new Set(center?.neighbours.map((n) => n.key))).toEqual(new Set(["Left", "Right"]));
		expect(center?.neighbours.find((n) => n.key === "Right")).toMatchObject({ id: ids.Right, label: "Concept", degree: 2 });
		expect(adjacency?.get(ids.Hub)?.degree).toBe(5);
		expect(adjacency?.get(ids.Hub)?.neighbours.length).toBeLessThanOrEqual(5);
		expect(adjacency?.has("no-such-id")).toBe(false);
		expect((await m.memory.graph.adjacency?.({ orgId: m.scope.orgId }, [ids.Center], 4))?.size).toBe(0);
	});

	it("measures distances through non-hub nodes only, the same with and without the capability", async () => {
		m = await openSearchMemory();
		const ids = await star();
		for (const graph of [m.memory.graph, withoutAdjacency(m.memory.graph)]) {
			const walker = new GraphWalker(graph, m.scope, 4);
			await walker.load(Object.values(ids));
			expect(await walker.distance(ids.Left, ids.Center, 2)).toBe(1);
			expect(await walker.distance(ids.Left, ids.Right, 2)).toBe(2);
			expect(await walker.distance(ids.Left, ids.Right, 1)).toBeUndefined();
			expect(await walker.distance(ids.Left, ids.Far, 2)).toBeUndefined();
			expect(await walker.distance(ids.Far, ids.Hub, 2)).toBe(1);
			expect(await walker.isHub(ids.Hub)).toBe(true);
			// Two spokes share only the hub, which is never walked through.
			const spokes = await Promise.all([0, 1].map(async (i) => (await m.memory.get(m.scope, "Concept", `Spoke ${i}`))?.id ?? ""));
			await walker.load(spokes);
			expect(await walker.distance(spokes[0], spokes[1], 2)).toBeUndefined();
			expect(await walker.distance(ids.Center, ids.Gone, 2)).toBeUndefined();
		}
	});

	it("answers a distance without a read when every count it needs is loaded, the same as distance, and says when it needs one", async () => {
		m = await openSearchMemory();
		const ids = await star();
		const all = Object.values(ids);
		const walker = new GraphWalker(m.memory.graph, m.scope, 4);
		await walker.load(all);
		for (const a of all) {
			for (const b of all) {
				for (const hops of [1, 2]) expect(walker.knownDistance(a, b, hops), `${a} ${b} ${hops}`).toBe(await walker.distance(a, b, hops));
			}
		}
		// Without the capability a neighbour's count is unknown until its own list is read.
		const slow = new GraphWalker(withoutAdjacency(m.memory.graph), m.scope, 4);
		await slow.load([ids.Left, ids.Far]);
		expect(slow.knownDistance(ids.Left, ids.Far, 2)).toBeUndefined();
		await slow.load([ids.Right]);
		expect(slow.knownDistance(ids.Left, ids.Right, 2)).toBeNull();
		expect(await slow.distance(ids.Left, ids.Right, 2)).toBe(2);
		expect(slow.knownDistance(ids.Left, ids.Right, 2)).toBe(2);
	});

	it("ranks identically through the fallback walk", async () => {
		m = await openSearchMemory({ clock: new ManualClock() });
		await star();
		const settings = { fanOutCap: 4 };
		const fast = new HybridSearch({ graph: m.memory.graph, vectors: null, embedder: null, clock: m.memory.clock, settings });
		const slow = new HybridSearch({ graph: withoutAdjacency(m.memory.graph), vectors: null, embedder: null, clock: m.memory.clock, settings });
		const a = await fast.search(m.scope, "graph walk center hub", { limit: 20 });
		const b = await slow.search(m.scope, "graph walk center hub", { limit: 20 });
		expect(a.hits.map((h) => [h.node.key, h.score])).toEqual(b.hits.map((h) => [h.node.key, h.score]));
		expect(a.hits.some((h) => h.signals.cohesion > 0)).toBe(true);
	});
});
