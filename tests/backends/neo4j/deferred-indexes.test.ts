import { afterEach, describe, expect, it } from "vitest";
import { nodeScopeWords } from "../../../src/backends/neo4j/fts-query";
import { postingScope } from "../../../src/backends/neo4j/names-history";
import { Neo4jGraphStore } from "../../../src/backends/neo4j/neo4j-graph-store";
import type { GraphStore, MergeNodeInput } from "../../../src/engine/backend-kit";
import type { Scope } from "../../../src/engine/types";
import { normaliseName, queryFragments } from "../../../src/engine/resolver/normalise";
import type { OpenedMemory } from "../../../src/nodejs/open-memory";
import { testBackends } from "../../contracts/backends";
import { neo4jTestBackend } from "../../contracts/neo4j-backend";

// A first sync leaves new nodes' search indexes (fulltext columns, name postings, term counts) to a
// pass after the load (mergeNodes with deferIndexes, then buildDeferredIndexes). What the pass
// builds must be what the batch path writes at once; until it runs no reader may see half of it
// (a pending node is in no index, and the counts do not count it); a write to a pending node, a
// delete, and a store opened after an interrupted load must all leave the same indexes.
const neo4j = testBackends().some((b) => b.name === "neo4j");
const NOW = "2026-03-01T00:00:00.000Z";
const ID = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;

const inputs: MergeNodeInput[] = [
	{ label: "Technology", keyField: "name", key: "PostgreSQL", set: { name: "PostgreSQL", description: "The relational database", aliases: ["Postgres", "pg"] }, setOnCreate: { engrama_id: ID(1) }, now: NOW },
	{ label: "Concept", keyField: "name", key: "Write-ahead log", set: { name: "Write-ahead log", notes: "durable commits", tags: ["db", "wal"] }, setOnCreate: { engrama_id: ID(2) }, now: NOW },
	{ label: "Decision", keyField: "title", key: "Use SQLite in WASM", set: { title: "Use SQLite in WASM", rationale: "one file, no native addon" }, setOnCreate: { engrama_id: ID(3) }, now: NOW },
	{ label: "Person", keyField: "name", key: "Ana María Núñez", set: { name: "Ana María Núñez", role: "maintainer" }, setOnCreate: { engrama_id: ID(4) }, now: NOW },
	{ label: "Project", keyField: "name", key: "Engrama", set: { name: "Engrama", description: "graph memory, relational too" }, setOnCreate: { engrama_id: ID(5) }, now: NOW },
	{ label: "Concept", keyField: "name", key: "Lantern", set: { name: "Lantern", description: "a relational lantern" }, setOnCreate: { engrama_id: ID(6) }, now: NOW },
];

/**
 * Every index a node write keeps in `scope`, by label and key (sequence numbers differ between
 * stores; postings must carry their node's, and their scope's key).
 */
async function indexes(graph: Neo4jGraphStore, scope: Scope): Promise<unknown> {
	const params = { ns: graph.namespace, key: postingScope(graph.namespace, scope), org: scope.orgId, user: scope.userId };
	const read = (query: string) => graph.conn.read((q) => q.run(query, params), "test: read the indexes");
	const nodes = await read(
		`MATCH (n:Engrama {__ns: $ns}) RETURN n.__label AS label, n.__key AS key, labels(n) AS labels, n.org_id AS org, n.user_id AS user,
		[k IN keys(n) WHERE k STARTS WITH '__ft_' AND k <> '__ft_scope' | [k, n[k]]] AS ft, n.__ft_scope AS scopeWords ORDER BY label, key`,
	);
	const postings = await read(
		`MATCH (p) WHERE (p:EngramaName OR p:EngramaFragment) AND p.scope = $key
		OPTIONAL MATCH (n:Engrama {__ns: $ns, engrama_id: p.node})
		RETURN n.__label AS label, n.__key AS key, n.org_id = $org AND n.user_id = $user AS ownScope, coalesce(p.norm, '') AS norm, coalesce(p.fragment, '') AS fragment, p.len AS len, p.seq = n.__seq AS ownSeq
		ORDER BY label, key, norm, fragment, len`,
	);
	const terms = await read("MATCH (t:EngramaTerm {__ns: $ns}) RETURN t.corpus AS corpus, t.key AS key, t.df AS df, t.len AS len ORDER BY corpus, key");
	return {
		nodes: nodes.map(({ org, user, scopeWords, ...r }) => ({
			...r,
			labels: (r.labels as string[]).sort(),
			ft: (r.ft as [string, unknown][]).sort(),
			scopeWords: scopeWords === nodeScopeWords(graph.namespace, String(org), String(user), String(r.label)),
		})),
		postings,
		terms: terms.map((r) => ({ ...r, df: Number(r.df), len: Number(r.len) })),
	};
}

async function candidates(graph: GraphStore, scope: OpenedMemory["scope"], name: string): Promise<string[]> {
	const normalised = normaliseName(name);
	return (await graph.nameCandidates(scope, { normalised, fragments: queryFragments(normalised), limit: 5 })).map((n) => n.key);
}

async function searchKeys(graph: GraphStore, scope: OpenedMemory["scope"], text: string): Promise<string[]> {
	return (await graph.fulltext(scope, { text, limit: 10 })).map((h) => h.node.key).sort();
}

describe.runIf(neo4j)("Neo4j: a bulk load's deferred search indexes", () => {
	const opened: OpenedMemory[] = [];
	afterEach(async () => {
		for (const o of opened.splice(0)) await o.close();
	});
	const open = async () => {
		const o = await neo4jTestBackend.open();
		opened.push(o);
		return { graph: o.memory.graph as Neo4jGraphStore, scope: o.scope };
	};

	it("are built, in pages, as the batch path writes them, after writes and a delete in between; readers see none of them before", async () => {
		const reference = await open();
		const deferred = await open();
		await reference.graph.mergeNodes(reference.scope, inputs);
		// The same results either way (the deferred ones are made without reading the nodes back).
		const loaded = await deferred.graph.mergeNodes(deferred.scope, inputs, { deferIndexes: true });
		const read = await Promise.all(inputs.map((i) => deferred.graph.getNode(deferred.scope, i.label, i.key)));
		expect(loaded.map((r) => ({ ...r.node, created: r.created }))).toEqual(read.map((n) => ({ ...n, created: true })));
		// Before the build: the nodes are there by key and id, and in no index; the counts are the empty memory's.
		expect(await deferred.graph.getNodeById(deferred.scope, ID(3))).not.toBeNull();
		expect(await searchKeys(deferred.graph, deferred.scope, "relational")).toEqual([]);
		expect(await candidates(deferred.graph, deferred.scope, "Postgres")).toEqual([]);
		expect(((await indexes(deferred.graph, deferred.scope)) as { terms: unknown[] }).terms).toEqual([]);
		// Writes to pending nodes (an update, a merge that changes the aliases, a re-key) and a delete, on both.
		for (const { graph, scope } of [reference, deferred]) {
			await graph.mergeNode(scope, { label: "Technology", keyField: "name", key: "PostgreSQL", set: { aliases: ["Postgres", "psql"] }, setOnCreate: {}, now: NOW });
			await graph.updateNode(scope, ID(5), { description: "graph memory for agents" }, [], NOW);
			await graph.rekeyNode(scope, ID(2), { label: "Concept", keyField: "name", key: "WAL", now: NOW });
			await graph.deleteNode(scope, ID(6));
		}
		// Those writes indexed their own nodes; the rest are still in no index.
		expect(await searchKeys(deferred.graph, deferred.scope, "relational")).toEqual(["PostgreSQL"]);
		expect(await candidates(deferred.graph, deferred.scope, "Ana Maria Nunez")).toEqual([]);
		let pages = 0;
		while (await deferred.graph.buildDeferredIndexes(1)) pages++;
		expect(pages).toBe(2);
		expect(await deferred.graph.buildDeferredIndexes(1)).toBe(false);
		expect(await indexes(deferred.graph, deferred.scope)).toEqual(await indexes(reference.graph, reference.scope));
		expect(await searchKeys(deferred.graph, deferred.scope, "native addon")).toEqual(["Use SQLite in WASM"]);
		expect(await candidates(deferred.graph, deferred.scope, "Ana Maria Nunez")).toContain("Ana María Núñez");
		expect(await candidates(deferred.graph, deferred.scope, "psql")).toContain("PostgreSQL");
	});

	it("are built when a store opens on a load that stopped before its build", async () => {
		const reference = await open();
		await reference.graph.mergeNodes(reference.scope, inputs);
		const stopped = await open();
		await stopped.graph.mergeNodes(stopped.scope, inputs, { deferIndexes: true });
		// The process goes away here; another opens the same memory (a store of its own: it wrote no pending node).
		const reopened = new Neo4jGraphStore(stopped.graph.conn, { namespace: stopped.graph.namespace });
		expect(await reopened.buildDeferredIndexes(100)).toBe(false);
		expect(await searchKeys(reopened, stopped.scope, "durable")).toEqual([]);
		await reopened.init();
		expect(await indexes(stopped.graph, stopped.scope)).toEqual(await indexes(reference.graph, reference.scope));
		expect(await searchKeys(stopped.graph, stopped.scope, "durable")).toEqual(["Write-ahead log"]);
	});
});
