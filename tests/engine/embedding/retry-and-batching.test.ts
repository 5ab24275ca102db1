import { describe, expect, it } from "vitest";
import { chunk, embedInBatches } from "../../../src/engine/embedding/batching";
import { checkVector, knownDimensions, modelKey } from "../../../src/engine/embedding/dimensions";
import { EmbedderError } from "../../../src/engine/embedding/embedder-error";
import { backoffDelay, withRetry } from "../../../src/engine/embedding/retry";

describe("retries with backoff", () => {
	const policy = { retries: 3, baseDelayMs: 100, maxDelayMs: 300 };

	it("doubles the delay per attempt up to the cap", () => {
		expect([0, 1, 2, 3].map((a) => backoffDelay(policy, a))).toEqual([100, 200, 300, 300]);
	});

	it("retries transient failures and gives up after the last retry", async () => {
		const delays: number[] = [];
		let calls = 0;
		const error = await withRetry(
			async () => {
				calls++;
				throw new EmbedderError("refused", "down");
			},
			policy,
			async (ms) => void delays.push(ms),
		).catch((e: unknown) => e);
		expect(calls).toBe(4);
		expect(delays).toEqual([100, 200, 300]);
		expect((error as EmbedderError).failure).toBe("refused");
	});

	it("does not retry answers that will not change", async () => {
		let calls = 0;
		await expect(
			withRetry(
				async () => {
					calls++;
					throw new EmbedderError("dimension", "wrong size");
				},
				policy,
				async () => {},
			),
		).rejects.toThrow("wrong size");
		expect(calls).toBe(1);
	});
});

describe("batching and dimensions", () => {
	it("chunks in order", () => {
		expect(chunk([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
		expect(chunk([], 3)).toEqual([]);
	});

	it("embeds batch by batch and concatenates", async () => {
		const sizes: number[] = [];
		const out = await embedInBatches(["a", "b", "c"], 2, async (batch) => {
			sizes.push(batch.length);
			return batch.map((t) => Float32Array.of(t.charCodeAt(0)));
		});
		expect(sizes).toEqual([2, 1]);
		expect(out.map((v) => v[0])).toEqual([97, 98, 99]);
	});

	it("knows model dimensions by name, ignoring the namespace and tag", () => {
		expect(modelKey("Xenova/all-MiniLM-L6-v2")).toBe("all-minilm-l6-v2");
		expect(knownDimensions("Xenova/all-MiniLM-L6-v2")).toBe(384);
		expect(knownDimensions("nomic-embed-text:latest")).toBe(768);
		expect(knownDimensions("my-own-model")).toBe(0);
	});

	it("rejects empty, non-numeric and wrong-size vectors", () => {
		expect(() => checkVector(new Float32Array(0), 0, "x")).toThrow(/empty vector/);
		expect(() => checkVector(Float32Array.of(1, Number.NaN), 0, "x")).toThrow(/non-numeric/);
		expect(() => checkVector(new Float32Array(3), 4, "x")).toThrow(/3-dimensional vectors, but 4/);
		expect(() => checkVector(new Float32Array(4), 4, "x")).not.toThrow();
	});
});
