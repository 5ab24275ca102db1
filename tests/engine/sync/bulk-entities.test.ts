import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createBackend } from "../../../src/backends/factory";
import { parseConfig } from "../../../src/config/engrama-config";
import { Memory } from "../../../src/engine/memory";
import { makeTempDir } from "../../helpers/temp-dir";
import { SCOPE, exampleProfile } from "./sync-fixture";

// WritePipeline.mergeEntities (what a first vault sync writes through) on a real SQLite file.
const memories: Memory[] = [];
const temps: { cleanup(): void }[] = [];
afterEach(async () => {
	for (const m of memories.splice(0)) await m.close();
	for (const t of temps.splice(0)) t.cleanup();
});

async function memory(): Promise<Memory> {
	const temp = makeTempDir("engrama-bulk-entities-");
	temps.push(temp);
	const { graph, vectors } = await createBackend(parseConfig({ backend: "sqlite", dbPath: join(temp.path, "m.db"), orgId: SCOPE.orgId, userId: SCOPE.userId }));
	const m = new Memory({ graph, vectors, embedder: null, profile: exampleProfile() });
	memories.push(m);
	return m;
}

const ctx = { scope: SCOPE, source: "sync" as const };

describe("WritePipeline.mergeEntities", () => {
	it("writes hundreds of new entities (several backend calls) with mergeEntity's results, in order", async () => {
		const m = await memory();
		const inputs = Array.from({ length: 250 }, (_, i) => ({ label: "concept", key: ` Idea ${i} `, props: { description: `idea number ${i}`, status: "active" } }));
		const writes = await m.pipeline.mergeEntities(ctx, inputs);
		expect(writes.map((w) => w.node.key)).toEqual(inputs.map((_, i) => `Idea ${i}`));
		expect(writes.every((w) => w.created && w.node.label === "Concept")).toBe(true);
		expect(new Set(writes.map((w) => w.node.id)).size).toBe(250);
		expect(writes[7].node.props).toMatchObject({ name: "Idea 7", source: "sync", trust_level: 1, confidence: 1 });
		expect((await m.graph.counts(SCOPE)).nodes).toBe(250);
		expect((await m.graph.getNode(SCOPE, "Concept", "Idea 249"))?.id).toBe(writes[249].node.id);
		expect((await m.graph.fulltext(SCOPE, { text: "number 123", limit: 3 }))[0]?.node.key).toBe("Idea 123");
	});

	it("repeats and existing entities give the results of one-by-one writes (update, history)", async () => {
		const m = await memory();
		const first = await m.pipeline.mergeEntity(ctx, { label: "Concept", key: "A", props: { description: "one" } });
		const writes = await m.pipeline.mergeEntities(ctx, [
			{ label: "Concept", key: "A", props: { description: "two" } },
			{ label: "Concept", key: "B", props: {} },
			{ label: "Concept", key: "B", props: { description: "again" } },
		]);
		expect(writes.map((w) => [w.node.key, w.created])).toEqual([
			["A", false],
			["B", true],
			["B", false],
		]);
		expect(writes[0].node.id).toBe(first.node.id);
		expect((await m.graph.nodeHistory(SCOPE, first.node.id, { limit: 10 })).map((h) => [h.prop, h.before, h.after])).toContainEqual(["description", "one", "two"]);
		expect((await m.graph.getNode(SCOPE, "Concept", "B"))?.props.description).toBe("again");
	});
});
