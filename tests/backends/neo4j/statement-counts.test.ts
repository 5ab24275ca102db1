import { describe, expect, it } from "vitest";
import { Neo4jGraphStore } from "../../../src/backends/neo4j/neo4j-graph-store";
import { testBackends } from "../../contracts/backends";
import { neo4jTestBackend } from "../../contracts/neo4j-backend";
import { countVerbs, countsTable } from "./verb-counts";

// How many Cypher statements, transactions and round trips each verb costs on Neo4j. A count is
// behaviour (a verb that starts reading node by node would fail here), not timing.
const neo4j = testBackends().some((b) => b.name === "neo4j");

describe.runIf(neo4j)("Cypher per verb on Neo4j", () => {
	it("costs each verb the pinned number of statements and round trips", async () => {
		const rows = await countVerbs();
		console.log(countsTable(rows));
		if (process.env.ENGRAMA_COUNTS_LOG) {
			for (const r of rows) console.log(`${r.verb}:\n  ${r.log.join("\n  ")}`);
			for (const r of rows) for (const p of r.plans) console.log(`PLAN ${r.verb}: ${p.statement}\n  ${p.plan.filter((op) => /Seek|Scan|ProcedureCall|Expand/.test(op)).join("\n  ")}`);
		}
		// [statements, transactions, round trips]; docs/archive/benchmarks-neo4j-history.md has the table before and after.
		expect(Object.fromEntries(rows.map((r) => [r.verb, [r.statements, r.transactions, r.roundTrips]]))).toEqual({
			// A node write carries its vector in the MERGE statement (no upsert statement after it): one
			// statement and one round trip less per node written (12, 14, 18 before). A stub, as any node
			// write that brings no stored node, is tried as new without reading first (16 before).
			// A fulltext search reads its words' counts inside its ranking statement (a statement before it
			// for words not seen in 30 s, before): the suggestions' search after the write is one statement (11, 13 before).
			"remember (new node)": [9, 1, 10],
			"remember (update)": [11, 1, 12],
			"remember (new, 2 inline relations)": [14, 1, 15],
			relate: [5, 1, 6],
			// Passages: their words (statistics with phrase counts, then the ranking) and their vectors: one
			// statement checks whether the scope holds a passage vector and asks the shared index only then
			// (whether that index exists depends on which test first wrote passage vectors; the count does
			// not); the words' statistics found no passage in this memory, so the ranking was not run.
			// Neighbour words (#38) read the words hits' neighbour lists before fusion: one statement,
			// which the graph rerank then finds cached. The walk's second hop and the vector candidates'
			// lists come in that statement (ChainWalk: the graph rerank read the vector candidates' lists
			// after it, one more). The words' counts are read in the ranking statements (the counts of
			// words the search had not seen in 30 s were one statement before them, one more).
			"search (default: hybrid + graph)": [7, 0, 7],
			"search (fulltext)": [1, 0, 1],
			"context (2 hops)": [4, 0, 4],
			// Passages: every note of a batch in one statement; a full sync first asks whether the memory
			// has passages at all (one from before them gets them), and the edited note, whose engrama_id
			// the edit dropped, has its sections written again with the lines the id write shifted. The
			// notes' search indexes are built after the load (deferred-indexes.ts): nodes locked and read,
			// their words, their name postings, the term counts.
			"sync: first sync of 20 notes": [9, 4, 13],
			"sync: one edited note": [14, 5, 19],
			// Node words, passage words (the hits' nodes come with them; each ranking statement reads its
			// words' counts: 5 before), the graph rerank's neighbours.
			"search (notes with passages)": [3, 0, 3],
			// Its Insights are written without a read of each first (119 before).
			"reflect (fixture, all detectors)": [99, 1, 100],
		});
		// Every statement finds its nodes through an index, an id or a procedure: none scans the
		// :Engrama label (every memory of the database) or the store. A reflect detector may start
		// from a relation type's lookup index when the planner finds that cheaper.
		const scans = rows.flatMap((r) => r.plans.filter((p) => p.plan.some((op) => /^(AllNodesScan|NodeByLabelScan)/.test(op))).map((p) => `${r.verb}: ${p.statement}\n  ${p.plan.join("\n  ")}`));
		expect(scans).toEqual([]);
	}, 600_000);

	it("reads the items neighbour words raise in one statement, not one per item", async () => {
		const opened = await neo4jTestBackend.open();
		try {
			const graph = opened.memory.graph;
			if (!(graph instanceof Neo4jGraphStore)) throw new Error("needs the Neo4j store");
			const ctx = { scope: opened.scope, source: "cli" } as const;
			// A conversation of 12 turns in a chain; every third says "lake", the others are raised by it.
			for (let i = 1; i <= 12; i++) {
				await opened.memory.remember(ctx, { label: "Concept", key: `Turn ${i}`, props: { description: i % 3 === 1 ? "the lake at dawn" : `small talk ${i}` } });
				if (i > 1) await opened.memory.relate(ctx, { label: "Concept", key: `Turn ${i - 1}` }, "RELATED_TO", { label: "Concept", key: `Turn ${i}` });
			}
			await opened.memory.search(opened.scope, "lake");
			graph.conn.trace = "full";
			graph.conn.resetCounts();
			const found = (await opened.memory.search(opened.scope, "lake", { limit: 12 })).results.map((r) => r.name);
			const statements = graph.conn.resetCounts().statementsRun.map((s) => s.query.trim().replace(/\s+/g, " "));
			graph.conn.trace = false;
			// Turns 2, 3, 5, 6, … hold no word of the query: their neighbours' words found them.
			expect(found).toEqual(expect.arrayContaining(["Turn 2", "Turn 3", "Turn 5", "Turn 6", "Turn 8", "Turn 9", "Turn 11", "Turn 12"]));
			expect(statements.filter((q) => q.startsWith("MATCH (n:Engrama {__ns: $ns, engrama_id: $id})"))).toEqual([]);
			expect(statements.filter((q) => q.startsWith("UNWIND $ids AS id MATCH (n:Engrama {__ns: $ns, engrama_id: id}) WHERE n.__ns = $ns AND n.org_id = $org AND n.user_id = $user RETURN id"))).toHaveLength(1);
			// The neighbour lists the walk loads (the hits' and the next turns') and the vector
			// candidates' in one statement; the turns two away, raised into the page here, in a second
			// (three before: one per hop, then the page's).
			expect(statements.filter((q) => q.includes("collect(o) AS linked"))).toHaveLength(2);
		} finally {
			await opened.close();
		}
	}, 120_000);
});
