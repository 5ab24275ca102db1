import { describe, expect, test } from "vitest";
import { TimeLeft, describeTimeLeft } from "../../src/plugin/time-left";

/** Feeds `perSecond` items a second for `seconds` seconds, one report a second; returns the last estimate. */
function run(left: TimeLeft, from: { at: number; done: number }, perSecond: number, seconds: number, total: number) {
	let estimate: number | null = null;
	for (let s = 1; s <= seconds; s++) {
		from.at += 1000;
		from.done += perSecond;
		estimate = left.estimate(from.done, total, from.at);
	}
	return estimate;
}

describe("TimeLeft", () => {
	test("a steady rate gives the exact time left", () => {
		const left = new TimeLeft();
		const at = { at: 5_000, done: 0 };
		left.estimate(0, 10_000, at.at);
		// 20 a second for 60 s: 1,200 done, 8,800 left → 440 s.
		expect(run(left, at, 20, 60, 10_000)).toBeCloseTo(440_000, -2);
		expect(left.progress(1_220, 10_000, at.at + 1000)).toBe("1,220 / 10,000 · about 7 min left");
	});

	test("says nothing before 10 s of work were watched", () => {
		const left = new TimeLeft();
		const at = { at: 0, done: 0 };
		left.estimate(0, 1_000, 0);
		expect(run(left, at, 50, 9, 1_000)).toBeNull();
		expect(left.progress(500, 1_000, 9_500)).toBe("500 / 1,000");
		expect(run(left, at, 50, 2, 1_000)).not.toBeNull();
	});

	test("a rate that changes is followed within the 30 s window, without jumping at one fast report", () => {
		const left = new TimeLeft();
		const at = { at: 0, done: 0 };
		left.estimate(0, 100_000, 0);
		run(left, at, 10, 60, 100_000);
		// One report after a batch twice as quick moves the estimate by a few percent, not by half.
		const before = (100_000 - at.done) / 10;
		const afterOne = run(left, at, 20, 1, 100_000) as number;
		expect(afterOne / 1000).toBeGreaterThan(((100_000 - at.done) / 20) * 1.5);
		expect(afterOne / 1000).toBeLessThan(before);
		// After 30 s at the new rate only the new rate counts: 100,000 − 1,200 − 600 left at 20 a second.
		expect(run(left, at, 20, 29, 100_000)).toBeCloseTo(((100_000 - 600 - 600) / 20) * 1000, -2);
	});

	test("done = total leaves nothing to say", () => {
		const left = new TimeLeft();
		left.estimate(0, 100, 0);
		left.estimate(50, 100, 20_000);
		expect(left.estimate(100, 100, 40_000)).toBe(0);
		expect(left.progress(100, 100, 41_000)).toBe("100 / 100");
	});

	test("no progress for a while first stretches the estimate, then says nothing", () => {
		const left = new TimeLeft();
		const at = { at: 0, done: 0 };
		left.estimate(0, 10_000, 0);
		const moving = run(left, at, 10, 40, 10_000) as number;
		const stalling = run(left, at, 0, 15, 10_000) as number;
		expect(stalling).toBeGreaterThan(moving * 1.5);
		expect(run(left, at, 0, 15, 10_000)).toBeNull();
		expect(left.progress(at.done, 10_000, at.at + 1000)).toBe("400 / 10,000");
		// Work that starts again is estimated again from its new rate.
		expect(run(left, at, 10, 5, 10_000)).not.toBeNull();
	});

	test("no progress from the start says nothing", () => {
		const left = new TimeLeft();
		const at = { at: 0, done: 0 };
		left.estimate(0, 500, 0);
		expect(run(left, at, 0, 60, 500)).toBeNull();
	});
});

describe("describeTimeLeft", () => {
	test.each([
		[0, "less than a minute left"],
		[59_000, "less than a minute left"],
		[60_000, "about 1 min left"],
		[89_000, "about 1 min left"],
		[12.4 * 60_000, "about 12 min left"],
		[59.4 * 60_000, "about 59 min left"],
		[59.8 * 60_000, "about 1 h left"],
		[80 * 60_000, "about 1 h 20 min left"],
		[83 * 60_000, "about 1 h 25 min left"],
		[(2 * 60 + 1) * 60_000, "about 2 h left"],
	])("%d ms → %s", (ms, text) => {
		expect(describeTimeLeft(ms)).toBe(text);
	});
});
