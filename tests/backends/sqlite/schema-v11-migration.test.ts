import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FTS_COLUMNS, SCHEMA_VERSION } from "../../../src/backends/sqlite/schema";
import { parseConfig } from "../../../src/config/engrama-config";
import { openDatabase } from "../../../src/backends/sqlite/wasm/open-database";
import { openMemory, type OpenedMemory } from "../../../src/nodejs/open-memory";
import { makeTempDir } from "../../helpers/temp-dir";
import { exportLines } from "./schema-fixture";

const SCOPE = { orgId: "acme", userId: "ana" };
const open = (path: string) => openMemory(parseConfig({ backend: "sqlite", dbPath: path, ...SCOPE }));

/**
 * A schema 10 file's fulltext rows held each prop's text as it is; schema 11 indexes words of
 * scripts written without spaces apart. The schema 10 state is made by writing such rows back
 * and the version with them (the node rows are what schema 10 wrote: nothing in them changes).
 */
async function asSchema10(path: string): Promise<void> {
	const db = await openDatabase({ path });
	try {
		const rows = db.all<{ id: number; props: string }>("SELECT id, props FROM nodes");
		for (const row of rows) {
			const props = JSON.parse(row.props) as Record<string, unknown>;
			const values = FTS_COLUMNS.map((c) => (typeof props[c] === "string" ? (props[c]) : null));
			db.run("DELETE FROM nodes_fts WHERE rowid = ?", [row.id]);
			db.run(`INSERT INTO nodes_fts(rowid, ${FTS_COLUMNS.join(", ")}) VALUES (?, ${FTS_COLUMNS.map(() => "?").join(", ")})`, [row.id, ...values]);
		}
		db.run("UPDATE engrama_meta SET value = '10' WHERE key = 'schema_version'");
	} finally {
		db.close();
	}
}

describe("schema 11 (words of every script in the fulltext index) from a schema 10 file", () => {
	let dir: ReturnType<typeof makeTempDir>;
	let path: string;
	beforeEach(() => {
		dir = makeTempDir("engrama-v11-");
		path = join(dir.path, "memory.db");
	});
	afterEach(() => dir.cleanup());

	it("re-indexes the rows that hold such words, and the export is unchanged", async () => {
		let opened: OpenedMemory = await open(path);
		const ctx = { scope: opened.scope, source: "cli" as const };
		await opened.memory.remember(ctx, { label: "Concept", key: "数据库迁移", props: { description: "把旧的数据库迁移到PostgreSQL" } });
		await opened.memory.remember(ctx, { label: "Concept", key: "Meeting", props: { description: "지난주 회의에서 정했다" } });
		await opened.memory.remember(ctx, { label: "Concept", key: "Cache", props: { description: "plain English text" } });
		await opened.close();
		// A second open writes the standalone identity into engrama_meta: export after it.
		opened = await open(path);
		const before = await exportLines(opened);
		await opened.close();

		await asSchema10(path);
		// What schema 10 found: nothing inside a run of Han or Hangul.
		const old = await openDatabase({ path });
		try {
			expect(old.all("SELECT rowid FROM nodes_fts WHERE nodes_fts MATCH '\"迁移\"'")).toEqual([]);
		} finally {
			old.close();
		}

		opened = await open(path);
		try {
			expect((await opened.memory.graph.health()).schemaVersion).toBe(SCHEMA_VERSION);
			expect((await opened.memory.searchFulltext(opened.scope, "迁移")).map((h) => h.name)).toEqual(["数据库迁移"]);
			expect((await opened.memory.searchFulltext(opened.scope, "PostgreSQL")).map((h) => h.name)).toEqual(["数据库迁移"]);
			expect((await opened.memory.searchFulltext(opened.scope, "회의")).map((h) => h.name)).toEqual(["Meeting"]);
			expect((await opened.memory.searchFulltext(opened.scope, "english")).map((h) => h.name)).toEqual(["Cache"]);
			const after = await exportLines(opened);
			expect(after).toEqual(before);
		} finally {
			await opened.close();
		}
	});
});
