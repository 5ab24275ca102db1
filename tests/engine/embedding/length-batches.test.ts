// A local model pads each batch to its longest text: batches by length, under a padded budget.
import { describe, expect, test } from "vitest";
import { embedByLength, lengthBatches } from "../../../src/engine/embedding/batching";

describe("batches by length", () => {
	test("sorted by length, at most maxCount each, the padded size under maxChars", () => {
		const texts = ["x".repeat(900), "a", "b".repeat(10), "c".repeat(2000), "d".repeat(11), "e".repeat(950)];
		const batches = lengthBatches(texts, 2, 2000);
		expect(batches).toEqual([[1, 2], [4, 0], [5], [3]]);
		for (const batch of batches) {
			expect(batch.length).toBeLessThanOrEqual(2);
			const longest = Math.max(...batch.map((i) => texts[i].length));
			// A single text longer than the budget still goes, alone.
			if (batch.length > 1) expect(batch.length * longest).toBeLessThanOrEqual(2000);
		}
		expect(batches.flat().sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5]);
	});

	test("answers in the texts' own order", async () => {
		const texts = ["ccc", "a", "bb", "dddd", ""];
		const seen: string[][] = [];
		const vectors = await embedByLength(texts, { maxCount: 2, maxChars: 100 }, (batch) => {
			seen.push([...batch]);
			return Promise.resolve(batch.map((t) => new Float32Array([t.length])));
		});
		expect(vectors.map((v) => v[0])).toEqual([3, 1, 2, 4, 0]);
		expect(seen).toEqual([["", "a"], ["bb", "ccc"], ["dddd"]]);
	});
});
