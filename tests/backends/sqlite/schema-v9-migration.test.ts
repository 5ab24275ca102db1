import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PY_LAYOUT_VERSION, SCHEMA_VERSION } from "../../../src/backends/sqlite/schema";
import type { SqliteGraphStore } from "../../../src/backends/sqlite/sqlite-graph-store";
import { openDatabase } from "../../../src/backends/sqlite/wasm/open-database";
import { nameFragments, normaliseName } from "../../../src/engine/resolver/normalise";
import { makeTempDir } from "../../helpers/temp-dir";
import { FIXTURE_OWNER, copyFixture, expectedLines, exportLines, openFixtureMemory } from "./schema-fixture";

// tests/fixtures/schema-v8/memory.db was written by the schema 8 code (commit c980c51) with
// make-fixture.ts beside it, and export.ndjson is that code's full export of it.
const OWNER = FIXTURE_OWNER;
const OTHER = { orgId: "acme", userId: "ana" };
const open = openFixtureMemory;

describe("schema 9 (the scope once in edges and the name index) from a schema 8 file", () => {
	let dir: ReturnType<typeof makeTempDir>;
	let path: string;
	beforeEach(() => {
		dir = makeTempDir("engrama-v9-");
		path = join(dir.path, "memory.db");
		copyFixture(8, path);
	});
	afterEach(() => dir.cleanup());

	it("keeps every byte of the export: nodes, relations with their props, history, vectors, meta", async () => {
		const opened = await open(path);
		try {
			const lines = await exportLines(opened);
			expect(lines.map((l) => JSON.parse(l) as unknown)).toEqual(expectedLines(8).map((l) => JSON.parse(l) as unknown));
			// Byte for byte, key order included.
			expect(lines).toEqual(expectedLines(8));
		} finally {
			await opened.close();
		}
	});

	it("stores the slim layout, and leaves what another reader wrote as it was", async () => {
		const before = await openDatabase({ path, readonly: true });
		const fragments = before.get<{ n: number }>("SELECT count(*) AS n FROM node_name_fragments")?.n;
		const names = before.get<{ n: number }>("SELECT count(*) AS n FROM node_names")?.n;
		before.close();
		await (await open(path)).close();

		const db = await openDatabase({ path, readonly: true });
		try {
			expect(db.get("SELECT value FROM engrama_meta WHERE key = 'schema_version'")).toEqual({ value: String(SCHEMA_VERSION) });
			expect(db.get("PRAGMA user_version")).toEqual({ user_version: PY_LAYOUT_VERSION });
			expect(db.get("SELECT 1 AS x FROM sqlite_master WHERE name = 'idx_edges_scope'")).toBeUndefined();
			expect(db.all("SELECT org_id, user_id FROM engrama_scopes ORDER BY id")).toEqual([
				{ org_id: OTHER.orgId, user_id: OTHER.userId },
				{ org_id: OWNER.orgId, user_id: OWNER.userId },
			]);
			expect(db.get("SELECT count(*) AS n FROM node_name_fragments")).toEqual({ n: fragments });
			expect(db.get("SELECT count(*) AS n FROM node_names")).toEqual({ n: names });
			const edges = db.all<{ id: number; props: string; elided: number }>("SELECT id, props, elided FROM edges ORDER BY id");
			// The engine's edges: no scope, no null provenance.
			for (const e of edges.slice(0, 5)) {
				expect(e.props).not.toContain(OWNER.userId);
				expect(e.props).not.toContain(`"${OTHER.userId}"`);
				expect(e.props).not.toContain("null");
			}
			// Packed further by schema 10 (schema-v10-migration.test.ts): its source node has no note path.
			expect(edges[2]).toEqual({ id: 3, props: '{"note_path":"Projects/Billing Portal.md"}', elided: 1 | 2 | 4 | 8 | 16 | 64 });
			// The Python engrama's edge, one naming another scope in its props, one that is not JSON.
			expect(edges.slice(5)).toEqual([
				{ id: 6, props: "{}", elided: 0 },
				{ id: 7, props: `{"org_id":"elsewhere","user_id":"${OWNER.userId}","note":"kept"}`, elided: 2 },
				{ id: 8, props: "not json {", elided: 0 },
			]);
		} finally {
			db.close();
		}
	});

	it("finds names in each scope through the migrated name index, and a forget takes its scope's strings too", async () => {
		const opened = await open(path);
		try {
			const graph = opened.stores.graph;
			const query = (name: string) => ({ normalised: normaliseName(name), fragments: nameFragments(normaliseName(name)), limit: 5 });
			expect((await graph.nameCandidates?.(OWNER, query("Postgres")))?.[0]?.key).toBe("PostgreSQL");
			expect((await graph.nameCandidates?.(OTHER, query("Atlas One")))?.map((n) => n.key)).toEqual(["Atlas"]);
			expect(await graph.nameCandidates?.(OTHER, query("Redis"))).toEqual([]);
			await graph.forgetScope(OTHER);
			const conn = (graph as SqliteGraphStore).connection();
			expect(conn.all("SELECT org_id FROM engrama_scopes")).toEqual([{ org_id: OWNER.orgId }]);
		} finally {
			await opened.close();
		}
	});

	it("new and merged edges read back exactly what was written", async () => {
		const opened = await open(path);
		try {
			const { memory } = opened;
			const agent = { scope: OWNER, source: "mcp" as const, agent: "claude" };
			await memory.remember(agent, { label: "Technology", key: "SQLite" });
			await memory.relate(agent, { label: "Project", key: "Billing Portal" }, "USES", { label: "Technology", key: "SQLite" });
			// An elided edge merged with props of another writer (session now set).
			await memory.relate({ ...agent, session: "s-7" }, { label: "Project", key: "Billing Portal" }, "LINKS_TO", { label: "Technology", key: "Redis" });
			const graph = memory.graph;
			const redis = await memory.get(OWNER, "Technology", "Redis");
			const sqlite = await memory.get(OWNER, "Technology", "SQLite");
			const out = await graph.edgesOf(OWNER, sqlite?.id ?? "", "in", ["USES"]);
			expect(out[0]?.edge.props).toEqual({ org_id: OWNER.orgId, user_id: OWNER.userId, source: "mcp", source_agent: "claude", source_session: null, trust_level: 0.5 });
			const links = await graph.edgesOf(OWNER, redis?.id ?? "", "in", ["LINKS_TO"]);
			expect(JSON.stringify(links[0]?.edge.props)).toBe(
				JSON.stringify({ origin: "note", note_path: "Projects/Billing Portal.md", org_id: OWNER.orgId, user_id: OWNER.userId, source: "mcp", source_agent: "claude", source_session: "s-7", trust_level: 0.5 }),
			);
		} finally {
			await opened.close();
		}
	});

	it("a migration that fails part-way leaves the file at schema 8 with every row, and the next open migrates it", async () => {
		// A failure in the last step (the edges' rewrite), after the name index was converted.
		const raw = await openDatabase({ path });
		raw.exec("CREATE TRIGGER fail_v9 BEFORE UPDATE ON edges BEGIN SELECT RAISE(ABORT, 'injected failure'); END;");
		raw.close();
		const error = await open(path).catch((e: unknown) => e);
		expect(String((error as Error).message)).toContain("injected failure");

		const db = await openDatabase({ path });
		try {
			expect(db.get("SELECT value FROM engrama_meta WHERE key = 'schema_version'")).toEqual({ value: "8" });
			expect(db.all<{ name: string }>("PRAGMA table_info(node_name_fragments)").map((c) => c.name)).toContain("org_id");
			expect(db.get("SELECT 1 AS x FROM sqlite_master WHERE name IN ('engrama_scopes', 'node_names_v8')")).toBeUndefined();
			expect(db.get("SELECT 1 AS x FROM sqlite_master WHERE name = 'idx_edges_scope'")).toBeDefined();
			expect(db.all<{ name: string }>("PRAGMA table_info(edges)").map((c) => c.name)).not.toContain("elided");
			db.exec("DROP TRIGGER fail_v9");
		} finally {
			db.close();
		}
		const opened = await open(path);
		try {
			expect(await exportLines(opened)).toEqual(expectedLines(8));
		} finally {
			await opened.close();
		}
	});
});
