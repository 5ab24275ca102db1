import { describe, expect, it } from "vitest";
import { HashEmbeddingProvider } from "../../../src/engine/embedding/hash-embedding-provider";

function cosine(a: Float32Array, b: Float32Array): number {
	let dot = 0;
	for (let i = 0; i < a.length; i++) dot += a[i] * b[i];
	return dot;
}

describe("HashEmbeddingProvider", () => {
	const hash = new HashEmbeddingProvider(128);

	it("is deterministic and unit length", async () => {
		const a = await hash.embed("Graph memory for Obsidian");
		const b = await new HashEmbeddingProvider(128).embed("Graph memory for Obsidian");
		expect(Array.from(a)).toEqual(Array.from(b));
		expect(a.length).toBe(128);
		expect(cosine(a, a)).toBeCloseTo(1, 5);
	});

	it("puts texts that share words and stems closer than unrelated texts", async () => {
		const [query, related, stem, unrelated] = await hash.embedBatch([
			"retry with exponential backoff",
			"exponential backoff between retries",
			"retrying",
			"photography of birds at dawn",
		]);
		expect(cosine(query, related)).toBeGreaterThan(cosine(query, unrelated));
		expect(cosine(query, stem)).toBeGreaterThan(cosine(query, unrelated));
	});

	it("ignores case and accents", async () => {
		expect(Array.from(await hash.embed("Café Déjà"))).toEqual(Array.from(await hash.embed("cafe deja")));
	});

	it("refuses tiny dimensions", () => {
		expect(() => new HashEmbeddingProvider(4)).toThrow(RangeError);
	});
});
