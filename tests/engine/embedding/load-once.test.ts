import { describe, expect, it } from "vitest";
import { LoadOnce } from "../../../src/engine/embedding/load-once";

describe("LoadOnce", () => {
	it("opens once for concurrent callers, retries after a failure, and disposes only what loaded", async () => {
		let opens = 0;
		let fail = true;
		const once = new LoadOnce(async () => {
			opens++;
			if (fail) throw new Error("not downloaded");
			return { id: opens };
		});
		await expect(once.get()).rejects.toThrow("not downloaded");
		const disposed: unknown[] = [];
		await once.reset(async (v) => disposed.push(v));
		expect(disposed).toEqual([]);
		fail = false;
		const [a, b] = await Promise.all([once.get(), once.get()]);
		expect(a).toBe(b);
		expect(opens).toBe(2);
		await once.reset(async (v) => disposed.push(v));
		expect(disposed).toEqual([{ id: 2 }]);
		expect(await once.get()).toEqual({ id: 3 });
	});
});
