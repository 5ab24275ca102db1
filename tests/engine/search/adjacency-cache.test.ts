import { afterEach, describe, expect, it } from "vitest";
import type { SqliteGraphStore } from "../../../src/backends/sqlite/sqlite-graph-store";
import { openSearchMemory, type SearchMemory } from "./search-fixture";

// The SQLite store keeps neighbour lists between searches; every write must make it read again.
describe("adjacency kept between searches", () => {
	let m: SearchMemory;
	afterEach(async () => {
		await m.close();
	});

	it("sees a new relation, a neighbour's new degree, an archive and a rolled-back write", async () => {
		m = await openSearchMemory();
		const a = await m.remember("Concept", "Alpha");
		const b = await m.remember("Concept", "Beta");
		const c = await m.remember("Concept", "Gamma");
		await m.relate(["Concept", "Alpha"], "RELATED_TO", ["Concept", "Beta"]);
		const read = async () => (await m.memory.graph.adjacency?.(m.scope, [a, b], 8))?.get(a);

		expect((await read())?.neighbours.map((n) => n.key)).toEqual(["Beta"]);
		expect((await read())?.neighbours[0].degree).toBe(1);

		await m.relate(["Concept", "Alpha"], "RELATED_TO", ["Concept", "Gamma"]);
		expect((await read())?.neighbours.map((n) => n.key).sort()).toEqual(["Beta", "Gamma"]);
		expect((await read())?.degree).toBe(2);

		// Beta's degree as a neighbour of Alpha follows a relation that does not touch Alpha.
		await m.relate(["Concept", "Beta"], "RELATED_TO", ["Concept", "Gamma"]);
		expect((await read())?.neighbours.find((n) => n.id === b)?.degree).toBe(2);

		await m.memory.forget(m.ctx, { label: "Concept", key: "Gamma" });
		expect((await read())?.neighbours.map((n) => n.id)).toEqual([b]);
		expect(c).not.toBe(b);

		// A write that fails and rolls back leaves nothing behind in the kept lists either.
		await expect(
			m.memory.pipeline.transaction(async () => {
				await m.relate(["Concept", "Alpha"], "SIMILAR_TO", ["Concept", "Beta"]);
				expect((await read())?.degree).toBe(3);
				throw new Error("abandon");
			}),
		).rejects.toThrow("abandon");
		expect((await read())?.degree).toBe(2);
	});

	it("reads a window's lists in a few statements, not one per node, and finds each node once", async () => {
		m = await openSearchMemory();
		const ids: string[] = [];
		for (let i = 0; i < 30; i++) ids.push(await m.remember("Concept", `Node ${i}`));
		for (let i = 1; i < 30; i++) await m.relate(["Concept", `Node ${i}`], "RELATED_TO", ["Concept", `Node ${i - 1}`]);
		const conn = (m.memory.graph as unknown as SqliteGraphStore).connection();
		let statements = 0;
		for (const method of ["all", "get", "run"] as const) {
			const original = conn[method].bind(conn) as (...args: unknown[]) => unknown;
			(conn as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
				statements++;
				return original(...args);
			};
		}
		const found = await m.memory.graph.adjacency?.(m.scope, [...ids, ids[3], "no-such-id"], 8);
		expect(statements).toBeLessThanOrEqual(5);
		expect([...(found?.keys() ?? [])]).toEqual(ids);
		expect(found?.get(ids[3])?.neighbours.map((n) => n.key).sort()).toEqual(["Node 2", "Node 4"]);
		expect(found?.get(ids[29])?.degree).toBe(1);
	});
});
