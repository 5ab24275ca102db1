import { describe, expect, it } from "vitest";
import { linearFuse, minMax, rrfFuse, temporalScore } from "../../../src/engine/search/fusion";

describe("Reciprocal Rank Fusion", () => {
	it("sums 1/(k + rank) over channels and divides by the best possible sum", () => {
		const fused = rrfFuse(["a", "b", "c"], ["b", "d"], 60);
		const best = 2 / 61;
		expect(fused.get("b")?.score).toBeCloseTo((1 / 62 + 1 / 61) / best, 12);
		expect(fused.get("a")?.score).toBeCloseTo(1 / 61 / best, 12);
		expect(fused.get("d")?.score).toBeCloseTo(1 / 62 / best, 12);
		expect(fused.get("b")).toMatchObject({ fulltextRank: 2, vectorRank: 1 });
		expect(fused.get("c")?.vectorRank).toBeUndefined();
	});

	it("scores 1 for a node first in every channel, and stays within [0, 1]", () => {
		const fused = rrfFuse(["x", "y"], ["x", "z"], 60);
		expect(fused.get("x")?.score).toBe(1);
		for (const f of fused.values()) {
			expect(f.score).toBeGreaterThan(0);
			expect(f.score).toBeLessThanOrEqual(1);
		}
	});

	it("fuses the feedback list at its weight, counted in the best possible sum", () => {
		const fused = rrfFuse(["a", "b"], [], 60, { ids: ["c", "a"], weight: 0.5 });
		const best = 1.5 / 61;
		expect(fused.get("a")?.score).toBeCloseTo((1 / 61 + 0.5 / 62) / best, 12);
		expect(fused.get("c")?.score).toBeCloseTo(0.5 / 61 / best, 12);
		expect(fused.get("c")).toMatchObject({ feedbackRank: 1 });
		expect(fused.get("c")?.fulltextRank).toBeUndefined();
		expect(fused.get("b")?.feedbackRank).toBeUndefined();
		// An empty feedback list changes nothing.
		expect(rrfFuse(["a", "b"], [], 60, { ids: [], weight: 0.5 })).toEqual(rrfFuse(["a", "b"], [], 60));
	});

	it("weighs the vector list at its share, counted in the best possible sum; at 0 only its ranks are kept", () => {
		const fused = rrfFuse(["a", "b"], ["b", "c"], 60, undefined, 0.25);
		const best = 1.25 / 61;
		expect(fused.get("a")?.score).toBeCloseTo(1 / 61 / best, 12);
		expect(fused.get("b")?.score).toBeCloseTo((1 / 62 + 0.25 / 61) / best, 12);
		expect(fused.get("c")?.score).toBeCloseTo(0.25 / 62 / best, 12);
		const off = rrfFuse(["a", "b"], ["b", "c"], 60, undefined, 0);
		expect([off.get("a")?.score, off.get("c")?.score]).toEqual([1, 0]);
		expect(off.get("c")?.vectorRank).toBe(2);
		expect(rrfFuse(["a", "b"], ["b", "c"], 60, undefined, 1)).toEqual(rrfFuse(["a", "b"], ["b", "c"], 60));
	});

	it("falls back to the one channel that answered (its first node scores 1)", () => {
		const fused = rrfFuse(["a", "b"], [], 60);
		expect(fused.get("a")?.score).toBe(1);
		expect(fused.get("b")?.score).toBeCloseTo(61 / 62, 12);
		expect(rrfFuse([], [], 60).size).toBe(0);
	});

	it("a larger k flattens the advantage of the top rank", () => {
		const gap = (k: number) => {
			const f = rrfFuse(["a", "b", "c", "d", "e"], [], k);
			return (f.get("a")?.score ?? 0) - (f.get("e")?.score ?? 0);
		};
		expect(gap(1)).toBeGreaterThan(gap(60));
		expect(gap(60)).toBeGreaterThan(gap(600));
	});

	it("counts a duplicated id once, at its best rank", () => {
		expect(rrfFuse(["a", "a", "b"], [], 60).get("b")?.fulltextRank).toBe(3);
		expect(rrfFuse(["a", "a", "b"], [], 60).get("a")?.fulltextRank).toBe(1);
		expect(() => rrfFuse(["a"], [], 0)).toThrow(RangeError);
	});
});

describe("legacy linear blend", () => {
	it("min-max normalises each channel and blends with alpha", () => {
		const f = new Map([["a", 10], ["b", 5], ["c", 0]]);
		const v = new Map([["b", 0.9], ["c", 0.5]]);
		const out = linearFuse(f, v, 0.6);
		expect(out.get("a")).toEqual({ fulltext: 1, vector: 0, score: 0.4 });
		expect(out.get("b")?.score).toBeCloseTo(0.6 * 1 + 0.4 * 0.5, 12);
		expect(out.get("c")?.score).toBeCloseTo(0, 12);
	});

	it("forces alpha to 0 without vectors and to 1 without fulltext", () => {
		expect(linearFuse(new Map([["a", 3], ["b", 1]]), new Map(), 0.6).get("a")?.score).toBe(1);
		expect(linearFuse(new Map(), new Map([["a", 0.2], ["b", 0.8]]), 0.6).get("b")?.score).toBe(1);
	});

	it("maps all-equal scores to 1 rather than dividing by zero", () => {
		expect([...minMax(new Map([["a", 2], ["b", 2]])).values()]).toEqual([1, 1]);
	});
});

describe("temporal term", () => {
	const now = new Date("2026-03-01T00:00:00Z");
	it("halves every half-life and scales with confidence", () => {
		expect(temporalScore(1, "2026-03-01T00:00:00Z", now, 30)).toBe(1);
		expect(temporalScore(1, "2026-01-30T00:00:00Z", now, 30)).toBeCloseTo(0.5, 10);
		expect(temporalScore(0.5, "2025-12-31T00:00:00Z", now, 30)).toBeCloseTo(0.125, 10);
	});
	it("treats future or unreadable dates as fresh", () => {
		expect(temporalScore(0.8, "2027-01-01T00:00:00Z", now, 30)).toBe(0.8);
		expect(temporalScore(0.8, "not a date", now, 30)).toBe(0.8);
	});
});
