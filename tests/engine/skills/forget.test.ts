import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SqliteGraphStore } from "../../../src/backends/sqlite/sqlite-graph-store";
import { ScopeError } from "../../../src/engine/errors";
import { testBackends } from "../../contracts/backends";
import { openSkillFixture, type SkillFixture } from "./skill-fixture";

async function seed(f: SkillFixture, ctx = f.ctx, prefix = "") {
	const remember = (label: string, name: string, props: Record<string, unknown>, relations?: unknown) =>
		f.skills.remember(ctx, { label, name: `${prefix}${name}`, props, relations });
	await remember("Project", "Billing Portal", { description: "invoices for clients" }, { USES: [`${prefix}Postgres`] });
	await remember("Problem", "Slow invoices", { status: "open" }, { CAUSED_BY: [{ name: `${prefix}Postgres`, label: "Technology" }] });
	await remember("Problem", "Slow invoices", { status: "fixed" }); // one history entry
	await remember("Concept", "Idempotency", { summary: "safe retries" });
}

describe.each(testBackends())("forget on $name", (backend) => {
	let f: SkillFixture;
	beforeEach(async () => {
		f = await openSkillFixture(backend, { embedder: true });
	});
	afterEach(async () => {
		await f.close();
	});

	it("archives by name (restorable) or removes with --hard", async () => {
		await seed(f);
		const archived = await f.skills.forget(f.ctx, { name: "idempotency" });
		expect(archived).toMatchObject({ mode: "archived", forgotten: { name: "Idempotency", status: "archived" } });
		expect((await f.skills.recall(f.scope, "safe retries")).results.map((r) => r.name)).not.toContain("Idempotency");
		const removed = await f.skills.forget(f.ctx, { label: "Technology", name: "Postgres" }, { hard: true });
		expect(removed.mode).toBe("hard");
		expect(await f.memory.get(f.scope, "Technology", "Postgres")).toBeNull();
		expect((await f.graph.counts(f.scope)).edges).toBe(0);
	});

	it("TTL: dry run lists, apply archives what was not updated for N days", async () => {
		await seed(f);
		f.clock.advanceDays(40);
		await f.skills.remember(f.ctx, { label: "Concept", name: "Idempotency", props: { notes: "still relevant" } });
		const dry = await f.skills.forgetByTtl(f.ctx, { days: 30, apply: false });
		expect(dry).toMatchObject({ mode: "dry-run", action: "archive", count: 3 });
		expect(dry.nodes.map((n) => n.name).sort()).toEqual(["Billing Portal", "Postgres", "Slow invoices"]);
		expect((await f.graph.labelCounts(f.scope)).Project).toBe(1);
		const applied = await f.skills.forgetByTtl(f.ctx, { days: 30, apply: true, label: "Project" });
		expect(applied).toMatchObject({ mode: "apply", count: 1 });
		expect((await f.memory.get(f.scope, "Project", "Billing Portal"))?.props.status).toBe("archived");
		expect((await f.memory.get(f.scope, "Problem", "Slow invoices"))?.props.status).toBe("resolved");
	});

	it("GDPR forget: dry run counts, apply removes the caller's nodes, edges, vectors and history, not another scope's", async () => {
		await seed(f);
		await seed(f, f.otherCtx, "other ");
		const otherBefore = await f.skills.gdprForget(f.otherCtx, { apply: false });

		const dry = await f.skills.gdprForget(f.ctx, { apply: false });
		expect(dry.mode).toBe("dry-run");
		expect(dry.counts).toMatchObject({ nodes: 4, edges: 2, vectors: 4, fulltext: 4 });
		expect(dry.counts.history).toBeGreaterThanOrEqual(1);
		expect(dry.counts.name_index).toBeGreaterThan(4);
		expect((await f.graph.counts(f.scope)).nodes).toBe(4);

		const applied = await f.skills.gdprForget(f.ctx, { apply: true });
		expect(applied.counts).toEqual(dry.counts);
		expect(await f.skills.gdprForget(f.ctx, { apply: false })).toMatchObject({
			counts: { nodes: 0, edges: 0, vectors: 0, fulltext: 0, history: 0, name_index: 0, passages: 0 },
		});
		expect(await f.skills.gdprForget(f.otherCtx, { apply: false })).toEqual(otherBefore);
		const names = (await f.skills.recall(f.otherCtx.scope, "invoices")).results.map((r) => r.name);
		expect(names).toContain("other Billing Portal");
		expect(names.every((n) => n.startsWith("other "))).toBe(true);
		expect((await f.skills.recall(f.scope, "invoices")).results).toEqual([]);
		// The caller's remember counter goes too; the other tenant's stays.
		const counter = (scope: { orgId?: string | null; userId?: string | null }) => `proactive.remembers_since_reflect:${scope.orgId}:${scope.userId}`;
		expect(await f.graph.getMeta(counter(f.scope))).toBeNull();
		expect(await f.graph.getMeta(counter(f.otherCtx.scope))).not.toBeNull();
	});

	it("GDPR forget refuses a partial scope", async () => {
		await expect(f.skills.gdprForget({ scope: { orgId: "acme" }, source: "mcp" }, { apply: true })).rejects.toBeInstanceOf(ScopeError);
	});
});

// SQLite's own tables: runs when SQLite is among ENGRAMA_TEST_BACKENDS (npm run test:neo4j selects Neo4j only).
const sqliteBackends = testBackends().filter((b) => b.storeName === "sqlite");

describe.each(sqliteBackends)("GDPR forget on $name leaves no row of the caller in any SQLite table", (sqliteBackend) => {
	let f: SkillFixture;
	afterEach(async () => {
		await f.close();
	});

	it("nodes, edges, nodes_fts, node_embeddings, node_names, node_name_fragments, node_history", async () => {
		f = await openSkillFixture(sqliteBackend, { embedder: true });
		await seed(f);
		await seed(f, f.otherCtx, "other ");
		const conn = (f.graph as SqliteGraphStore).connection();
		const rows = (sql: string, params: (string | number)[] = []) => Number(conn.get<{ n: number }>(sql, params)?.n ?? 0);
		const snapshot = () => ({
			nodes: rows("SELECT count(*) AS n FROM nodes"),
			edges: rows("SELECT count(*) AS n FROM edges"),
			fts: rows("SELECT count(*) AS n FROM nodes_fts"),
			vectors: rows("SELECT count(*) AS n FROM node_embeddings"),
			names: rows("SELECT count(*) AS n FROM node_names"),
			fragments: rows("SELECT count(*) AS n FROM node_name_fragments"),
			history: rows("SELECT count(*) AS n FROM node_history"),
		});
		const before = snapshot();
		const report = await f.skills.gdprForget(f.ctx, { apply: true });
		const after = snapshot();
		expect(after).toEqual({
			nodes: before.nodes - report.counts.nodes,
			edges: before.edges - report.counts.edges,
			fts: before.fts - report.counts.fulltext,
			vectors: before.vectors - report.counts.vectors,
			names: after.names,
			fragments: after.fragments,
			history: before.history - report.counts.history,
		});
		expect(after.names + after.fragments).toBe(before.names + before.fragments - report.counts.name_index);
		const { orgId, userId } = f.scope;
		expect(rows("SELECT count(*) AS n FROM nodes WHERE json_extract(props, '$.user_id') = ?", [userId])).toBe(0);
		expect(rows("SELECT count(*) AS n FROM edges WHERE org_id = ? AND user_id = ?", [orgId, userId])).toBe(0);
		expect(rows("SELECT count(*) AS n FROM nodes_fts WHERE rowid NOT IN (SELECT id FROM nodes)")).toBe(0);
		expect(rows("SELECT count(*) AS n FROM node_embeddings WHERE node_id NOT IN (SELECT id FROM nodes)")).toBe(0);
		expect(rows("SELECT count(*) AS n FROM node_history WHERE org_id = ? AND user_id = ?", [orgId, userId])).toBe(0);
		// The name index names scopes by number (schema 9): the scope's row goes, and no name row is left without its node or scope.
		expect(rows("SELECT count(*) AS n FROM engrama_scopes WHERE org_id = ? AND user_id = ?", [orgId, userId])).toBe(0);
		for (const table of ["node_names", "node_name_fragments"]) {
			expect(rows(`SELECT count(*) AS n FROM ${table} WHERE node_id NOT IN (SELECT id FROM nodes) OR scope NOT IN (SELECT id FROM engrama_scopes)`)).toBe(0);
		}
		// Only the other tenant's two "invoices" rows are left in the fulltext index.
		expect(rows("SELECT count(*) AS n FROM nodes_fts WHERE nodes_fts MATCH 'invoices'")).toBe(2);
		// The other tenant keeps everything.
		expect(after.nodes).toBe(4);
		expect(after.vectors).toBe(4);
	});
});
