// SQLite's constants as JSON, computed from sqlite3.wasm at build time (esbuild-wasm-plugin.mjs)
// so the JS API bootstrap never calls sqlite3_wasm_enum_json(): V8 compiles that huge function
// on its one call (45 ms of CPU, +39 MB RSS in a one-shot CLI command; docs/archive/benchmarks-history.md).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { initialiseSqlite, lastEnumJson } from "../../../../src/backends/sqlite/wasm/load-sqlite";
import { locateWasmFile } from "../../../../src/backends/sqlite/wasm/wasm-binary";
import { precomputeEnumJson } from "../../../../src/backends/sqlite/wasm/esbuild-wasm-plugin.mjs";
import type { Sqlite3Static } from "../../../../src/backends/sqlite/wasm/sqlite3-api";

const ROOT = join(__dirname, "..", "..", "..", "..");

function ctypeOf(sqlite3: Sqlite3Static): unknown {
	return (sqlite3 as unknown as { wasm: { ctype: unknown } }).wasm.ctype;
}

describe("the precomputed enum JSON", () => {
	const dir = mkdtempSync(join(tmpdir(), "engrama-enum-json-"));
	afterAll(() => rmSync(dir, { recursive: true, force: true }));

	it("gives the bootstrap the very object the real call gives, and SQLite works on it", async () => {
		const real = await initialiseSqlite(undefined);
		expect(lastEnumJson).toBe("called");
		const precomputed = await precomputeEnumJson(readFileSync(locateWasmFile()));
		expect(precomputed.sha256).toHaveLength(2); // the package's file and the copy main.js carries
		const fast = await initialiseSqlite(precomputed);
		expect(lastEnumJson).toBe("precomputed");
		expect(ctypeOf(fast)).toEqual(ctypeOf(real));
		// Byte for byte what the C function returns (the bootstrap then adds keys to the parsed structs).
		const realEnum = (real.wasm.exports as unknown as { sqlite3_wasm_enum_json: () => number }).sqlite3_wasm_enum_json;
		expect(precomputed.json).toBe(real.wasm.cstrToJs(realEnum()));
		expect(fast.capi.SQLITE_ROW).toBe(100);
		const db = new fast.oo1.DB(":memory:", "c");
		try {
			expect(db.exec({ sql: "SELECT sqlite_version() AS v", rowMode: "object", returnValue: "resultRows" })).toEqual([{ v: fast.capi.sqlite3_libversion() }]);
		} finally {
			db.close();
		}
	});

	it("is ignored for a wasm with another hash: the bootstrap calls SQLite", async () => {
		const real = await initialiseSqlite(undefined);
		const other = await initialiseSqlite({ sha256: ["0".repeat(64)], json: '{"not":"sqlite"}' });
		expect(lastEnumJson).toBe("called");
		expect(ctypeOf(other)).toEqual(ctypeOf(real));
	});

	it("the built CLI never calls sqlite3_wasm_enum_json() in a remember", () => {
		const count = join(dir, "count");
		const out = execFileSync(
			process.execPath,
			["--import", join(ROOT, "tests", "fixtures", "processes", "count-enum-json.mjs"), join(ROOT, "bin", "engrama.mjs"), "--db", join(dir, "m.db"), "--json", "remember", "--label", "Concept", "--name", "Counted"],
			{ env: { ...process.env, ENGRAMA_ENUM_JSON_COUNT: count }, encoding: "utf8" },
		);
		expect(out).toContain("Counted");
		expect(readFileSync(count, "utf8")).toBe("0");
	});
});
