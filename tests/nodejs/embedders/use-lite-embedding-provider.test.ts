import { describe, expect, it } from "vitest";
import { UseLiteEmbeddingProvider } from "../../../src/nodejs/embedders/use-lite-embedding-provider";

function cosine(a: Float32Array, b: Float32Array): number {
	let dot = 0;
	for (let i = 0; i < a.length; i++) dot += a[i] * b[i];
	return dot;
}

describe("USE-lite provider (offline TensorFlow.js encoder from npm)", () => {
	it("gives unit 512-d vectors that rank a paraphrase above an unrelated sentence", async () => {
		const use = new UseLiteEmbeddingProvider(2);
		const [query, paraphrase, unrelated] = await use.embedBatch([
			"I adopted a puppy last weekend",
			"We got a new dog a few days ago",
			"The quarterly tax report is due on Friday",
		]);
		expect(use.dimensions).toBe(512);
		expect(query.length).toBe(512);
		expect(cosine(query, query)).toBeCloseTo(1, 4);
		expect(cosine(query, paraphrase)).toBeGreaterThan(cosine(query, unrelated) + 0.1);
		expect((await use.health()).ok).toBe(true);
	});
});
