import { afterEach, describe, expect, it } from "vitest";
import { fulltextProperties, nodeScopeWords } from "../../../src/backends/neo4j/fts-query";
import { NODE_RANK_WINDOW } from "../../../src/backends/neo4j/fulltext";
import type { Neo4jGraphStore } from "../../../src/backends/neo4j/neo4j-graph-store";
import type { Scope } from "../../../src/engine/types";
import type { OpenedMemory } from "../../../src/nodejs/open-memory";
import { testBackends } from "../../contracts/backends";
import { neo4jTestBackend } from "../../contracts/neo4j-backend";

const neo4j = testBackends().some((b) => b.name === "neo4j");

describe.runIf(neo4j)("Neo4j node fulltext: Lucene's window within the scope, ranked exactly", () => {
	let opened: OpenedMemory;
	afterEach(async () => opened?.close());

	it("other scopes never fill the window; archived nodes make it look further; the best match beyond the window comes first; labels keep Lucene to them, a rekey moves its words", async () => {
		opened = await neo4jTestBackend.open();
		const graph = opened.memory.graph as Neo4jGraphStore;
		const scope = opened.scope;
		const other: Scope = { orgId: scope.orgId, userId: `${scope.userId}-other` };
		const many = NODE_RANK_WINDOW + 50;
		// Nodes written straight into the store (many of them, quickly), with the columns and scope words writes give them.
		const make = async (s: Scope, prefix: string, status: string) => {
			const rows = Array.from({ length: many }, (_, i) => {
				const props = { name: `${prefix}${i}`, description: "lantern lantern lantern", status };
				return { key: props.name, props, ft: fulltextProperties(props), seq: i + 1 };
			});
			await graph.conn.write(
				(q) =>
					q.run(
						`UNWIND $rows AS r
						CREATE (n:Engrama:Concept {__ns: $ns, __label: 'Concept', __key: r.key, __key_field: 'name', org_id: $org, user_id: $user,
							engrama_id: randomUUID(), __seq: r.seq, created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z'})
						SET n += r.props, n += r.ft, n.__ft_scope = $words`,
						{ ns: graph.namespace, org: s.orgId, user: s.userId, rows, words: nodeScopeWords(graph.namespace, s.orgId, s.userId, "Concept") },
					),
				"test: many nodes",
			);
		};
		await make(other, "Theirs ", "active");
		const ctx = { scope, source: "cli" as const };
		const mine = (await opened.memory.remember(ctx, { label: "Concept", key: "Mine", props: { description: "a long text that mentions a lantern once among many other words here" } })).node;
		const ranking = async (text: string, s: Scope = scope, labels?: string[]) => {
			graph.conn.trace = "full";
			graph.conn.resetCounts();
			const found = await graph.fulltext(s, { text, limit: 5, labels });
			// The ranking statements: each asks Lucene for a window (after waiting for its pending updates).
			const log = graph.conn.resetCounts().statementsRun.filter((run) => run.query.includes("{limit: $window}"));
			graph.conn.trace = false;
			return { found: found.map((h) => h.node.key), rankings: log.length };
		};
		expect(await ranking("lantern")).toEqual({ found: ["Mine"], rankings: 1 });
		await make(scope, "Archived ", "archived");
		// Lucene's best of this scope are all archived: every candidate is ranked, the live one found.
		expect(await ranking("lantern")).toEqual({ found: ["Mine"], rankings: 2 });
		expect((await graph.fulltext(other, { text: "lantern", limit: 3 })).length).toBe(3);

		// More live matches than the window (the ones seen last by Lucene): the best by FTS5's bm25 (the word in its name, weight 8, and
		// four times in its description) is in Lucene's best and comes first.
		const third: Scope = { orgId: scope.orgId, userId: `${scope.userId}-third` };
		await make(third, "Live ", "active");
		await opened.memory.remember({ scope: third, source: "cli" }, { label: "Concept", key: "Lantern", props: { description: "lantern lantern lantern lantern" } });
		const wide = await ranking("lantern", third);
		expect(wide.rankings).toBe(1);
		expect(wide.found[0]).toBe("Lantern");
		expect(wide.found.slice(1).every((key) => key.startsWith("Live "))).toBe(true);
		expect(mine.key).toBe("Mine");
		// Labels asked for keep Lucene to them: the Concepts never fill the window of a search for Projects.
		const lighthouse = (await opened.memory.remember({ scope: third, source: "cli" }, { label: "Project", key: "Lighthouse", props: { description: "a lantern on a rock" } })).node;
		expect(await ranking("lantern", third, ["Project"])).toEqual({ found: ["Lighthouse"], rankings: 1 });
		// A node given another label (a note's type changed) is found under its new label only.
		await graph.rekeyNode(third, lighthouse.id, { label: "Decision", keyField: "name", key: "Lighthouse", now: "2026-01-02T00:00:00Z" });
		expect(await ranking("lantern", third, ["Project"])).toEqual({ found: [], rankings: 1 });
		expect(await ranking("lantern", third, ["Decision"])).toEqual({ found: ["Lighthouse"], rankings: 1 });
		expect((await ranking("lantern", third, ["Project", "Concept"])).found[0]).toBe("Lantern");
	}, 120_000);
});
