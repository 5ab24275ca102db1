import { afterEach, describe, expect, it } from "vitest";
import { WIDE_FROM } from "../../../src/backends/neo4j/fulltext";
import type { Neo4jGraphStore } from "../../../src/backends/neo4j/neo4j-graph-store";
import type { Scope } from "../../../src/engine/types";
import type { OpenedMemory } from "../../../src/nodejs/open-memory";
import { testBackends } from "../../contracts/backends";
import { neo4jTestBackend } from "../../contracts/neo4j-backend";

const neo4j = testBackends().some((b) => b.name === "neo4j");

describe.runIf(neo4j)("Neo4j node fulltext: Lucene asked without the scope's word for words in many documents", () => {
	let opened: OpenedMemory;
	afterEach(async () => opened?.close());

	it("ranks the same window as the scoped query when only the scope holds the words; another scope's match makes it ask scoped, then only scoped", async () => {
		opened = await neo4jTestBackend.open();
		const graph = opened.memory.graph as Neo4jGraphStore;
		const scope = opened.scope;
		const other: Scope = { orgId: scope.orgId, userId: `${scope.userId}-other` };
		// Words no other test's documents hold, so the unscoped window is this memory's alone.
		const mine = `glint${Date.now()}`;
		const theirs = `spark${Date.now()}`;
		for (let i = 0; i < 6; i++) {
			const description = `${Array.from({ length: i + 1 }, () => mine).join(" ")} ${"filler ".repeat(i * 2)}`;
			await opened.memory.remember({ scope, source: "cli" }, { label: "Concept", key: `Glint ${i}`, props: { description } });
		}
		await opened.memory.remember({ scope: other, source: "cli" }, { label: "Concept", key: "Theirs", props: { description: `${theirs} ${mine}x` } });
		// The statistics of a large memory: both words in WIDE_FROM more documents (only bm25's numbers change, alike for both queries).
		await graph.ctx.write(
			(q) =>
				q.run(
					`MATCH (t:EngramaTerm {__ns: $ns, corpus: 'nodes'}) WHERE t.key IN [$mine, $theirs, '']
					SET t.df = t.df + CASE t.key WHEN '' THEN 20 * $more ELSE $more END, t.len = t.len + CASE t.key WHEN '' THEN 200 * $more ELSE 0 END`,
					{ ns: graph.namespace, mine, theirs, more: WIDE_FROM },
				),
			"test: a large memory's counts",
		);
		// One ranking statement a search; whether it asked Lucene wide first, the store counts.
		const ranking = async (text: string) => {
			graph.conn.trace = "full";
			graph.conn.resetCounts();
			const asked = graph.ctx.ftWideAsked;
			const found = await graph.fulltext(scope, { text, limit: 5 });
			const runs = graph.conn.resetCounts().statementsRun.filter((run) => run.query.includes("{limit: $window}"));
			graph.conn.trace = false;
			return { found: found.map((h) => [h.node.key, h.score]), statements: runs.length, wide: graph.ctx.ftWideAsked - asked === 1 };
		};
		const wide = await ranking(mine);
		expect(wide).toMatchObject({ statements: 1, wide: true });
		expect(wide.found.map(([key]) => key)).toEqual(["Glint 5", "Glint 4", "Glint 3", "Glint 2", "Glint 1"]);
		// The other scope's document fills the unscoped window: the scoped query answers (nothing of theirs), and the store stops asking wide.
		expect(await ranking(theirs)).toEqual({ found: [], statements: 1, wide: true });
		const scoped = await ranking(mine);
		expect(scoped).toMatchObject({ statements: 1, wide: false });
		expect(scoped.found).toEqual(wide.found);
	}, 120_000);
});
