import { afterEach, describe, expect, it } from "vitest";
import { Neo4jGraphStore } from "../../../src/backends/neo4j/neo4j-graph-store";
import { FRAGMENT_LABEL, NAME_INDEX, NAME_LABEL } from "../../../src/backends/neo4j/schema";
import { FULLTEXT_VERSION_KEY, upgradeFulltext } from "../../../src/backends/neo4j/upgrade";
import { normaliseName, queryFragments } from "../../../src/engine/resolver";
import type { Scope } from "../../../src/engine/types";
import type { OpenedMemory } from "../../../src/nodejs/open-memory";
import { testBackends } from "../../contracts/backends";
import { neo4jTestBackend } from "../../contracts/neo4j-backend";

const neo4j = testBackends().some((b) => b.name === "neo4j");

describe.runIf(neo4j)("Neo4j: the resolver's name index is one Lucene-indexed property per node", () => {
	let opened: OpenedMemory;
	afterEach(async () => opened?.close());

	const candidates = (graph: Neo4jGraphStore, scope: Scope, name: string) => {
		const normalised = normaliseName(name);
		return graph.nameCandidates(scope, { normalised, fragments: queryFragments(normalised), limit: 20 });
	};
	const postingNodes = async (graph: Neo4jGraphStore) => {
		const rows = await graph.conn.read((q) =>
			q.run(`MATCH (p) WHERE (p:${NAME_LABEL} OR p:${FRAGMENT_LABEL}) AND p.__ns = $ns RETURN count(p) AS n`, { ns: graph.namespace }),
		);
		return Number(rows[0].n);
	};

	it("writes no posting nodes: a node's names and fragments are words of its own, under an eventually consistent index", async () => {
		opened = await neo4jTestBackend.open();
		const graph = opened.memory.graph as Neo4jGraphStore;
		await opened.memory.remember({ scope: opened.scope, source: "cli" }, { label: "Technology", key: "PostgreSQL", props: { aliases: ["Postgres"] } });
		expect(await postingNodes(graph)).toBe(0);
		const rows = await graph.conn.read((q) =>
			q.run("MATCH (n:Engrama {__ns: $ns, __key: 'PostgreSQL'}) RETURN n.__names AS names, size(split(n.__name_grams, ' ')) AS words", { ns: graph.namespace }),
		);
		// 2 names; "postgresql" has 8 fragments, "postgres" 6 (of length 8, so distinct words).
		expect(rows[0]).toEqual({ names: ["postgresql", "postgres"], words: 2 + 8 + 6 });
		const index = await graph.conn.read((q) =>
			q.run("SHOW FULLTEXT INDEXES YIELD name, options WHERE name = $name RETURN options.indexConfig.`fulltext.eventually_consistent` AS eventual", { name: NAME_INDEX }),
		);
		expect(index).toEqual([{ eventual: true }]);
		expect((await candidates(graph, opened.scope, "postgres")).map((n) => n.key)).toEqual(["PostgreSQL"]);
	});

	it("inside a transaction finds the names it wrote, not the ones it replaced (Lucene holds only committed words)", async () => {
		opened = await neo4jTestBackend.open();
		const graph = opened.memory.graph as Neo4jGraphStore;
		const scope = opened.scope;
		const merge = (key: string, aliases: string[]) =>
			graph.mergeNode(scope, { label: "Technology", key, keyField: "name", set: { aliases }, setOnCreate: {}, now: "2026-01-01T00:00:00Z" });
		await merge("Kubernetes", ["k8s"]);
		await graph.transaction(async () => {
			await merge("Kafka Streams", []);
			await merge("Kubernetes", ["kube"]);
			expect((await candidates(graph, scope, "kafka streams")).map((n) => n.key)).toEqual(["Kafka Streams"]);
			expect((await candidates(graph, scope, "kafka stream")).map((n) => n.key)).toContain("Kafka Streams");
			expect((await candidates(graph, scope, "kube")).map((n) => n.key)).toEqual(["Kubernetes"]);
			expect((await candidates(graph, scope, "k8s")).map((n) => n.key)).toEqual([]);
		});
		expect((await candidates(graph, scope, "kafka streams")).map((n) => n.key)).toEqual(["Kafka Streams"]);
		expect((await candidates(graph, scope, "k8s")).map((n) => n.key)).toEqual([]);
	});

	it("format 6 at open: nodes written with posting nodes get their name words, and the postings go", async () => {
		opened = await neo4jTestBackend.open();
		const graph = opened.memory.graph as Neo4jGraphStore;
		const scope = opened.scope;
		for (const key of ["Redis", "Redis Cluster", "Memcached"]) await opened.memory.remember({ scope, source: "cli" }, { label: "Technology", key });
		// The memory as format 5 left it: no name words on the nodes, a posting node per name and fragment.
		await graph.conn.write(
			(q) =>
				q.run(
					`MATCH (n:Engrama {__ns: $ns}) REMOVE n.__names, n.__name_grams
					CREATE (:${NAME_LABEL} {__ns: $ns, org_id: n.org_id, user_id: n.user_id, node: n.engrama_id, seq: n.__seq, norm: toLower(n.__key), len: size(n.__key)})
					CREATE (:${FRAGMENT_LABEL} {__ns: $ns, org_id: n.org_id, user_id: n.user_id, node: n.engrama_id, seq: n.__seq, fragment: 'red', len: size(n.__key)})`,
					{ ns: graph.namespace },
				),
			"test: format 5",
		);
		await graph.setMeta(FULLTEXT_VERSION_KEY, "5");
		expect(await candidates(graph, scope, "redis")).toEqual([]);
		expect(await upgradeFulltext(graph.ctx)).toBe(3);
		expect(await postingNodes(graph)).toBe(0);
		expect((await candidates(graph, scope, "redis")).map((n) => n.key)).toEqual(["Redis", "Redis Cluster"]);
		expect((await candidates(graph, scope, "memcache")).map((n) => n.key)).toEqual(["Memcached"]);
		expect(await upgradeFulltext(graph.ctx)).toBe(0);
	});
});
