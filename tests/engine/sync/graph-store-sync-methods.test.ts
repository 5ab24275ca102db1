import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createBackend } from "../../../src/backends/factory";
import { parseConfig } from "../../../src/config/engrama-config";
import { NotFoundError, ValidationError } from "../../../src/engine/errors";
import type { GraphStore } from "../../../src/engine/protocols";
import type { NodeRecord } from "../../../src/engine/types";
import { makeTempDir } from "../../helpers/temp-dir";
import { SCOPE } from "./sync-fixture";

// The two GraphStore methods vault sync added (rekeyNode, mergeEdges), on a real SQLite file.
const stores: GraphStore[] = [];
const temps: { cleanup(): void }[] = [];
afterEach(async () => {
	for (const s of stores.splice(0)) await s.close();
	for (const t of temps.splice(0)) t.cleanup();
});

async function sqlite(): Promise<GraphStore> {
	const temp = makeTempDir("engrama-store-sync-");
	temps.push(temp);
	const { graph } = await createBackend(parseConfig({ backend: "sqlite", dbPath: join(temp.path, "m.db"), orgId: SCOPE.orgId, userId: SCOPE.userId }));
	stores.push(graph);
	return graph;
}

const NOW = "2026-03-01T00:00:00.000Z";
async function add(graph: GraphStore, label: string, key: string, id: string, keyField: "name" | "title" = "name"): Promise<NodeRecord> {
	return (await graph.mergeNode(SCOPE, { label, keyField, key, set: { [keyField]: key, note: "kept" }, setOnCreate: { engrama_id: id }, now: NOW })).node;
}
const ID = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;

describe("SqliteGraphStore.rekeyNode", () => {
	it("changes label, key field and key in place; props, edges and created_at stay", async () => {
		const graph = await sqlite();
		const a = await add(graph, "Note", "Draft", ID(1));
		const b = await add(graph, "Concept", "Other", ID(2));
		await graph.mergeEdge(SCOPE, { fromId: a.id, type: "LINKS_TO", toId: b.id, now: NOW });
		const rekeyed = await graph.rekeyNode(SCOPE, a.id, { label: "Decision", keyField: "title", key: "Final", now: "2026-03-02T00:00:00.000Z" });
		expect(rekeyed).toMatchObject({ id: a.id, label: "Decision", keyField: "title", key: "Final", createdAt: NOW });
		expect(rekeyed?.props).toMatchObject({ title: "Final", note: "kept" });
		expect(rekeyed?.props.name).toBeUndefined();
		expect(await graph.getNode(SCOPE, "Note", "Draft")).toBeNull();
		expect((await graph.edgesOf(SCOPE, a.id, "out")).map((e) => e.node.key)).toEqual(["Other"]);
		expect((await graph.fulltext(SCOPE, { text: "Final", limit: 5 })).map((h) => h.node.id)).toEqual([a.id]);
	});

	it("can give the node a new engrama_id, refusing one that is taken", async () => {
		const graph = await sqlite();
		const a = await add(graph, "Concept", "A", ID(1));
		await add(graph, "Concept", "B", ID(2));
		await expect(graph.rekeyNode(SCOPE, a.id, { label: "Concept", keyField: "name", key: "A", newId: ID(2), now: NOW })).rejects.toThrow(ValidationError);
		const moved = await graph.rekeyNode(SCOPE, a.id, { label: "Concept", keyField: "name", key: "A", newId: ID(3), now: NOW });
		expect(moved?.id).toBe(ID(3));
		expect(await graph.getNodeById(SCOPE, ID(1))).toBeNull();
	});

	it("refuses a label + key another node holds, and returns null for a missing node", async () => {
		const graph = await sqlite();
		const a = await add(graph, "Concept", "A", ID(1));
		await add(graph, "Concept", "B", ID(2));
		await expect(graph.rekeyNode(SCOPE, a.id, { label: "Concept", keyField: "name", key: "B", now: NOW })).rejects.toThrow(/already named "B"/);
		expect((await graph.getNodeById(SCOPE, a.id))?.key).toBe("A");
		expect(await graph.rekeyNode(SCOPE, ID(9), { label: "Concept", keyField: "name", key: "Z", now: NOW })).toBeNull();
	});
});

describe("SqliteGraphStore.mergeEdges", () => {
	it("creates many edges at once, idempotently, merging props into existing ones", async () => {
		const graph = await sqlite();
		const a = await add(graph, "Project", "A", ID(1));
		const b = await add(graph, "Technology", "B", ID(2));
		const c = await add(graph, "Technology", "C", ID(3));
		if (!graph.mergeEdges) throw new Error("SQLite implements mergeEdges");
		const inputs = [
			{ fromId: a.id, type: "USES", toId: b.id, props: { origin: "note" }, now: NOW },
			{ fromId: a.id, type: "USES", toId: c.id, props: { origin: "note" }, now: NOW },
		];
		expect(await graph.mergeEdges(SCOPE, inputs)).toEqual({ created: 2 });
		expect(await graph.mergeEdges(SCOPE, [{ ...inputs[0], props: { note_path: "a.md" } }])).toEqual({ created: 0 });
		const edges = await graph.edgesOf(SCOPE, a.id, "out");
		expect(edges.map((e) => e.node.key).sort()).toEqual(["B", "C"]);
		expect(edges.find((e) => e.node.key === "B")?.edge.props).toEqual({ origin: "note", note_path: "a.md" });
	});

	it("writes nothing when an endpoint is missing", async () => {
		const graph = await sqlite();
		const a = await add(graph, "Project", "A", ID(1));
		const b = await add(graph, "Technology", "B", ID(2));
		if (!graph.mergeEdges) throw new Error("SQLite implements mergeEdges");
		await expect(
			graph.mergeEdges(SCOPE, [
				{ fromId: a.id, type: "USES", toId: b.id, now: NOW },
				{ fromId: a.id, type: "USES", toId: ID(9), now: NOW },
			]),
		).rejects.toThrow(NotFoundError);
		expect(await graph.edgesOf(SCOPE, a.id, "out")).toEqual([]);
	});
});

describe("SqliteGraphStore.mergeEdges endpoint lookups", () => {
	// mergeEdges remembers endpoints' row ids; a node that is gone, rolled back or moved must not be found.
	it("does not find a deleted node, a rolled-back one, or one moved to another scope", async () => {
		const graph = await sqlite();
		if (!graph.mergeEdges) throw new Error("SQLite implements mergeEdges");
		const a = await add(graph, "Project", "A", ID(1));
		const b = await add(graph, "Technology", "B", ID(2));
		expect(await graph.mergeEdges(SCOPE, [{ fromId: a.id, type: "USES", toId: b.id, now: NOW }])).toEqual({ created: 1 });

		await graph.deleteNode(SCOPE, b.id);
		await expect(graph.mergeEdges(SCOPE, [{ fromId: a.id, type: "USES", toId: b.id, now: NOW }])).rejects.toThrow(NotFoundError);

		await expect(
			graph.transaction(async () => {
				await add(graph, "Technology", "C", ID(3));
				throw new Error("roll back");
			}),
		).rejects.toThrow("roll back");
		const d = await add(graph, "Technology", "D", ID(4));
		await expect(graph.mergeEdges(SCOPE, [{ fromId: a.id, type: "USES", toId: ID(3), now: NOW }])).rejects.toThrow(NotFoundError);
		expect(await graph.mergeEdges(SCOPE, [{ fromId: a.id, type: "USES", toId: d.id, now: NOW }])).toEqual({ created: 1 });

		await graph.updateNode(SCOPE, d.id, { user_id: "someone-else" }, [], NOW);
		await expect(graph.mergeEdges(SCOPE, [{ fromId: d.id, type: "USES", toId: a.id, now: NOW }])).rejects.toThrow(NotFoundError);
	});
});

describe("SqliteGraphStore.mergeNodes", () => {
	const input = (label: string, key: string, id: number, extra: Record<string, string | string[]> = {}) => ({
		label,
		keyField: "name" as const,
		key,
		set: { name: key, ...extra },
		setOnCreate: { engrama_id: ID(id), status: "active" },
		now: NOW,
	});

	it("creates many nodes in one call: the records mergeNode gives, with fulltext rows and the name index", async () => {
		const graph = await sqlite();
		if (!graph.mergeNodes) throw new Error("SQLite implements mergeNodes");
		const results = await graph.mergeNodes(SCOPE, [
			input("Technology", "PostgreSQL", 1, { description: "a relational database", aliases: ["Postgres"] }),
			input("Concept", "Write-ahead logging", 2, { description: "durability before data pages" }),
			input("Technology", "Redis", 3),
		]);
		expect(results.map((r) => [r.node.id, r.node.key, r.created])).toEqual([
			[ID(1), "PostgreSQL", true],
			[ID(2), "Write-ahead logging", true],
			[ID(3), "Redis", true],
		]);
		expect(results[0].node.props).toMatchObject({ engrama_id: ID(1), name: "PostgreSQL", status: "active", org_id: SCOPE.orgId, user_id: SCOPE.userId });
		expect(await graph.getNode(SCOPE, "Technology", "PostgreSQL")).toEqual(results[0].node);
		expect((await graph.fulltext(SCOPE, { text: "durability", limit: 5 })).map((h) => h.node.id)).toEqual([ID(2)]);
		// The name index: the alias is found exactly, the key by its fragments.
		expect((await graph.nameCandidates(SCOPE, { normalised: "postgres", fragments: [], limit: 5 })).map((n) => n.id)).toEqual([ID(1)]);
		expect((await graph.nameCandidates(SCOPE, { normalised: "write ahead log", fragments: ["wri", "rit", "ahe", "hea", "ead", "log"], limit: 5 })).map((n) => n.id)).toContain(ID(2));
		expect(await graph.scopeFootprint(SCOPE)).toMatchObject({ nodes: 3, fulltext: 3 });
	});

	it("gives mergeNode's results when inputs exist or repeat (update, previous props), in order", async () => {
		const graph = await sqlite();
		if (!graph.mergeNodes) throw new Error("SQLite implements mergeNodes");
		await add(graph, "Concept", "A", ID(1));
		const results = await graph.mergeNodes(SCOPE, [
			{ ...input("Concept", "A", 5), set: { name: "A", description: "updated" } },
			input("Concept", "B", 2),
			{ ...input("Concept", "B", 3), set: { name: "B", description: "second write" } },
		]);
		expect(results.map((r) => [r.node.id, r.created])).toEqual([
			[ID(1), false],
			[ID(2), true],
			[ID(2), false],
		]);
		expect(results[0].previous).toMatchObject({ note: "kept" });
		expect(results[0].node.props).toMatchObject({ note: "kept", description: "updated" });
		expect(results[2].node.props.description).toBe("second write");
		expect((await graph.fulltext(SCOPE, { text: "second", limit: 5 })).map((h) => h.node.id)).toEqual([ID(2)]);
	});

	it("writes nothing when one input fails (an engrama_id another node holds)", async () => {
		const graph = await sqlite();
		if (!graph.mergeNodes) throw new Error("SQLite implements mergeNodes");
		await add(graph, "Concept", "A", ID(1));
		await expect(graph.mergeNodes(SCOPE, [input("Concept", "B", 2), input("Concept", "C", 1)])).rejects.toThrow();
		expect(await graph.getNode(SCOPE, "Concept", "B")).toBeNull();
		expect(await graph.scopeFootprint(SCOPE)).toMatchObject({ nodes: 1, fulltext: 1 });
		expect((await graph.fulltext(SCOPE, { text: "B", limit: 5 })).length).toBe(0);
	});
});

describe("SqliteGraphStore.listNodeFields", () => {
	it("reads only the named props, with listNodes' filters and order", async () => {
		const graph = await sqlite();
		await graph.mergeNode(SCOPE, { label: "Note", keyField: "name", key: "A", set: { name: "A", obsidian_path: "a.md", obsidian_size: 3 }, setOnCreate: { engrama_id: ID(1) }, now: NOW });
		await graph.mergeNode(SCOPE, { label: "Note", keyField: "name", key: "B", set: { name: "B", status: "archived" }, setOnCreate: { engrama_id: ID(2) }, now: NOW });
		if (!graph.listNodeFields) throw new Error("SQLite implements listNodeFields");
		const live = await graph.listNodeFields(SCOPE, { fields: ["obsidian_path", "obsidian_size", "status", "bad name!"] });
		expect(live).toEqual([{ id: ID(1), label: "Note", key: "A", fields: { obsidian_path: "a.md", obsidian_size: 3, status: undefined } }]);
		const all = await graph.listNodeFields(SCOPE, { fields: ["status"], includeArchived: true });
		expect(all.map((n) => [n.key, n.fields.status])).toEqual([
			["A", undefined],
			["B", "archived"],
		]);
		expect(await graph.listNodeFields({ orgId: SCOPE.orgId }, { fields: ["status"] })).toEqual([]);
	});
});
