import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createBackend } from "../../../src/backends/factory";
import type { SqliteGraphStore } from "../../../src/backends/sqlite/sqlite-graph-store";
import { parseConfig } from "../../../src/config/engrama-config";
import { makeTempDir } from "./wasm/temp-dir";

describe("edge indexes", () => {
	let temp: ReturnType<typeof makeTempDir>;
	beforeEach(() => {
		temp = makeTempDir();
	});
	afterEach(() => temp.cleanup());

	it("lookups by source (and type) use the UNIQUE(from_id, rel_type, to_id) index; the duplicate idx_edges_from is gone", async () => {
		const config = parseConfig({ backend: "sqlite", dbPath: temp.file("memory.db"), orgId: "o", userId: "u" });
		const { graph } = await createBackend(config);
		try {
			const conn = (graph as SqliteGraphStore).connection();
			const indexes = conn.all<{ name: string }>("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'edges'").map((r) => r.name);
			expect(indexes).not.toContain("idx_edges_from");
			expect(indexes).toContain("idx_edges_to");
			const plan = (sql: string) =>
				conn
					.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, [1, "USES"])
					.map((r) => r.detail)
					.join(" | ");
			expect(plan("SELECT to_id FROM edges WHERE from_id = ? AND rel_type = ?")).toMatch(/USING (COVERING )?INDEX sqlite_autoindex_edges_1 \(from_id=\? AND rel_type=\?\)/);
			expect(plan("SELECT to_id FROM edges WHERE from_id = ? AND rel_type <> ?")).toMatch(/USING (COVERING )?INDEX sqlite_autoindex_edges_1 \(from_id=\?\)/);
		} finally {
			await graph.close();
		}
	});
});
