import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createBackend, migrateMemory, type Backend } from "../../../src/backends";
import { parseConfig, type SqliteEngine } from "../../../src/config/engrama-config";
import { ValidationError } from "../../../src/engine/errors";
import { Memory } from "../../../src/engine/memory";
import type { NodeRecord, Scope } from "../../../src/engine/types";
import type { WriteContext } from "../../../src/engine/write/write-pipeline";
import { createNodeBackend } from "../../../src/nodejs/node-backend";
import { testProfile } from "../../contracts/backends";
import { TestClock } from "../../engine/skills/skill-fixture";
import { countCommits, fillMany } from "../../helpers/migration-fixture";
import { makeTempDir } from "../../helpers/temp-dir";

const ana: Scope = { orgId: "acme", userId: "ana" };
const bob: Scope = { orgId: "acme", userId: "bob" };

/** Provenance of three writers, an edit by another agent, a validity date, an edge's props, an archive, history and vectors. */
async function fill(backend: Backend): Promise<void> {
	const clock = new TestClock("2026-03-01T08:00:00.000Z");
	const memory = new Memory({ graph: backend.graph, vectors: backend.vectors, profile: testProfile(), clock });
	const person: WriteContext = { scope: ana, source: "cli" };
	const agent: WriteContext = { scope: ana, source: "mcp", agent: "claude-code", session: "s-42" };
	await memory.remember(person, { label: "Project", key: "Billing Portal", props: { description: "Invoices", tags: ["billing", "web"], valid_from: "2025-11-01" } });
	await memory.remember(agent, { label: "Technology", key: "Python", props: { description: "A language" } });
	clock.advanceDays(2);
	await memory.remember({ scope: ana, source: "sdk", agent: "other-bot", session: "s-7" }, { label: "Technology", key: "Python", props: { description: "A language, edited" } });
	await memory.remember(agent, { label: "Concept", key: "名前 — ünïcödé", props: { notes: "line one\nline two" } });
	await memory.remember(person, { label: "Concept", key: "Old idea" });
	await memory.remember(agent, { label: "Insight", key: "Shared technology: Python", props: { body: "two projects", status: "pending", confidence: 0.7 } });
	await memory.relate(agent, { label: "Project", key: "Billing Portal" }, "USES", { label: "Technology", key: "Python" });
	await memory.relate(person, { label: "Concept", key: "名前 — ünïcödé" }, "RELATED_TO", { label: "Project", key: "Billing Portal" });
	await memory.forget(person, { label: "Concept", key: "Old idea" });
	await memory.remember({ scope: bob, source: "mcp", agent: "claude" }, { label: "Project", key: "Bob's side project" });
	for (const [i, node] of (await backend.graph.listNodes(ana, { includeArchived: true })).entries()) {
		await backend.vectors?.upsert(ana, node.id, Float32Array.from([Math.cos(i), Math.sin(i), i / 10, 0.25]));
	}
	await backend.graph.setMeta("standalone_user_id", "local-ana");
}

/** Everything a scope holds, ids included, in an order no backend decides. */
async function snapshot(backend: Backend, scope: Scope) {
	const nodes = [...(await backend.graph.listNodes(scope, { includeArchived: true }))].sort((a, b) => (a.id < b.id ? -1 : 1));
	const vectors = (await backend.vectors?.vectorsOf?.(scope, nodes.map((n) => n.id))) ?? new Map<string, Float32Array>();
	const rows = [];
	for (const node of nodes) {
		const edges = (await backend.graph.edgesOf(scope, node.id, "out")).map((e) => e.edge);
		const history = await backend.graph.nodeHistory(scope, node.id, { limit: 1000 });
		rows.push({ node: plain(node), edges, history, vector: Array.from(vectors.get(node.id) ?? []) });
	}
	return rows;
}

const plain = (n: NodeRecord) => ({ ...n, props: { ...n.props } });

describe.each<[SqliteEngine, SqliteEngine]>([
	["native", "wasm"],
	["wasm", "native"],
])("engrama migrate, SQLite %s → %s", (from, to) => {
	let dir: { path: string; cleanup(): void };
	const opened: Backend[] = [];
	const open = async (engine: SqliteEngine, file: string) => {
		const config = parseConfig({ backend: "sqlite", sqliteEngine: engine, dbPath: join(dir.path, file) });
		const backend = engine === "native" ? await createNodeBackend(config) : await createBackend(config);
		opened.push(backend);
		return backend;
	};

	beforeEach(() => {
		dir = makeTempDir("engrama-migrate-engines-");
	});
	afterEach(async () => {
		for (const backend of opened.splice(0)) await backend.graph.close();
		dir.cleanup();
	});

	it("carries every node with its id, props, provenance, times and vector, every edge with its props, history and settings", async () => {
		const source = await open(from, "source.db");
		await fill(source);
		const target = await open(to, "target.db");
		const progress: string[] = [];
		const report = await migrateMemory(source, target, { onProgress: (line) => progress.push(line) });
		expect(report).toMatchObject({ from: "sqlite", to: "sqlite", verified: true, renumbered: 0, meta: ["standalone_user_id"] });
		// The lines `engrama migrate` prints as it goes, as before.
		expect(progress).toEqual(["acme/ana: 5 nodes", "acme/bob: 1 nodes", "acme/ana: edges, vectors and history copied", "acme/bob: edges, vectors and history copied"]);
		expect(report.scopes.map((s) => [`${s.orgId}/${s.userId}`, s.target.nodes, s.target.edges, s.target.vectors])).toEqual([
			["acme/ana", 5, 2, 5],
			["acme/bob", 1, 0, 0],
		]);
		expect(await snapshot(target, ana)).toEqual(await snapshot(source, ana));
		expect(await snapshot(target, bob)).toEqual(await snapshot(source, bob));
		expect(await target.graph.getMeta("standalone_user_id")).toBe("local-ana");

		const python = await target.graph.getNode(ana, "Technology", "Python");
		expect(python?.props).toMatchObject({ source: "mcp", source_agent: "claude-code", source_session: "s-42", trust_level: 0.5, edited_by_source: "sdk", edited_by_agent: "other-bot", edited_in_session: "s-7" });
		expect((await target.graph.getNode(ana, "Project", "Billing Portal"))?.props.valid_from).toBe("2025-11-01T00:00:00.000Z");
		expect((await target.graph.getNode(ana, "Concept", "Old idea"))?.props.status).toBe("archived");
		const uses = (await target.graph.edgesOf(ana, python?.id ?? "", "in")).find((e) => e.type === "USES");
		expect(uses?.edge.props).toMatchObject({ source: "mcp", source_agent: "claude-code" });
	}, 60_000);

	it("gives a node a new id where the old one is not a UUID or another scope of the target holds it, and verifies the copy through the new ids", async () => {
		const source = await open(from, "source.db");
		await fill(source);
		const legacy = await source.graph.mergeNode(ana, { label: "Concept", keyField: "name", key: "From engrama-py", set: { name: "From engrama-py" }, setOnCreate: { engrama_id: "py-17" }, now: "2025-01-01T00:00:00.000Z" });
		const portal = await source.graph.getNode(ana, "Project", "Billing Portal");
		if (!portal) throw new Error("filled");
		await source.graph.mergeEdge(ana, { fromId: legacy.node.id, type: "RELATED_TO", toId: portal.id, props: { source: "cli" }, now: "2025-01-02T00:00:00.000Z" });
		// The target already holds the portal's id, in a scope the source does not have.
		const target = await open(to, "target.db");
		const other: Scope = { orgId: "other", userId: "eve" };
		await target.graph.mergeNode(other, { label: "Project", keyField: "name", key: "Eve's", set: { name: "Eve's" }, setOnCreate: { engrama_id: portal.id }, now: "2025-01-01T00:00:00.000Z" });

		const report = await migrateMemory(source, target);
		expect(report.verified).toBe(true);
		expect(report.renumbered).toBe(2);
		const copied = await target.graph.getNode(ana, "Concept", "From engrama-py");
		const copiedPortal = await target.graph.getNode(ana, "Project", "Billing Portal");
		expect(copied?.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
		expect(copiedPortal?.id).not.toBe(portal.id);
		expect((await target.graph.edgesOf(ana, copied?.id ?? "", "out")).map((e) => [e.type, e.node.key])).toEqual([["RELATED_TO", "Billing Portal"]]);
		expect((await target.graph.getNodeById(other, portal.id))?.key).toBe("Eve's");
	}, 60_000);

	it("copies what a store holds even where an export file may not (an engrama-py property name), verbatim", async () => {
		const source = await open(from, "source.db");
		await source.graph.mergeNode(ana, { label: "Concept", keyField: "name", key: "Legacy", set: { name: "Legacy", "python-prop": "kept" }, setOnCreate: { engrama_id: crypto.randomUUID() }, now: "2025-01-01T00:00:00.000Z" });
		const target = await open(to, "target.db");
		expect((await migrateMemory(source, target)).verified).toBe(true);
		expect((await target.graph.getNode(ana, "Concept", "Legacy"))?.props["python-prop"]).toBe("kept");
	}, 60_000);

	it("commits a memory larger than a chunk in several transactions of the target, and verifies the whole copy", async () => {
		const source = await open(from, "source.db");
		await fillMany(source, ana, 1200);
		const target = await open(to, "target.db");
		const commits = countCommits(target);
		const report = await migrateMemory(source, target);
		expect(report.verified).toBe(true);
		expect(report.scopes.map((s) => [s.target.nodes, s.target.edges, s.target.vectors, s.target.history])).toEqual([[1200, 1199, 1200, 1200]]);
		// 1200 nodes at 500 a commit, then the edges, history and vectors, each page its own commit.
		expect(commits.count).toBeGreaterThanOrEqual(3);
	}, 120_000);

	it("a copy that fails partway leaves what it committed, which the next run refuses and --replace starts over", async () => {
		const source = await open(from, "source.db");
		await fillMany(source, ana, 1200);
		const target = await open(to, "target.db");
		const commits = countCommits(target, 3);
		await expect(migrateMemory(source, target)).rejects.toThrow(/stopped partway.*--replace/s);
		commits.failAt = Infinity;
		await expect(migrateMemory(source, target)).rejects.toThrow(/already holds 1000 nodes of acme\/ana.*--replace/);
		const again = await migrateMemory(source, target, { replace: true });
		expect(again.verified).toBe(true);
		expect(again.scopes[0]?.target.nodes).toBe(1200);
	}, 120_000);

	it("refuses a target scope that holds nodes; --replace forgets it there and copies again", async () => {
		const source = await open(from, "source.db");
		await fill(source);
		const target = await open(to, "target.db");
		await migrateMemory(source, target);
		await expect(migrateMemory(source, target)).rejects.toThrow(/already holds 5 nodes of acme\/ana.*--replace/);
		const again = await migrateMemory(source, target, { replace: true });
		expect(again.verified).toBe(true);
		expect(await snapshot(target, ana)).toEqual(await snapshot(source, ana));
	}, 60_000);
});

describe("engrama migrate, any backend pair", () => {
	it("refuses a backend that cannot list what it holds (null), as source or target", async () => {
		const dir = makeTempDir("engrama-migrate-null-");
		const sqlite = await createBackend(parseConfig({ backend: "sqlite", dbPath: join(dir.path, "memory.db") }));
		const none = await createBackend(parseConfig({ backend: "null", dbPath: ":memory:" }));
		try {
			await expect(migrateMemory(none, sqlite)).rejects.toBeInstanceOf(ValidationError);
			await expect(migrateMemory(sqlite, none)).rejects.toThrow(/Cannot migrate to the null backend/);
		} finally {
			await sqlite.graph.close();
			dir.cleanup();
		}
	});
});
