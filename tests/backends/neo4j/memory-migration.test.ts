import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createBackend, type Backend } from "../../../src/backends/factory";
import { compareContent, migrateMemory } from "../../../src/backends/migration/memory-migration";
import { createNeo4jBackend, type Neo4jBackend } from "../../../src/backends/neo4j/neo4j-backend";
import { Neo4jGraphStore } from "../../../src/backends/neo4j/neo4j-graph-store";
import { parseConfig } from "../../../src/config/engrama-config";
import { ValidationError } from "../../../src/engine/errors";
import { Memory } from "../../../src/engine/memory";
import type { GraphStore, ReflectParams } from "../../../src/engine/protocols";
import type { NodeRecord, Scope } from "../../../src/engine/types";
import type { WriteContext } from "../../../src/engine/write/write-pipeline";
import { neo4jTestSettings } from "../../contracts/neo4j-backend";
import { testProfile } from "../../contracts/backends";
import { TestClock } from "../../engine/skills/skill-fixture";
import { countCommits, fillMany } from "../../helpers/migration-fixture";
import { makeTempDir } from "../../helpers/temp-dir";
import { runCli } from "../../helpers/run-cli";

const withServer = (process.env.ENGRAMA_TEST_BACKENDS ?? "").split(",").map((s) => s.trim()).includes("neo4j");
const ana: Scope = { orgId: "acme", userId: "ana" };
const bob: Scope = { orgId: "acme", userId: "bob" };

/** A memory worth migrating: labels, awkward props, archived nodes, Insights under review, edges, vectors, history. */
async function fill(backend: Backend): Promise<void> {
	const clock = new TestClock("2026-01-05T09:00:00.000Z");
	const memory = new Memory({ graph: backend.graph, vectors: backend.vectors, profile: testProfile(), clock });
	const ctx: WriteContext = { scope: ana, source: "cli" };
	const remember = (label: string, key: string, props: Record<string, unknown> = {}, c = ctx) => memory.remember(c, { label, key, props });
	await remember("Project", "Billing Portal", { description: "Invoices for clients", tags: ["billing", "web"], owner: null, flags: [true, false] });
	await remember("Technology", "PostgreSQL", { version: "16", notes: null });
	await remember("Problem", "Slow invoices", { status: "open", description: "reports time out" });
	await remember("Decision", "Add an index", { rationale: "cheap", status: "accepted" });
	await remember("Concept", "Event sourcing", { description: "append only log" });
	await remember("Insight", "Shared technology: PostgreSQL", { body: "two projects", status: "pending", confidence: 0.7 });
	await remember("Insight", "Cross-project solution: index", { body: "…", status: "approved", confidence: 0.85 });
	await remember("Insight", "Training: caching", { body: "…", status: "dismissed" });
	await remember("Project", "Bob's side project", { description: "only bob sees this" }, { scope: bob, source: "mcp" });
	clock.advanceDays(3);
	await remember("Project", "Billing Portal", { description: "Invoices and payments", status: "active" });
	await remember("Problem", "Slow invoices", { status: "resolved" });
	// An agent's edit of a person's node: provenance (authorship, lowered trust, edit marks) must travel too.
	await remember("Technology", "PostgreSQL", { summary: "Checked by an agent." }, { scope: ana, source: "mcp", agent: "claude", session: "s-1" });
	await memory.forget(ctx, { label: "Concept", key: "Event sourcing" });
	await memory.relate(ctx, { label: "Project", key: "Billing Portal" }, "USES", { label: "Technology", key: "PostgreSQL" });
	await memory.relate(ctx, { label: "Problem", key: "Slow invoices" }, "SOLVED_BY", { label: "Decision", key: "Add an index" });
	await memory.relate(ctx, { label: "Project", key: "Billing Portal" }, "HAS", { label: "Problem", key: "Slow invoices" });
	const nodes = await backend.graph.listNodes(ana, { includeArchived: true });
	for (const [i, node] of nodes.entries()) {
		if (i % 3 !== 2) await backend.vectors?.upsert(ana, node.id, Float32Array.from([Math.cos(i), Math.sin(i), i / 10, 0.5]));
	}
	await backend.graph.setMeta("standalone_user_id", "local-ana");
}

/** Everything a scope holds, in a backend-neutral form. */
async function snapshot(backend: Backend, scope: Scope) {
	const nodes = await backend.graph.listNodes(scope, { includeArchived: true });
	const edges = [];
	const history = [];
	for (const node of nodes) {
		for (const e of await backend.graph.edgesOf(scope, node.id, "out")) edges.push(e.edge);
		history.push(...(await backend.graph.nodeHistory(scope, node.id, { limit: 1000 })));
	}
	const vectors = await backend.vectors?.knn(scope, Float32Array.from([1, 0, 0, 0.5]), 20);
	return { nodes: nodes.map(plain), edges, history, vectors: vectors?.map((v) => [v.nodeId, Number(v.similarity.toFixed(5))]) };
}

const plain = (n: NodeRecord) => ({ ...n, props: { ...n.props } });

/** Migration into SQLite always runs; into Neo4j when the test server is up. */
const TARGETS = ["sqlite", ...(withServer ? ["neo4j"] : [])];

describe.each(TARGETS)("engrama migrate between sqlite and %s", (targetName) => {
	let dir: { path: string; cleanup(): void };
	let sqlite: Backend;
	let target: Backend;
	const openSqlite = (file: string) => createBackend(parseConfig({ backend: "sqlite", dbPath: join(dir.path, file) }));

	beforeEach(async () => {
		dir = makeTempDir("engrama-migrate-");
		sqlite = await openSqlite("source.db");
		target = targetName === "neo4j" ? await openNeo4j(`test-${crypto.randomUUID()}`) : await openSqlite("target.db");
		await fill(sqlite);
	}, 60_000);
	afterEach(async () => {
		if (target.graph instanceof Neo4jGraphStore) await target.graph.dropNamespace();
		await target.graph.close();
		await sqlite.graph.close();
		dir.cleanup();
	});

	it("round-trips a memory sqlite → target → sqlite with identical nodes, edges, vectors, history and Insights", async () => {
		const there = await migrateMemory(sqlite, target);
		expect(there.verified).toBe(true);
		expect(there.scopes.map((s) => [s.identical, s.contentIdentical, s.differences])).toEqual([
			[true, true, []],
			[true, true, []],
		]);
		expect(there.scopes.map((s) => `${s.orgId}/${s.userId}`)).toEqual(["acme/ana", "acme/bob"]);
		const anaCounts = there.scopes[0].target;
		expect(anaCounts).toMatchObject({ nodes: 8, edges: 3, vectors: 6 });
		expect(anaCounts.insights).toEqual({ approved: 1, dismissed: 1, pending: 1 });
		expect(anaCounts.history).toBeGreaterThan(0);
		expect(there.meta).toContain("standalone_user_id");
		expect(await target.graph.getMeta("standalone_user_id")).toBe("local-ana");
		// The SQLite file's own schema version stays with the file.
		expect(there.meta).not.toContain("schema_version");

		const original = await snapshot(sqlite, ana);
		expect(await snapshot(target, ana)).toEqual(original);
		expect((await target.graph.getNode(ana, "Technology", "PostgreSQL"))?.props).toMatchObject({
			source: "cli",
			trust_level: 0.5,
			edited_by_source: "mcp",
			edited_by_agent: "claude",
			edited_in_session: "s-1",
		});
		// Search and reflect give the same answers on the copy (bm25 equal up to the last bit of a double).
		const q = { text: "invoices payments", limit: 5 };
		const hits = async (g: GraphStore) => (await g.fulltext(ana, q)).map((h) => [h.node.id, Number(h.score.toFixed(12))]);
		expect(await hits(target.graph)).toEqual(await hits(sqlite.graph));
		const params: ReflectParams = { limit: 20, listCap: 10, staleBefore: "2026-06-01", lowConfidence: 0.5 };
		const reflect = (g: GraphStore) => g.reflectRows?.(ana, "under_connected", params);
		expect(await reflect(target.graph)).toEqual(await reflect(sqlite.graph));

		const back = await openSqlite("back.db");
		try {
			const report = await migrateMemory(target, back);
			expect(report.verified).toBe(true);
			expect(await snapshot(back, ana)).toEqual(original);
			expect(await snapshot(back, bob)).toEqual(await snapshot(sqlite, bob));
		} finally {
			await back.graph.close();
		}
	}, 120_000);

	it("copies a memory larger than a commit in several commits of the target; one that fails partway is refused until --replace starts over", async () => {
		const big = await openSqlite("big.db");
		try {
			await fillMany(big, bob, 1200);
			const commits = countCommits(target, 3);
			await expect(migrateMemory(big, target)).rejects.toThrow(/stopped partway.*--replace/s);
			commits.failAt = Infinity;
			await expect(migrateMemory(big, target)).rejects.toThrow(/already holds 1000 nodes of acme\/bob.*--replace/);
			commits.count = 0;
			const report = await migrateMemory(big, target, { replace: true });
			expect(report.verified).toBe(true);
			expect(report.scopes.map((s) => [s.target.nodes, s.target.edges, s.target.vectors, s.target.history])).toEqual([[1200, 1199, 1200, 1200]]);
			expect(commits.count).toBeGreaterThanOrEqual(3);
		} finally {
			await big.graph.close();
		}
	}, 240_000);

	it("the content check finds a node whose props, times or vector changed, one missing and one extra", async () => {
		await migrateMemory(sqlite, target);
		expect(await compareContent(sqlite, target, ana)).toEqual({ count: 0, lines: [] });
		const pg = await target.graph.getNode(ana, "Technology", "PostgreSQL");
		const portal = await target.graph.getNode(ana, "Project", "Billing Portal");
		if (!pg || !portal) throw new Error("copied nodes are there");
		await target.graph.updateNode(ana, pg.id, { version: "17" }, [], pg.updatedAt);
		await target.vectors?.upsert(ana, portal.id, Float32Array.from([0, 0, 1, 0]));
		await target.graph.mergeNode(ana, { label: "Concept", keyField: "name", key: "Extra", set: { name: "Extra" }, setOnCreate: { engrama_id: crypto.randomUUID() }, now: "2026-02-01T00:00:00.000Z" });
		const decision = await target.graph.getNode(ana, "Decision", "Add an index");
		if (!decision) throw new Error("copied nodes are there");
		await target.vectors?.delete(ana, [decision.id]);
		expect(await target.graph.deleteNode(ana, decision.id)).toBe(true);
		const diff = await compareContent(sqlite, target, ana);
		expect(diff.lines).toEqual(
			expect.arrayContaining([
				"Technology:PostgreSQL: label, key, props or times differ",
				"Project:Billing Portal: vector differs",
				"Decision:Add an index: missing in the target",
				"Concept:Extra: only in the target",
			]),
		);
		expect(diff.count).toBe(4);
	}, 120_000);

	it("refuses to copy into a scope that already holds nodes, and --replace starts it over", async () => {
		await migrateMemory(sqlite, target);
		await expect(migrateMemory(sqlite, target)).rejects.toBeInstanceOf(ValidationError);
		await expect(migrateMemory(sqlite, target)).rejects.toThrow(/already holds 8 nodes of acme\/ana.*--replace/);
		const again = await migrateMemory(sqlite, target, { replace: true });
		expect(again.verified).toBe(true);
		expect(again.scopes[0].target.vectors).toBe(6);
	}, 120_000);
});

describe.each(withServer ? ["neo4j"] : [])("engrama migrate on the command line (%s)", () => {
	it("round-trips a SQLite file through Neo4j and back, printing the verified counts each way; the copy holds the same memory", async () => {
		const dir = makeTempDir("engrama-migrate-cli-");
		const ns = `test-${crypto.randomUUID()}`;
		const sourcePath = join(dir.path, "source.db");
		const backPath = join(dir.path, "back", "memory.db");
		const source = await createBackend(parseConfig({ backend: "sqlite", dbPath: sourcePath }));
		await fill(source);
		await source.graph.close();
		try {
			// sqlite → neo4j, the human report: per scope counts and the verdict.
			const there = runCli(["migrate", "--from", "sqlite", "--to", "neo4j", "--neo4j-namespace", ns], { env: { ...neo4jEnv(), ENGRAMA_DB_PATH: sourcePath } });
			expect(there.stderr).toContain("migrate: acme/ana: 8 nodes");
			expect(there.status, there.stderr).toBe(0);
			expect(there.stdout).toContain("Migrated sqlite → neo4j: 2 scope(s).");
			expect(there.stdout).toMatch(
				/acme\/ana: 8 nodes, 3 edges, 6 vectors, [1-9]\d* history entries, Insights: 1 approved, 1 dismissed, 1 pending \(counts identical; every node's props, times and vector identical\)/,
			);
			expect(there.stdout).toMatch(/acme\/bob: 1 nodes, 0 edges, 0 vectors, \d+ history entries \(counts identical; every node's props, times and vector identical\)/);
			expect(there.stdout).toContain("settings copied: standalone_user_id");
			expect(there.stdout).toContain("Verified: both memories hold the same counts, and every node reads back the same.");

			// neo4j → a new SQLite file, as JSON.
			const back = runCli(["migrate", "--from", "neo4j", "--to", "sqlite", "--neo4j-namespace", ns, "--json"], { env: { ...neo4jEnv(), ENGRAMA_DB_PATH: backPath } });
			expect(back.status, back.stderr).toBe(0);
			const report = back.json<{
				from: string;
				to: string;
				verified: boolean;
				scopes: { contentIdentical: boolean; target: { nodes: number; insights: Record<string, number> } }[];
			}>();
			expect(report).toMatchObject({ from: "neo4j", to: "sqlite", verified: true });
			expect(report.scopes.map((s) => s.contentIdentical)).toEqual([true, true]);
			expect(report.scopes[0].target).toMatchObject({ nodes: 8, insights: { approved: 1, dismissed: 1, pending: 1 } });

			// The round trip kept everything: nodes with props and timestamps, edges, vectors, history, Insight statuses, settings.
			const original = await createBackend(parseConfig({ backend: "sqlite", dbPath: sourcePath }));
			const copy = await createBackend(parseConfig({ backend: "sqlite", dbPath: backPath }));
			try {
				expect(await snapshot(copy, ana)).toEqual(await snapshot(original, ana));
				expect(await snapshot(copy, bob)).toEqual(await snapshot(original, bob));
				expect(await copy.graph.getMeta("standalone_user_id")).toBe("local-ana");
			} finally {
				await copy.graph.close();
				await original.graph.close();
			}

			// A second copy into the same file is refused (nothing overwritten); the same backend twice too.
			const again = runCli(["migrate", "--from", "neo4j", "--to", "sqlite", "--neo4j-namespace", ns], { env: { ...neo4jEnv(), ENGRAMA_DB_PATH: backPath } });
			expect(again.status).not.toBe(0);
			expect(again.stderr).toMatch(/already holds 8 nodes of acme\/ana.*--replace/);
			const same = runCli(["migrate", "--from", "neo4j", "--to", "neo4j"], { env: neo4jEnv() });
			expect(same.status).toBe(2);
			expect(same.stderr).toMatch(/both neo4j/);
		} finally {
			const target = await openNeo4j(ns);
			await target.graph.dropNamespace();
			await target.graph.close();
			dir.cleanup();
		}
	}, 180_000);
});

function openNeo4j(namespace: string): Promise<Neo4jBackend> {
	return createNeo4jBackend(parseConfig({ backend: "neo4j", dbPath: ":memory:", neo4j: neo4jTestSettings() }), { namespace });
}

function neo4jEnv(): Record<string, string> {
	const s = neo4jTestSettings();
	return { NEO4J_URI: s.uri, NEO4J_USERNAME: s.username, NEO4J_PASSWORD: s.password, NEO4J_DATABASE: s.database };
}
