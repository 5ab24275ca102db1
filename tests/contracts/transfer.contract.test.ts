// engrama export → engrama import on every backend (and across them): the memory read back is equal,
// provenance included; bad files are refused and change nothing.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ValidationError } from "../../src/engine/errors";
import { exportMemory } from "../../src/engine/transfer/memory-export";
import { importMemory, type ImportOptions } from "../../src/engine/transfer/memory-import";
import type { Scope } from "../../src/engine/types";
import type { WriteContext } from "../../src/engine/write/write-pipeline";
import type { OpenedMemory } from "../../src/nodejs/open-memory";
import { testBackends, type TestBackend } from "./backends";

const HASH = { embedding: { provider: "hash" as const, model: "", dimensions: 16, baseUrl: "", apiKey: "", allowRemoteModels: false, localModelPath: "", timeoutMs: 30_000 } };
const INJECTION = `Robert'); DROP TABLE nodes;-- }) DETACH DELETE n //`;

async function exportLines(opened: OpenedMemory, vectors = true): Promise<string[]> {
	const { memory } = opened;
	const out: string[] = [];
	const model = memory.embedder?.model ?? "";
	for await (const line of exportMemory(memory.graph, memory.vectors, { vectors, embeddingModel: model, version: "test", now: "2026-01-01T00:00:00.000Z", pageSize: 3 })) {
		out.push(JSON.stringify(line));
	}
	return out;
}

function importOptions(opened: OpenedMemory, extra: Partial<ImportOptions> = {}): ImportOptions {
	return {
		merge: false,
		dryRun: false,
		callerScope: opened.scope,
		embeddingModel: opened.memory.embedder?.model ?? "",
		newId: () => crypto.randomUUID(),
		now: "2026-02-02T00:00:00.000Z",
		knownLabel: (label) => opened.memory.profile.resolveLabel(label) !== undefined,
		...extra,
	};
}

function linesOf(lines: readonly string[]): () => AsyncIterable<string> {
	return async function* () {
		yield* lines;
	};
}

async function importInto(opened: OpenedMemory, lines: readonly string[], extra: Partial<ImportOptions> = {}) {
	return opened.memory.write(() => importMemory(opened.memory, linesOf(lines), importOptions(opened, extra)));
}

/** Everything a memory holds, in an order no backend decides. */
async function snapshot(opened: OpenedMemory): Promise<unknown> {
	const { graph, vectors } = opened.memory;
	const scopes: Scope[] = [...(await graph.listScopes!())];
	const out: Record<string, unknown> = { meta: (await graph.listMeta!()).filter(([k]) => k !== "embedding_dimensions") };
	for (const scope of scopes) {
		const nodes = await graph.listNodes(scope, { includeArchived: true, limit: 10_000 });
		const vecs = vectors?.vectorsOf ? await vectors.vectorsOf(scope, nodes.map((n) => n.id)) : new Map<string, Float32Array>();
		const rows = [];
		for (const n of nodes) {
			const edges = (await graph.edgesOf(scope, n.id, "out")).map((e) => [e.type, e.node.label, e.node.key, e.edge.createdAt, e.edge.props]);
			const history = (await graph.nodeHistory(scope, n.id, { limit: 10_000 })).map((h) => [h.at, h.prop, h.before, h.after, h.source]);
			rows.push({ id: n.id, label: n.label, keyField: n.keyField, key: n.key, props: n.props, createdAt: n.createdAt, updatedAt: n.updatedAt, edges: edges.sort(), history, vector: vecs.has(n.id) ? Array.from(vecs.get(n.id)!) : null });
		}
		rows.sort((a, b) => (a.label + a.key < b.label + b.key ? -1 : 1));
		out[`${scope.orgId}/${scope.userId}`] = rows;
	}
	return JSON.parse(JSON.stringify(out, (_k, v: unknown) => (v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v)));
}

/** A memory with what an export must carry: agent provenance, an edit by another agent, an archive, an Insight with status, relation props, history, vectors. */
async function fill(opened: OpenedMemory): Promise<void> {
	const { memory, scope } = opened;
	const person: WriteContext = { scope, source: "cli" };
	const agent: WriteContext = { scope, source: "mcp", agent: "claude-code", session: "s-42" };
	await memory.remember(person, { label: "Project", key: "Billing Portal", props: { description: "Invoices", tags: ["billing", "web"] } });
	await memory.remember(agent, { label: "Technology", key: "Python", props: { description: "A language" } });
	await memory.remember({ scope, source: "sdk", agent: "other-bot", session: "s-7" }, { label: "Technology", key: "Python", props: { description: "A language, edited" } });
	await memory.remember(agent, { label: "Concept", key: INJECTION, props: { notes: "名前 — ünïcödé\nline two" } });
	await memory.remember(person, { label: "Concept", key: "Old idea" });
	await memory.relate(agent, { label: "Project", key: "Billing Portal" }, "USES", { label: "Technology", key: "Python" });
	await memory.relate(person, { label: "Concept", key: INJECTION }, "RELATED_TO", { label: "Project", key: "Billing Portal" });
	await memory.forget(person, { label: "Concept", key: "Old idea" });
	await memory.write(() =>
		opened.stores.graph.mergeNode(scope, {
			label: "Insight",
			keyField: "title",
			key: "Python is shared by two projects",
			set: { body: "Consider a shared library.", status: "dismissed", confidence: 0.7, source: "reflect", trust_level: 0.5 },
			setOnCreate: { engrama_id: crypto.randomUUID() },
			now: "2025-06-01T10:00:00.000Z",
		}),
	);
}

describe.each(testBackends())("export and import on $name", (backend) => {
	const opened: OpenedMemory[] = [];
	const open = async () => {
		const o = await backend.open({ config: HASH });
		opened.push(o);
		return o;
	};
	let source: OpenedMemory;

	beforeEach(async () => {
		source = await open();
		await fill(source);
	});
	afterEach(async () => {
		for (const o of opened.splice(0)) await o.close();
	});

	it("round-trips the whole memory: nodes, provenance, relations with their props, history, Insights with status, vectors, settings", async () => {
		const lines = await exportLines(source);
		const envelope = JSON.parse(lines[0]) as Record<string, unknown>;
		expect(envelope).toMatchObject({ engrama_export: 1, format_version: 1, producer: "engrama-obsidian", embedding_dimensions: 16 });
		expect(JSON.parse(lines.at(-1)!)).toMatchObject({ type: "end", nodes: 5, relations: 2, vectors: 4 });
		const python = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((r) => r.type === "node" && r.key_value === "Python")!;
		expect(python.properties).toMatchObject({ source: "mcp", source_agent: "claude-code", source_session: "s-42", edited_by_agent: "other-bot", edited_in_session: "s-7" });

		const target = await open();
		const report = await importInto(target, lines);
		expect(report).toMatchObject({ nodes: { created: 5, updated: 0 }, relations: 2, vectors: { stored: 4, skipped: 0 }, renumbered: 0 });
		expect(report.warnings).toEqual([`This memory now uses the file's standalone identity (${source.scope.userId}), so its nodes are yours.`]);
		expect(await snapshot(target)).toEqual(await snapshot(source));
		// The insight keeps its review status and the archived node stays archived.
		// A fresh memory takes the file's standalone identity, so its owner sees the nodes.
		expect(await target.memory.graph.getMeta("standalone_user_id")).toBe(source.scope.userId);
		const insight = await target.memory.graph.getNode(source.scope, "Insight", "Python is shared by two projects");
		expect(insight?.props.status).toBe("dismissed");
		expect((await target.memory.graph.getNode(source.scope, "Concept", "Old idea"))?.props.status).toBe("archived");
		// Search finds the imported nodes by words (fulltext follows the store's writes).
		const hits = await target.memory.graph.fulltext(source.scope, { text: "invoices", limit: 5 });
		expect(hits.map((h) => h.node.key)).toContain("Billing Portal");
	});

	it("is one commit unless told to commit every n records (migrate), which writes the same memory over several commits", async () => {
		const lines = await exportLines(source);
		const whole = await open();
		const before = whole.memory.writeStats.groups;
		await importInto(whole, lines);
		expect(whole.memory.writeStats.groups - before).toBe(1);

		const chunked = await open();
		const start = chunked.memory.writeStats.groups;
		const report = await importMemory(chunked.memory, linesOf(lines), importOptions(chunked, { commitEvery: 2 }));
		expect(report).toMatchObject({ nodes: { created: 5, updated: 0 }, relations: 2, vectors: { stored: 4, skipped: 0 } });
		// 5 nodes, 2 relations and the history at 2 a commit; the vectors a page a commit.
		expect(chunked.memory.writeStats.groups - start).toBeGreaterThanOrEqual(3);
		expect(await snapshot(chunked)).toEqual(await snapshot(source));
	});

	it("without --vectors the file has none and the import says nothing is missing but embeddings", async () => {
		const lines = await exportLines(source, false);
		expect(lines.some((l) => l.includes('"type":"vector"'))).toBe(false);
		const target = await open();
		const report = await importInto(target, lines);
		expect(report.vectors).toEqual({ stored: 0, skipped: 0 });
		expect(await target.memory.vectors!.count(target.scope)).toBe(0);
	});

	it("refuses a memory that already holds the scope's nodes unless --merge, which updates by label + name and adds the rest", async () => {
		const lines = await exportLines(source);
		const target = await open();
		// Nodes of the file's own scope already here.
		const same = { scope: source.scope, source: "cli" as const };
		await target.memory.remember(same, { label: "Project", key: "Billing Portal", props: { description: "Local text", owner: "me" } });
		await target.memory.remember(same, { label: "Person", key: "Ana" });
		const before = await snapshot(target);
		const refused = importInto(target, lines);
		await expect(refused).rejects.toThrow(ValidationError);
		await expect(importInto(target, lines)).rejects.toThrow(/already holds 2 nodes of .*--merge/);
		expect(await snapshot(target)).toEqual(before);

		const report = await importInto(target, lines, { merge: true, callerScope: source.scope });
		expect(report.nodes).toEqual({ created: 4, updated: 1 });
		const portal = await target.memory.graph.getNode(source.scope, "Project", "Billing Portal");
		expect(portal?.props).toMatchObject({ description: "Invoices", owner: "me" });
		expect(await target.memory.graph.getNode(source.scope, "Person", "Ana")).not.toBeNull();
		expect((await target.memory.graph.counts(source.scope)).edges).toBe(2);
		// Importing the same file again with --merge changes nothing more.
		const again = await snapshot(target);
		await importInto(target, lines, { merge: true, callerScope: source.scope });
		const after = (await snapshot(target)) as Record<string, unknown>;
		expect(Object.keys(after)).toEqual(Object.keys(again as Record<string, unknown>));
		expect((await target.memory.graph.counts(source.scope)).edges).toBe(2);
		// History is not recorded twice for nodes that were already here.
		const python = (await target.memory.graph.getNode(source.scope, "Technology", "Python"))!;
		const history = await target.memory.graph.nodeHistory(source.scope, python.id, { limit: 1000 });
		expect(history).toEqual(await source.memory.graph.nodeHistory(source.scope, (await source.memory.graph.getNode(source.scope, "Technology", "Python"))!.id, { limit: 1000 }));
	});

	it("refuses bad input with a message naming the line and what is wrong, and writes nothing", async () => {
		const lines = await exportLines(source);
		const target = await open();
		const empty = await snapshot(target);
		const node = lines.findIndex((l) => l.includes('"type":"node"'));
		const edit = (i: number, f: (r: Record<string, unknown>) => void) => {
			const copy = [...lines];
			const r = JSON.parse(copy[i]) as Record<string, unknown>;
			f(r);
			copy[i] = JSON.stringify(r);
			return copy;
		};
		const cases: [string, string[], RegExp][] = [
			["truncated mid-line", [...lines.slice(0, -2), lines.at(-2)!.slice(0, 20)], /line \d+: is not valid JSON/],
			["cut at a line boundary", lines.slice(0, -1), /cut short/],
			["wrong version", edit(0, (r) => (r.engrama_export = 2)), /line 1: export format 2; this version reads format 1/],
			["not an export", ['{"hello": 1}'], /line 1: is not an engrama export header/],
			["empty", [], /empty/],
			["invalid label", edit(node, (r) => (r.label = "Project) DETACH DELETE n //")), new RegExp(`line ${node + 1}: node record: label: labels start with a capital letter`)],
			["invalid relation type", edit(lines.findIndex((l) => l.includes('"type":"relation"')), (r) => (r.rel_type = "USES]->() DELETE n")), /relation record: rel_type/],
			["bad property name", edit(node, (r) => ((r.properties as Record<string, unknown>)["bad name"] = 1)), /property names use letters/],
			["dangling relation", edit(lines.findIndex((l) => l.includes('"type":"relation"')), (r) => (r.to_value = "Nowhere")), /refers to .* "Nowhere".*neither in the file nor in this memory/],
			["counts changed", edit(lines.length - 1, (r) => (r.nodes = 99)), /the end record counts 99 nodes but the file holds 5/],
			["duplicate node", [...lines.slice(0, node + 1), lines[node], ...lines.slice(node + 1)].map((l, i, all) => (i === all.length - 1 ? JSON.stringify({ ...JSON.parse(l), nodes: 6 }) : l)), /appears twice/],
		];
		for (const [name, bad, message] of cases) {
			const attempt = importInto(target, bad);
			await expect(attempt, name).rejects.toThrow(ValidationError);
			await expect(importInto(target, bad), name).rejects.toThrow(message);
			expect(await snapshot(target), name).toEqual(empty);
		}
		// --dry-run reports and writes nothing.
		const dry = await importInto(target, lines, { dryRun: true });
		expect(dry).toMatchObject({ dryRun: true, nodes: { created: 5 } });
		expect(await snapshot(target)).toEqual(empty);
	});

	it("reads engrama-py 0.18.1's export: nodes, relations and vectors of its shape, with no end record", async () => {
		const target = await open();
		const { orgId, userId } = target.scope;
		const py = [
			{ engrama_export: 1, version: "0.18.1", exported_at: "2026-01-01T00:00:00+00:00", source_backend: "sqlite", embedding_model: "nomic-embed-text", embedding_dimensions: 3 },
			{ type: "node", label: "Project", key_field: "name", key_value: "Atlas", properties: { name: "Atlas", status: "active", org_id: orgId, user_id: userId, created_at: "2025-03-01T00:00:00+00:00", updated_at: "2025-03-02T00:00:00+00:00", source: "sdk", trust_level: 0.8 } },
			{ type: "node", label: "Technology", key_field: "name", key_value: "Neo4j", properties: { name: "Neo4j", created_at: "2025-03-01T00:00:00+00:00", updated_at: "2025-03-01T00:00:00+00:00" } },
			{ type: "relation", from_label: "Project", from_key: "name", from_value: "Atlas", rel_type: "USES", to_label: "Technology", to_key: "name", to_value: "Neo4j", org_id: orgId, user_id: userId },
			{ type: "vector", label: "Project", key_field: "name", key_value: "Atlas", org_id: orgId, user_id: userId, vector: [0.1, 0.2, 0.3] },
			{ type: "future_thing", whatever: true },
		].map((r) => JSON.stringify(r));
		const report = await importInto(target, py);
		expect(report).toMatchObject({ producer: "engrama-py", nodes: { created: 2 }, relations: 1, vectors: { stored: 0, skipped: 1 } });
		expect(report.warnings.join(" ")).toMatch(/made by "nomic-embed-text".*engrama reindex/);
		const atlas = await target.memory.graph.getNode(target.scope, "Project", "Atlas");
		expect(atlas).toMatchObject({ createdAt: "2025-03-01T00:00:00+00:00", updatedAt: "2025-03-02T00:00:00+00:00", props: { source: "sdk", trust_level: 0.8 } });
		expect(atlas!.id).toMatch(/^[0-9a-f-]{36}$/);
		expect((await target.memory.graph.edgesOf(target.scope, atlas!.id, "out")).map((e) => e.node.key)).toEqual(["Neo4j"]);
	});
});

// SQLite → Neo4j → SQLite through the file: the memory read back equals the original.
const both = testBackends();
describe.runIf(both.some((b) => b.name === "neo4j") && both.some((b) => b.name === "sqlite"))("export and import across backends", () => {
	it("sqlite → neo4j → sqlite gives an equal memory", async () => {
		const byName = (n: string) => both.find((b) => b.name === n) as TestBackend;
		const a = await byName("sqlite").open({ config: HASH });
		const b = await byName("neo4j").open({ config: HASH });
		const c = await byName("sqlite").open({ config: HASH });
		try {
			await fill(a);
			await importInto(b, await exportLines(a));
			expect(await snapshot(b)).toEqual(await snapshot(a));
			await importInto(c, await exportLines(b));
			expect(await snapshot(c)).toEqual(await snapshot(a));
		} finally {
			for (const o of [a, b, c]) await o.close();
		}
	}, 120_000);
});
