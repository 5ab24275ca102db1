import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createBackend, type Backend } from "../../../src/backends/factory";
import { createNeo4jBackend, testNeo4jConnection, type Neo4jBackend } from "../../../src/backends/neo4j/neo4j-backend";
import { Neo4jConnection } from "../../../src/backends/neo4j/neo4j-connection";
import { parseConfig } from "../../../src/config/engrama-config";
import { BackendError, ValidationError } from "../../../src/engine/errors";
import type { MergeNodeInput } from "../../../src/engine/protocols";
import type { NodeRecord, Props, Scope } from "../../../src/engine/types";
import { neo4jTestSettings } from "../../contracts/neo4j-backend";
import { makeTempDir } from "../../helpers/temp-dir";
import { freePort as closedPort } from "../../helpers/free-port";

const scope: Scope = { orgId: "acme", userId: "ana" };
const NOW = "2026-03-01T10:00:00.000Z";

function neo4jConfig(uri: string) {
	return parseConfig({ backend: "neo4j", dbPath: ":memory:", neo4j: { uri } });
}

describe("Neo4j backend without a server", () => {
	it("fails at start with a BackendError naming the URI and what to do, after retrying", async () => {
		const port = await closedPort();
		const started = Date.now();
		const error = await createNeo4jBackend(neo4jConfig(`bolt://127.0.0.1:${port}`), { retry: { maxElapsedMs: 600 } }).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(BackendError);
		expect((error as BackendError).message).toMatch(new RegExp(`Neo4j at bolt://127\\.0\\.0\\.1:${port} \\(database neo4j\\) is unreachable`));
		expect((error as BackendError).message).toMatch(/Start Neo4j or fix NEO4J_URI/);
		expect((error as BackendError).details).toMatchObject({ transient: true });
		// It retried (backoff from 100 ms) instead of failing on the first refusal, and gave up after
		// its budget (said by the message: an upper bound on the clock would depend on machine load).
		expect(Date.now() - started).toBeGreaterThanOrEqual(250);
		expect((error as BackendError).message).toMatch(/retried for 1 s/);
	});

	it("refuses a URI that is not a Neo4j address, saying which setting to fix", async () => {
		const error = await createNeo4jBackend(neo4jConfig("http//nope"), { retry: { maxElapsedMs: 0 } }).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(BackendError);
		expect((error as Error).message).toMatch(/NEO4J_URI "http\/\/nope"/);
	});

	it("creates the driver lazily: nothing connects until the first query", async () => {
		const conn = new Neo4jConnection({ uri: `bolt://127.0.0.1:${await closedPort()}`, username: "neo4j", password: "", database: "neo4j" });
		await conn.close();
		await expect(conn.read((q) => q.run("RETURN 1"))).rejects.toThrow(/connection to .* is closed/);
	});

	it("reports a failed connection test as text for the settings panel", async () => {
		const message = await testNeo4jConnection({ uri: `bolt://127.0.0.1:${await closedPort()}`, username: "neo4j", password: "", database: "neo4j" });
		expect(message).toMatch(/unreachable/);
	});
});

const withServer = (process.env.ENGRAMA_TEST_BACKENDS ?? "").split(",").map((s) => s.trim()).includes("neo4j");

describe.each(withServer ? ["neo4j"] : [])("Neo4j backend on the test server (%s)", () => {
	let neo: Neo4jBackend;
	let lite: Backend;
	let dir: { path: string; cleanup(): void };

	async function openNeo4j(namespace = `test-${crypto.randomUUID()}`): Promise<Neo4jBackend> {
		return createNeo4jBackend(parseConfig({ backend: "neo4j", dbPath: ":memory:", neo4j: neo4jTestSettings() }), { namespace });
	}

	beforeEach(async () => {
		dir = makeTempDir("engrama-neo4j-parity-");
		lite = await createBackend(parseConfig({ backend: "sqlite", dbPath: join(dir.path, "memory.db") }));
		neo = await openNeo4j();
	});
	afterEach(async () => {
		await neo.graph.dropNamespace();
		await neo.graph.close();
		await lite.graph.close();
		dir.cleanup();
	});

	const merge = (label: string, key: string, set: Props, extra: Partial<MergeNodeInput> = {}): MergeNodeInput => ({
		label,
		keyField: label === "Decision" ? "title" : "name",
		key,
		set: { [label === "Decision" ? "title" : "name"]: key, ...set },
		setOnCreate: { engrama_id: crypto.randomUUID(), status: "active" },
		now: NOW,
		...extra,
	});

	/** The same writes on both backends; returns both results for comparison. */
	async function both(input: MergeNodeInput): Promise<[NodeRecord, NodeRecord]> {
		const a = await lite.graph.mergeNode(scope, input);
		const b = await neo.graph.mergeNode(scope, input);
		return [a.node, b.node];
	}

	it("round-trips props exactly as SQLite does: nulls, maps, mixed lists, marker-like strings, reserved names", async () => {
		const props: Props = {
			description: "Invoices for clients",
			confidence: 0.75,
			count: 3,
			done: false,
			tags: ["billing", "web"],
			empty: [],
			source_agent: null,
			extra: { nested: { list: [1, "two", null] } },
			mixed: ["a", 2],
			tricky: "\u0000json:{}",
			embedding: "not the vector",
			__internal_looking: "kept",
		};
		const [a, b] = await both(merge("Project", "Billing Portal", props));
		expect(b.props).toEqual(a.props);
		const [readA, readB] = [await lite.graph.getNode(scope, "Project", "Billing Portal"), await neo.graph.getNode(scope, "Project", "Billing Portal")];
		expect(readB?.props).toEqual(readA?.props);
		expect(readB?.props).toMatchObject(props);
		expect(readB).toMatchObject({ label: "Project", keyField: "name", key: "Billing Portal", createdAt: NOW, updatedAt: NOW });
	});

	it("merges, unsets and updates like SQLite, returning the previous props", async () => {
		const input = merge("Technology", "Python", { version: "3.12", notes: "scripting" });
		await both(input);
		const again = merge("Technology", "Python", { notes: "glue" }, { unset: ["version"], now: "2026-03-02T00:00:00.000Z" });
		const a = await lite.graph.mergeNode(scope, again);
		const b = await neo.graph.mergeNode(scope, again);
		expect(b.created).toBe(false);
		expect(b.previous).toEqual(a.previous);
		expect(b.node.props).toEqual(a.node.props);
		expect(b.node.props.version).toBeUndefined();
		expect(b.node.updatedAt).toBe("2026-03-02T00:00:00.000Z");
		expect(b.node.createdAt).toBe(NOW);

		const updatedA = await lite.graph.updateNode(scope, a.node.id, { status: "archived", note: null }, ["notes"], "2026-03-03T00:00:00.000Z");
		const updatedB = await neo.graph.updateNode(scope, b.node.id, { status: "archived", note: null }, ["notes"], "2026-03-03T00:00:00.000Z");
		expect(updatedB?.props).toEqual(updatedA?.props);
		expect(await neo.graph.updateNode(scope, crypto.randomUUID(), { a: 1 }, [], NOW)).toBeNull();
	});

	it("ranks fulltext hits in the same order as SQLite on a small corpus", async () => {
		const corpus: [string, string, Props][] = [
			["Concept", "Backpressure", { description: "slowing producers when consumers lag behind" }],
			["Concept", "Rate limiting", { description: "capping requests per client", tags: ["api", "throttle"] }],
			["Project", "Billing Portal", { description: "invoices and payments for clients", notes: "uses rate limiting" }],
			["Technology", "Kafka", { description: "a log for producers and consumers" }],
			["Decision", "Use Kafka for billing events", { rationale: "consumers replay the log" }],
			["Problem", "Flaky token refresh", { description: "clients lose sessions", owner: "Ana Pérez" }],
			["Concept", "Café culture", { summary: "naïve façade of productivity" }],
		];
		for (const [label, key, props] of corpus) await both(merge(label, key, props));
		for (const text of ["consumers", "clients rate", "kafka log producers", "cafe naive", "perez", "façade", "billing", "consum prod", "invoic cli"]) {
			for (const prefix of [false, true]) {
				const a = await lite.graph.fulltext(scope, { text, limit: 10, prefix });
				const b = await neo.graph.fulltext(scope, { text, limit: 10, prefix });
				expect(b.map((h) => [h.node.key, h.score.toFixed(10)]), `${text} prefix ${prefix}`).toEqual(a.map((h) => [h.node.key, h.score.toFixed(10)]));
			}
		}
		expect((await neo.graph.fulltext(scope, { text: "consum", limit: 10, prefix: true })).map((h) => h.node.key)).toContain("Backpressure");
		expect(await neo.graph.fulltext(scope, { text: "consum", limit: 10 })).toEqual([]);
		const labelled = await neo.graph.fulltext(scope, { text: "kafka", limit: 10, labels: ["Technology"] });
		expect(labelled.map((h) => h.node.key)).toEqual(["Kafka"]);
		expect(await neo.graph.fulltext(scope, { text: "kafka", limit: 10 }).then((h) => h.length)).toBe(2);
		expect(await neo.graph.fulltext({ orgId: "acme" }, { text: "kafka", limit: 10 })).toEqual([]);
	});

	it("refuses labels and relation types that are not plain identifiers before any Cypher runs", async () => {
		await expect(neo.graph.mergeNode(scope, merge("Project`) DETACH DELETE n //", "x", {}))).rejects.toBeInstanceOf(ValidationError);
		await expect(neo.graph.mergeNode(scope, merge("Engrama", "x", {}))).rejects.toBeInstanceOf(ValidationError);
		const a = await neo.graph.mergeNode(scope, merge("Project", "A", {}));
		const b = await neo.graph.mergeNode(scope, merge("Technology", "B", {}));
		await expect(
			neo.graph.mergeEdge(scope, { fromId: a.node.id, type: "USES]->() DETACH DELETE n //", toId: b.node.id, now: NOW }),
		).rejects.toBeInstanceOf(ValidationError);
		expect((await neo.graph.counts(scope)).nodes).toBe(2);
	});

	it("uses native labels and relationship types, and keeps edge props and timestamps like SQLite", async () => {
		const [pa, pb] = await both(merge("Project", "Billing Portal", {}));
		const [ta, tb] = await both(merge("Technology", "Python", {}));
		const edgeProps = { source: "cli", weight: 0.5, note: null };
		await lite.graph.mergeEdge(scope, { fromId: pa.id, type: "USES", toId: ta.id, props: edgeProps, now: NOW });
		expect(await neo.graph.mergeEdge(scope, { fromId: pb.id, type: "USES", toId: tb.id, props: edgeProps, now: NOW })).toEqual({ created: true });
		expect(await neo.graph.mergeEdge(scope, { fromId: pb.id, type: "USES", toId: tb.id, props: { weight: 1 }, now: "later" })).toEqual({ created: false });
		await lite.graph.mergeEdge(scope, { fromId: pa.id, type: "USES", toId: ta.id, props: { weight: 1 }, now: "later" });
		const [ea] = await lite.graph.edgesOf(scope, pa.id, "out");
		const [eb] = await neo.graph.edgesOf(scope, pb.id, "out");
		expect(eb.edge.props).toEqual(ea.edge.props);
		expect(eb.edge).toMatchObject({ type: "USES", createdAt: NOW, fromId: pb.id, toId: tb.id });
		expect((await neo.graph.edgesOf(scope, tb.id, "in"))[0]?.node.key).toBe("Billing Portal");
		const native = await neo.graph.conn.read((q) =>
			q.run("MATCH (p:Project:Engrama {__ns: $ns})-[r:USES]->(t:Technology) RETURN count(r) AS n", { ns: neo.graph.namespace }),
		);
		expect(native[0]?.n).toBe(1);
		expect(await neo.graph.deleteEdge(scope, pb.id, "USES", tb.id)).toBe(true);
		expect(await neo.graph.deleteEdge(scope, pb.id, "USES", tb.id)).toBe(false);
	});

	it("answers the bulk calls (mergeEdges, adjacency, listNodeFields) exactly as SQLite does", async () => {
		const nodes: NodeRecord[] = [];
		for (const [i, key] of ["Hub", "A", "B", "C", "D", "Gone"].entries()) {
			const [node] = await both(merge(i === 0 ? "Project" : "Concept", key, { description: `node ${key}`, tags: [key, "x"], weight: i }));
			nodes.push(node);
		}
		const [hub, a, b, c, d, gone] = nodes;
		const edges = [
			{ fromId: hub.id, type: "HAS", toId: a.id, now: NOW },
			{ fromId: hub.id, type: "HAS", toId: b.id, now: NOW, props: { note: "first" } },
			{ fromId: c.id, type: "RELATED_TO", toId: hub.id, now: NOW },
			{ fromId: hub.id, type: "HAS", toId: b.id, now: NOW, props: { note: "again" } },
			{ fromId: d.id, type: "RELATED_TO", toId: d.id, now: NOW },
			{ fromId: hub.id, type: "RELATED_TO", toId: gone.id, now: NOW },
			{ fromId: a.id, type: "RELATED_TO", toId: b.id, now: NOW },
		];
		expect(await neo.graph.mergeEdges?.(scope, edges)).toEqual(await lite.graph.mergeEdges?.(scope, edges));
		expect(await neo.graph.mergeEdges?.(scope, edges.slice(0, 2))).toEqual({ created: 0 });
		await lite.graph.mergeEdges?.(scope, edges.slice(0, 2));
		const missing = { fromId: hub.id, type: "HAS", toId: crypto.randomUUID(), now: NOW };
		await expect(neo.graph.mergeEdges?.(scope, [edges[0], missing])).rejects.toThrow(/target node .* does not exist/);
		await neo.graph.updateNode(scope, gone.id, { status: "archived" }, [], NOW);
		await lite.graph.updateNode(scope, gone.id, { status: "archived" }, [], NOW);
		for (const node of nodes) {
			const edgesA = (await lite.graph.edgesOf(scope, node.id, "both")).map((e) => e.edge);
			expect((await neo.graph.edgesOf(scope, node.id, "both")).map((e) => e.edge), node.key).toEqual(edgesA);
		}
		const ids = [...nodes.map((n) => n.id), "unknown"];
		for (const cap of [1, 2, 10]) {
			expect(await neo.graph.adjacency?.(scope, ids, cap), `cap ${cap}`).toEqual(await lite.graph.adjacency?.(scope, ids, cap));
			const along = { ids: [a.id, d.id, "unknown"], hops: 2 };
			expect(await neo.graph.adjacency?.(scope, [hub.id], cap, along), `cap ${cap}, along`).toEqual(await lite.graph.adjacency?.(scope, [hub.id], cap, along));
		}
		expect(await neo.graph.adjacency?.({ orgId: "acme" }, ids, 5)).toEqual(new Map());
		const fields = { fields: ["description", "tags", "weight", "status", "missing"] };
		for (const query of [{ ...fields }, { ...fields, label: "Concept", limit: 2, offset: 1 }, { ...fields, includeArchived: true, where: { description: "node B" } }]) {
			expect(await neo.graph.listNodeFields?.(scope, query), JSON.stringify(query)).toEqual(await lite.graph.listNodeFields?.(scope, query));
		}
	});

	it("rolls a transaction back as a whole, and reads inside it see its writes", async () => {
		const failing = neo.graph.transaction(async () => {
			await neo.graph.mergeNode(scope, merge("Project", "Half written", {}));
			expect(await neo.graph.getNode(scope, "Project", "Half written")).not.toBeNull();
			throw new Error("boom");
		});
		await expect(failing).rejects.toThrow("boom");
		expect(await neo.graph.getNode(scope, "Project", "Half written")).toBeNull();
		await neo.graph.transaction(async () => {
			await neo.graph.mergeNode(scope, merge("Project", "Whole", {}));
			await neo.graph.mergeNode(scope, merge("Project", "Also whole", {}));
		});
		expect((await neo.graph.counts(scope)).nodes).toBe(2);
	});

	it("declares, and behaves as declared, that a failed nested transaction keeps its writes (no savepoints)", async () => {
		expect(neo.graph.capabilities).toMatchObject({ atomicTransactions: true, durable: true, noSavepoints: true });
		expect(lite.graph.capabilities.noSavepoints ?? false).toBe(false);
		for (const store of [lite.graph, neo.graph]) {
			await store.transaction(async () => {
				const inner = store.transaction(async () => {
					await store.mergeNode(scope, merge("Project", "Inner", {}));
					throw new Error("inner step failed");
				});
				await expect(inner).rejects.toThrow("inner step failed");
				await store.mergeNode(scope, merge("Project", "Outer", {}));
			});
			expect(await store.getNode(scope, "Project", "Outer")).not.toBeNull();
			expect((await store.getNode(scope, "Project", "Inner")) !== null).toBe(store.capabilities.noSavepoints === true);
		}
	});

	it("keeps one node per (label, key, scope) when two connections MERGE it at once", async () => {
		const other = await createNeo4jBackend(parseConfig({ backend: "neo4j", dbPath: ":memory:", neo4j: neo4jTestSettings() }), {
			namespace: neo.graph.namespace,
		});
		try {
			const results = await Promise.all(
				Array.from({ length: 8 }, (_, i) => (i % 2 ? other : neo).graph.mergeNode(scope, merge("Concept", "Race", { [`p${i}`]: i }))),
			);
			expect(results.filter((r) => r.created)).toHaveLength(1);
			const node = await neo.graph.getNode(scope, "Concept", "Race");
			expect(Object.keys(node?.props ?? {}).filter((k) => /^p\d$/.test(k))).toHaveLength(8);
			expect((await neo.graph.counts(scope)).nodes).toBe(1);
		} finally {
			await other.graph.close();
		}
	});

	it("isolates namespaces: two memories in one database never see each other", async () => {
		const other = await openNeo4j();
		try {
			await neo.graph.mergeNode(scope, merge("Project", "Shared name", { description: "first memory" }));
			await other.graph.mergeNode(scope, merge("Project", "Shared name", { description: "second memory" }));
			expect((await neo.graph.getNode(scope, "Project", "Shared name"))?.props.description).toBe("first memory");
			expect((await other.graph.fulltext(scope, { text: "first", limit: 5 })).length).toBe(0);
			await other.graph.setMeta("k", "v2");
			expect(await neo.graph.getMeta("k")).toBeNull();
		} finally {
			await other.graph.dropNamespace();
			await other.graph.close();
		}
	});

	it("stores vectors on :Embedded nodes and answers k-NN with SQLite's similarities", async () => {
		const vectors = neo.vectors;
		const liteVectors = lite.vectors;
		if (!vectors || !liteVectors) throw new Error("both backends have vector stores by default");
		const unit = (angle: number) => Float32Array.from([Math.cos(angle), Math.sin(angle), 0, 0]);
		const ids: [string, string][] = [];
		for (let i = 0; i < 6; i++) {
			const [a, b] = await both(merge("Concept", `Angle ${i}`, {}));
			await liteVectors.upsert(scope, a.id, unit(i * 0.3));
			await vectors.upsert(scope, b.id, unit(i * 0.3));
			ids.push([a.id, b.id]);
		}
		expect(await vectors.dimensions()).toBe(4);
		const query = unit(0.65);
		const hitsA = await liteVectors.knn(scope, query, 3);
		const hitsB = await vectors.knn(scope, query, 3);
		const keyOfA = new Map(ids.map(([a], i) => [a, i]));
		const keyOfB = new Map(ids.map(([, b], i) => [b, i]));
		expect(hitsB.map((h) => keyOfB.get(h.nodeId))).toEqual(hitsA.map((h) => keyOfA.get(h.nodeId)));
		hitsB.forEach((h, i) => expect(h.similarity).toBeCloseTo(hitsA[i].similarity, 5));
		expect(await vectors.count(scope)).toBe(6);
		expect(await vectors.has(scope, [ids[0][1], "nope"])).toEqual(new Set([ids[0][1]]));
		expect(await vectors.delete(scope, [ids[0][1]])).toBe(1);
		expect(await vectors.count(scope)).toBe(5);
		await expect(vectors.upsert(scope, ids[1][1], new Float32Array(8))).rejects.toBeInstanceOf(ValidationError);
		expect(await vectors.knn({ orgId: "acme" }, query, 3)).toEqual([]);
		const labels = await neo.graph.conn.read((q) =>
			q.run("MATCH (n:Embedded:Concept {__ns: $ns}) RETURN count(n) AS n", { ns: neo.graph.namespace }),
		);
		expect(labels[0]?.n).toBe(5);
	});

	it("finds a small scope's vectors exactly even when other scopes crowd the index", async () => {
		const vectors = neo.vectors;
		if (!vectors) throw new Error("vector store expected");
		const crowd: Scope = { orgId: "acme", userId: "crowd" };
		for (let i = 0; i < 40; i++) {
			const { node } = await neo.graph.mergeNode(crowd, merge("Concept", `Crowd ${i}`, {}));
			await vectors.upsert(crowd, node.id, Float32Array.from([1, i / 1000, 0, 0]));
		}
		const { node } = await neo.graph.mergeNode(scope, merge("Concept", "Lonely", {}));
		await vectors.upsert(scope, node.id, Float32Array.from([0, 0, 1, 0]));
		const hits = await vectors.knn(scope, Float32Array.from([1, 0, 0, 0]), 2);
		expect(hits.map((h) => h.nodeId)).toEqual([node.id]);
		expect(hits[0].similarity).toBeCloseTo(0, 5);
	});
});
