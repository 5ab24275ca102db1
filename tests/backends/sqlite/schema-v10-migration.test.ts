import { statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SCHEMA_VERSION } from "../../../src/backends/sqlite/schema";
import type { SqliteGraphStore } from "../../../src/backends/sqlite/sqlite-graph-store";
import { openDatabase } from "../../../src/backends/sqlite/wasm/open-database";
import { makeTempDir } from "../../helpers/temp-dir";
import { FIXTURE_OWNER, copyFixture, expectedLines, exportLines, openFixtureMemory } from "./schema-fixture";

// tests/fixtures/schema-v9/memory.db was written by the schema 9 code (commit aa06228) with
// make-fixture.ts beside it, and export.ndjson is that code's full export of it.
const OWNER = FIXTURE_OWNER;
const open = openFixtureMemory;

describe("schema 10 (edge props without their source, default trust and note path) from a schema 9 file", () => {
	let dir: ReturnType<typeof makeTempDir>;
	let path: string;
	beforeEach(() => {
		dir = makeTempDir("engrama-v10-");
		path = join(dir.path, "memory.db");
		copyFixture(9, path);
	});
	afterEach(() => dir.cleanup());

	it("keeps every byte of the export: nodes, relations with their props, history, vectors, meta", async () => {
		const opened = await open(path);
		try {
			expect(await exportLines(opened)).toEqual(expectedLines(9));
		} finally {
			await opened.close();
		}
	});

	it("stores sync's edges as empty props, and what it cannot give back as it was", async () => {
		await (await open(path)).close();
		const db = await openDatabase({ path, readonly: true });
		try {
			expect(db.get("SELECT value FROM engrama_meta WHERE key = 'schema_version'")).toEqual({ value: String(SCHEMA_VERSION) });
			const edges = db.all<{ id: number; props: string; elided: number }>("SELECT id, props, elided FROM edges ORDER BY id");
			const props = (id: number) => edges.find((e) => e.id === id)?.props;
			// Agents' edges: only what is not their source's default.
			expect(props(1)).toBe('{"source_agent":"gpt"}');
			expect(props(2)).toBe('{"source_agent":"claude","source_session":"s-42"}');
			expect(props(3)).toBe("{}");
			// Sync's edges from the note they name: nothing left to store.
			expect(props(4)).toBe("{}");
			expect(props(5)).toBe("{}");
			// Another path than the source node's, a lowered trust, another order, another origin.
			expect(props(6)).toBe('{"note_path":"Decisions/Cache.md"}');
			expect(props(7)).toBe('{"note_path":"Projects/Billing Portal.md","trust_level":0.3}');
			expect(JSON.parse(props(8) ?? "")).toMatchObject({ note_path: "Projects/Billing Portal.md", origin: "note" });
			expect(props(9)).toBe('{"origin":"import"}');
			// Edges another reader wrote.
			expect(edges.slice(10).map((e) => [e.props, e.elided])).toEqual([
				["{}", 0],
				[`{"org_id":"elsewhere","user_id":"${OWNER.userId}","note":"kept"}`, 64 + 8],
				["not json {", 0],
			]);
		} finally {
			db.close();
		}
	});

	it("a note path left out follows the edge, not the node: moving or dropping the node's path writes it back", async () => {
		const opened = await open(path);
		try {
			const graph = opened.memory.graph as SqliteGraphStore;
			const portal = await opened.memory.get(OWNER, "Project", "Billing Portal");
			const before = await graph.edgesOf(OWNER, portal?.id ?? "", "out", ["LINKS_TO"]);
			await graph.updateNode(OWNER, portal?.id ?? "", { obsidian_path: "Archive/Billing Portal.md" }, [], "2026-02-01T00:00:00.000Z");
			expect(await graph.edgesOf(OWNER, portal?.id ?? "", "out", ["LINKS_TO"])).toEqual(before);
			await graph.updateNode(OWNER, portal?.id ?? "", {}, ["obsidian_path"], "2026-02-02T00:00:00.000Z");
			expect(await graph.edgesOf(OWNER, portal?.id ?? "", "out", ["LINKS_TO"])).toEqual(before);
			// The same through another reader's SQL (the triggers live in the file).
			const conn = graph.connection();
			conn.run("UPDATE edges SET from_id = (SELECT id FROM nodes WHERE key_value = 'Redis') WHERE id = 4");
			const rows = conn.all<{ props: string }>("SELECT props FROM edges WHERE id IN (4, 5) ORDER BY id");
			expect(rows.map((r) => JSON.parse(r.props) as unknown)).toEqual([{ note_path: "Projects/Billing Portal.md" }, { note_path: "Projects/Billing Portal.md" }]);
		} finally {
			await opened.close();
		}
	});

	it("an upgrade that rewrote many edges compacts the file once, right after", async () => {
		// A schema 9 file with 1,200 edges of the engine's: made here, then put back in the schema 9 form by hand.
		const big = join(dir.path, "big.db");
		const first = await open(big);
		const graph = first.memory.graph as SqliteGraphStore;
		const ids: string[] = [];
		for (let i = 0; i < 50; i++) ids.push((await first.memory.remember({ scope: OWNER, source: "cli" }, { label: "Concept", key: `Concept ${i}` })).node.id);
		const prov = { org_id: OWNER.orgId, user_id: OWNER.userId, source: "cli", source_agent: null, source_session: null, trust_level: 1 };
		const inputs = ids.flatMap((from, i) => ids.filter((_, j) => j !== i && j < 25).map((to) => ({ fromId: from, type: "RELATED_TO", toId: to, props: prov, now: "2026-01-05T10:00:00.000Z" })));
		await first.memory.write(() => graph.mergeEdges(OWNER, inputs));
		const conn = graph.connection();
		conn.exec(`DROP TRIGGER engrama_note_path_node; DROP TRIGGER engrama_note_path_edge;
			UPDATE edges SET props = '{"source":"cli","trust_level":1}', elided = 7;
			UPDATE engrama_meta SET value = '9' WHERE key = 'schema_version'`);
		const exported = await exportLines(first);
		await first.close();
		const before = await openDatabase({ path: big, readonly: true });
		const edges = before.get<{ n: number }>("SELECT count(*) AS n FROM edges")?.n;
		before.close();
		expect(edges).toBeGreaterThanOrEqual(1000);
		const sizeBefore = statSync(big).size;

		const opened = await open(big);
		try {
			expect(statSync(big).size).toBeLessThan(sizeBefore);
			for (const log of [`${big}-wal`, `${big}.engrama-wal`]) expect(statSync(log, { throwIfNoEntry: false })?.size ?? 0).toBe(0);
			// Rows as they were (settings aside: the second open adopts the owner as standalone identity).
			const rows = (lines: string[]) => lines.filter((l) => !l.startsWith('{"type":"meta"') && !l.startsWith('{"type":"end"'));
			expect(rows(await exportLines(opened))).toEqual(rows(exported));
		} finally {
			await opened.close();
		}
	});

	it("a migration that fails part-way leaves the file at schema 9 with every row, and the next open migrates it", async () => {
		const raw = await openDatabase({ path });
		raw.exec("CREATE TRIGGER fail_v10 BEFORE UPDATE ON edges BEGIN SELECT RAISE(ABORT, 'injected failure'); END;");
		raw.close();
		const error = await open(path).catch((e: unknown) => e);
		expect(String((error as Error).message)).toContain("injected failure");

		const db = await openDatabase({ path });
		try {
			expect(db.get("SELECT value FROM engrama_meta WHERE key = 'schema_version'")).toEqual({ value: "9" });
			expect(db.get("SELECT props FROM edges WHERE id = 4")).toEqual({ props: '{"origin":"note","note_path":"Projects/Billing Portal.md","source":"sync","trust_level":1}' });
			expect(db.get("SELECT 1 AS x FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'engrama_%'")).toBeUndefined();
			db.exec("DROP TRIGGER fail_v10");
		} finally {
			db.close();
		}
		const opened = await open(path);
		try {
			expect(await exportLines(opened)).toEqual(expectedLines(9));
		} finally {
			await opened.close();
		}
	});
});
