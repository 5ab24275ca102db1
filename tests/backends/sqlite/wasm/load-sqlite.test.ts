import { describe, expect, it } from "vitest";
import { loadSqlite } from "../../../../src/backends/sqlite/wasm/load-sqlite";

describe("loadSqlite", () => {
	it("loads SQLite 3.45 with FTS5 and vec0 once per process", async () => {
		const sqlite3 = await loadSqlite();
		expect(sqlite3.version.libVersion).toBe("3.45.3");
		expect(await loadSqlite()).toBe(sqlite3);
		const db = new sqlite3.oo1.DB(":memory:", "c");
		try {
			const options = db.exec({ sql: "PRAGMA compile_options", rowMode: "array", returnValue: "resultRows" }) as string[][];
			expect(options.flat()).toContain("ENABLE_FTS5");
			expect(db.exec({ sql: "SELECT vec_version() AS v", rowMode: "object", returnValue: "resultRows" })).toEqual([{ v: "v0.1.9" }]);
		} finally {
			db.close();
		}
	});

	it("leaves the Node globals it disguised during init as they were", async () => {
		await loadSqlite();
		expect(process.versions.node).toMatch(/^\d+\./);
		expect("WorkerGlobalScope" in globalThis).toBe(false);
		expect("sqlite3ApiConfig" in globalThis).toBe(false);
	});
});
