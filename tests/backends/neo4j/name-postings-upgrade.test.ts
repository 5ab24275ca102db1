import { afterEach, describe, expect, it } from "vitest";
import { postingScope } from "../../../src/backends/neo4j/names-history";
import { Neo4jGraphStore } from "../../../src/backends/neo4j/neo4j-graph-store";
import { NAMES_VERSION, NAMES_VERSION_KEY } from "../../../src/backends/neo4j/upgrade";
import { normaliseName, queryFragments } from "../../../src/engine/resolver/normalise";
import type { PartialScope } from "../../../src/engine/types";
import type { OpenedMemory } from "../../../src/nodejs/open-memory";
import { testBackends } from "../../contracts/backends";
import { neo4jTestBackend } from "../../contracts/neo4j-backend";

const neo4j = testBackends().some((b) => b.name === "neo4j");
const OTHER = { orgId: "other-org", userId: "other-user" };

describe.runIf(neo4j)("Neo4j: name postings of the layout before the scope key are made again at open", () => {
	let opened: OpenedMemory;
	afterEach(async () => opened?.close());

	it("finds the same candidates after the upgrade, leaves no old posting, and does it once", async () => {
		opened = await neo4jTestBackend.open();
		const graph = opened.memory.graph as Neo4jGraphStore;
		const ctx = { scope: opened.scope, source: "cli" as const };
		await opened.memory.remember(ctx, { label: "Technology", key: "Kubernetes", props: { aliases: ["k8s", "kube"] } });
		await opened.memory.remember(ctx, { label: "Technology", key: "PostgreSQL", props: { aliases: ["Postgres"] } });
		await opened.memory.remember(ctx, { label: "Concept", key: "Post-mortem" });
		await opened.memory.remember({ scope: OTHER, source: "cli" }, { label: "Technology", key: "Kafka" });
		const candidates = async (name: string, scope: PartialScope = opened.scope) => {
			const normalised = normaliseName(name);
			return (await graph.nameCandidates(scope, { normalised, fragments: queryFragments(normalised), limit: 10 })).map((n) => n.key);
		};
		const queries: [string, PartialScope][] = [["k8s", opened.scope], ["postgress", opened.scope], ["post mortem", opened.scope], ["kafka", OTHER], ["kafka", opened.scope]];
		const before = await Promise.all(queries.map(([q, s]) => candidates(q, s)));
		expect(before[0]).toEqual(["Kubernetes"]);
		expect(before[3]).toEqual(["Kafka"]);
		expect(before[4]).toEqual([]);

		// The memory as an earlier version wrote it: postings by __ns, org_id and user_id, names with their
		// length, no layout recorded; and a posting whose node is gone.
		const keys = [postingScope(graph.namespace, opened.scope), postingScope(graph.namespace, OTHER)];
		await graph.conn.write(
			(q) =>
				q.run(
					`MATCH (p) WHERE (p:EngramaName OR p:EngramaFragment) AND p.scope IN $keys
					MATCH (n:Engrama {__ns: $ns, engrama_id: p.node})
					SET p.__ns = $ns, p.org_id = n.org_id, p.user_id = n.user_id, p.len = coalesce(p.len, size(p.norm)) REMOVE p.scope
					WITH count(*) AS moved
					CREATE (:EngramaFragment {__ns: $ns, org_id: $org, user_id: $user, node: 'gone', seq: 1, fragment: 'kub', len: 10})
					WITH moved MATCH (m:EngramaMeta {__ns: $ns, key: $key}) DELETE m`,
					{ ns: graph.namespace, keys, org: opened.scope.orgId, user: opened.scope.userId, key: NAMES_VERSION_KEY },
				),
			"test: the old layout",
		);
		expect(await candidates("k8s")).toEqual([]);

		const reopened = new Neo4jGraphStore(graph.conn, { namespace: graph.namespace });
		await reopened.init();
		expect(await Promise.all(queries.map(([q, s]) => candidates(q, s)))).toEqual(before);
		const left = await graph.conn.read(
			(q) =>
				q.run(
					`CALL { MATCH (p) WHERE (p:EngramaName OR p:EngramaFragment) AND p.__ns = $ns RETURN count(p) AS old }
					CALL { MATCH (p) WHERE (p:EngramaName OR p:EngramaFragment) AND p.scope IN $keys RETURN count(p) AS new, count(p.len) AS sized, count(p.org_id) AS scoped }
					MATCH (m:EngramaMeta {__ns: $ns, key: $key}) RETURN old, new, sized, scoped, m.value AS version`,
					{ ns: graph.namespace, keys, key: NAMES_VERSION_KEY },
				),
			"test: the postings",
		);
		// Names carry no length any more: only the fragments are sized.
		const fragments = await graph.conn.read((q) => q.run("MATCH (p:EngramaFragment) WHERE p.scope IN $keys RETURN count(p) AS n", { keys }), "test");
		expect(left[0]).toMatchObject({ old: 0, sized: fragments[0].n, scoped: 0, version: String(NAMES_VERSION) });
		expect(Number(left[0].new)).toBeGreaterThan(Number(fragments[0].n));

		// Recorded: the next open makes none again.
		const conn = graph.conn;
		conn.trace = true;
		conn.resetCounts();
		await new Neo4jGraphStore(conn, { namespace: graph.namespace }).init();
		const log = conn.resetCounts().log;
		conn.trace = false;
		expect(log.filter((s) => s.includes("CREATE (:EngramaFragment"))).toEqual([]);
	});
});
