import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundleChild, runChild } from "./child-process";

// The bundles run from a temp dir outside the repo, so they cannot find node_modules:
// the WASM bytes must travel inside them.
describe("esbuild bundle with sqliteWasmPlugin", () => {
	let dir: string;
	beforeAll(() => {
		dir = mkdtempSync(join(tmpdir(), "engrama-bundle-"));
	});
	afterAll(() => rmSync(dir, { recursive: true, force: true }));

	for (const format of ["cjs", "esm"] as const) {
		it(`runs FTS5 and vec0 from a ${format.toUpperCase()} bundle in a child Node process`, async () => {
			const bundle = await bundleChild(dir, format);
			const lines = await runChild(bundle, ["probe", join(dir, `probe-${format}.db`)], dir);
			const result = JSON.parse(lines.at(-1) ?? "null") as {
				vec: string;
				fts: { rowid: number; score: number }[];
				knn: { rowid: number; distance: number }[];
				enumJson: string;
			};
			// The bundle carries SQLite's enum JSON for the (stripped) bytes it carries: no C call.
			expect(result.enumJson).toBe("precomputed");
			expect(result.vec).toBe("v0.1.9");
			expect(result.fts.map((r) => r.rowid)).toEqual([1]);
			expect(result.fts[0].score).toBeLessThan(0);
			expect(result.knn.map((r) => r.rowid)).toEqual([1]);
		});
	}

	it("does not depend on import.meta in the CommonJS output", async () => {
		const source = readFileSync(await bundleChild(dir, "cjs"), "utf8");
		expect(source).not.toContain("import.meta");
	});
});
