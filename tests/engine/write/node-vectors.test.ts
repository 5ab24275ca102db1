import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HashEmbeddingProvider } from "../../../src/engine/embedding/hash-embedding-provider";
import { Memory } from "../../../src/engine/memory";
import { nodeToText } from "../../../src/engine/node-text";
import type { NodeRecord } from "../../../src/engine/types";
import type { WriteContext } from "../../../src/engine/write/write-pipeline";
import type { OpenedMemory } from "../../../src/nodejs/open-memory";
import { testBackends } from "../../contracts/backends";

/** The hash embedder, failing on any text that says FAIL (a model that chokes on one input). */
class ChokingEmbedder extends HashEmbeddingProvider {
	override async embed(text: string): Promise<Float32Array> {
		if (text.includes("FAIL")) throw new Error("the model choked");
		return super.embed(text);
	}
}

// A node's vector is made from the node as stored, whether the store writes it in the node's own
// statement (Neo4j, once the dimension is known) or upserts it after the MERGE (SQLite).
describe.each(testBackends())("remember's vector on $name", (backend) => {
	let opened: OpenedMemory;
	let memory: Memory;
	let ctx: WriteContext;
	const embedder = new ChokingEmbedder(32);

	beforeEach(async () => {
		opened = await backend.open();
		memory = new Memory({ graph: opened.stores.graph, vectors: opened.stores.vectors, embedder, profile: opened.memory.profile });
		ctx = { scope: opened.scope, source: "mcp", agent: "vectors" };
	});
	afterEach(async () => {
		await opened.close();
	});

	async function storedVector(node: NodeRecord): Promise<Float32Array | undefined> {
		const vectors = await opened.stores.vectors?.vectorsOf?.(opened.scope, [node.id]);
		return vectors?.get(node.id);
	}

	async function expectOwnVector(node: NodeRecord): Promise<void> {
		const stored = await memory.graph.getNodeById(opened.scope, node.id);
		if (!stored) throw new Error("the node is gone");
		const expected = await embedder.embed(nodeToText(stored));
		const vector = await storedVector(stored);
		expect(vector ? Array.from(vector).map((x) => Math.round(x * 1e5)) : undefined).toEqual(Array.from(expected).map((x) => Math.round(x * 1e5)));
	}

	it("stores the vector of the node as written, new or updated, and knn finds it right after", async () => {
		// The first write fixes the dimension; the later ones may carry the vector in the MERGE.
		await memory.remember(ctx, { label: "Concept", key: "Warm-up", props: { description: "fixes the dimension" } });
		const created = await memory.remember(ctx, { label: "Concept", key: "Backpressure", props: { description: "slows producers down", tags: ["queues"] } });
		expect(created.embedded).toBe(true);
		await expectOwnVector(created.node);
		// An update keeps the stored props it does not name: the vector covers them (summary and description).
		const updated = await memory.remember(ctx, { label: "Concept", key: "Backpressure", props: { summary: "a queue pushing back" } });
		expect(updated.created).toBe(false);
		expect(updated.node.props.description).toBe("slows producers down");
		await expectOwnVector(updated.node);
		const hits = await memory.vectors?.knn(opened.scope, await embedder.embed(nodeToText(updated.node)), 1);
		expect(hits?.[0]?.nodeId).toBe(updated.node.id);
	});

	it("updates a stored node it did not read first as an update: same id, history, superseding", async () => {
		const first = await memory.remember(ctx, { label: "Concept", key: "Retry budget", props: { description: "three tries", confidence: 0.8 } });
		const again = await memory.remember(ctx, { label: "Concept", key: "Retry budget", props: { description: "five tries", valid_to: "2030-01-01" } });
		expect(again).toMatchObject({ created: false, node: { id: first.node.id } });
		// Superseding halves the stored confidence: the write was prepared from the stored node.
		expect(again.node.props).toMatchObject({ description: "five tries", confidence: 0.4, valid_from: first.node.props.valid_from });
		const history = await memory.graph.nodeHistory(opened.scope, first.node.id, { limit: 10 });
		expect(history.map((h) => [h.prop, h.before, h.after])).toEqual(
			expect.arrayContaining([["description", "three tries", "five tries"], ["confidence", 0.8, 0.4]]),
		);
		expect((await memory.graph.findByKey(opened.scope, "Retry budget")).length).toBe(1);
		await expectOwnVector(again.node);
	});

	it("keeps the node and says so when the embedder fails, before or after the dimension is known", async () => {
		const first = await memory.remember(ctx, { label: "Concept", key: "First FAIL", props: { description: "no vector" } });
		await memory.remember(ctx, { label: "Concept", key: "Fine", props: { description: "a vector" } });
		const later = await memory.remember(ctx, { label: "Concept", key: "Later", props: { description: "FAIL again" } });
		for (const write of [first, later]) {
			expect(write.embedded).toBe(false);
			expect(write.warnings).toEqual([expect.stringContaining("Embedding failed (the model choked)")]);
			expect(await memory.graph.getNodeById(opened.scope, write.node.id)).not.toBeNull();
			expect(await storedVector(write.node)).toBeUndefined();
		}
	});
});
