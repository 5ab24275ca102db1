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
 * A schema 11 file's fulltext rows held no item's day; schema 12 adds it to body. The schema 11
 * state is made by writing each row back as the props without their date index (valid_from is
 * never searched itself) and the version with them (node rows stay what schema 11 wrote).
 */
async function asSchema11(path: string): Promise<void> {
	const db = await openDatabase({ path });
	try {
		for (const row of db.all<{ id: number; props: string }>("SELECT id, props FROM nodes")) {
			const { valid_from: _, ...props } = JSON.parse(row.props) as Record<string, string>;
			db.run("DELETE FROM nodes_fts WHERE rowid = ?", [row.id]);
			db.run(`INSERT INTO nodes_fts(rowid, ${FTS_COLUMNS.join(", ")}) VALUES (?, ${FTS_COLUMNS.map(() => "?").join(", ")})`, [row.id, ...ftsValues(props)]);
		}
		db.run("UPDATE engrama_meta SET value = '11' WHERE key = 'schema_version'");
	} finally {
		db.close();
	}
}

describe("schema 12 (an item's own day in the fulltext index) from a schema 11 file", () => {
	let dir: ReturnType<typeof makeTempDir>;
	let path: string;
	beforeEach(() => {
		dir = makeTempDir("engrama-v12-");
		path = join(dir.path, "memory.db");
	});
	afterEach(() => dir.cleanup());

	it("re-indexes dated items, leaves a person's note without its sync day, and the export is unchanged", async () => {
		let opened: OpenedMemory = await open(path);
		const agent = { scope: opened.scope, source: "mcp" as const, agent: "claude" };
		await opened.memory.remember(agent, { label: "Concept", key: "Support group", props: { description: "Went to the support group", valid_from: "2023-05-08T13:56:00Z" } });
		await opened.memory.remember({ scope: opened.scope, source: "sync" }, { label: "Concept", key: "Garden", props: { description: "Planting tomatoes", obsidian_path: "Garden.md", valid_from: "2021-11-09" } });
		await opened.close();
		opened = await open(path);
		const before = await exportLines(opened);
		await opened.close();

		await asSchema11(path);
		const old = await openDatabase({ path });
		try {
			expect(old.all("SELECT rowid FROM nodes_fts WHERE nodes_fts MATCH '\"2023\"'")).toEqual([]);
		} finally {
			old.close();
		}

		opened = await open(path);
		try {
			const names = async (query: string) => (await opened.memory.searchFulltext(opened.scope, query)).map((h) => h.name);
			expect((await opened.memory.graph.health()).schemaVersion).toBe(SCHEMA_VERSION);
			expect(await names("May 2023")).toEqual(["Support group"]);
			expect(await names("support group")).toEqual(["Support group"]);
			expect(await names("November 2021")).toEqual([]);
			expect(await names("tomatoes")).toEqual(["Garden"]);
			expect(await exportLines(opened)).toEqual(before);
		} finally {
			await opened.close();
		}
	});
});
