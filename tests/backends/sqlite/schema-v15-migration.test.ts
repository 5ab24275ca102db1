import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ftsValues } from "../../../src/backends/sqlite/fts-values";
import { FTS_COLUMNS, SCHEMA_VERSION } from "../../../src/backends/sqlite/schema";
import { openDatabase } from "../../../src/backends/sqlite/wasm/open-database";
import { parseConfig } from "../../../src/config/engrama-config";
import { openMemory, type OpenedMemory } from "../../../src/nodejs/open-memory";
import { makeTempDir } from "../../helpers/temp-dir";
import { exportLines } from "./schema-fixture";

const SCOPE = { orgId: "acme", userId: "ana" };
const open = (path: string) => openMemory(parseConfig({ backend: "sqlite", dbPath: path, ...SCOPE }));

/**
 * A schema 14 file's fulltext rows held no aliases list; schema 15 adds its names to body. The
 * schema 14 state is made by writing each row back as the props without aliases (node rows stay).
 */
async function asSchema14(path: string): Promise<void> {
	const db = await openDatabase({ path });
	try {
		for (const row of db.all<{ id: number; props: string }>("SELECT id, props FROM nodes")) {
			const { aliases: _, ...props } = JSON.parse(row.props) as Record<string, string>;
			db.run("DELETE FROM nodes_fts WHERE rowid = ?", [row.id]);
			db.run(`INSERT INTO nodes_fts(rowid, ${FTS_COLUMNS.join(", ")}) VALUES (?, ${FTS_COLUMNS.map(() => "?").join(", ")})`, [row.id, ...ftsValues(props)]);
		}
		db.run("UPDATE engrama_meta SET value = '14' WHERE key = 'schema_version'");
	} finally {
		db.close();
	}
}

describe("schema 15 (a node's aliases list in the fulltext index) from a schema 14 file", () => {
	let dir: ReturnType<typeof makeTempDir>;
	let path: string;
	beforeEach(() => {
		dir = makeTempDir("engrama-v15-");
		path = join(dir.path, "memory.db");
	});
	afterEach(() => dir.cleanup());

	it("re-indexes nodes with aliases so they are found by them, and the export is unchanged", async () => {
		let opened: OpenedMemory = await open(path);
		const sync = { scope: opened.scope, source: "sync" as const };
		await opened.memory.remember(sync, { label: "Concept", key: "Файлы восстановления", props: { description: "Снимки заметок.", aliases: ["File recovery", "Восстановление"] } });
		await opened.memory.remember(sync, { label: "Concept", key: "Закладки", props: { description: "Избранные заметки." } });
		await opened.close();
		opened = await open(path);
		const before = await exportLines(opened);
		await opened.close();

		await asSchema14(path);
		opened = await open(path);
		try {
			const names = async (query: string) => (await opened.memory.searchFulltext(opened.scope, query)).map((h) => h.name);
			expect((await opened.memory.graph.health()).schemaVersion).toBe(SCHEMA_VERSION);
			expect(await names("file recovery")).toEqual(["Файлы восстановления"]);
			expect(await names("Закладки")).toEqual(["Закладки"]);
			expect(await exportLines(opened)).toEqual(before);
		} finally {
			await opened.close();
		}
	});
});
