import { describe, expect, it } from "vitest";
import { testBackends } from "../../contracts/backends";
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
			"remember (new node)": [10, 1, 11],
			"remember (update)": [12, 1, 13],
			"remember (new, 2 inline relations)": [14, 1, 15],
			relate: [5, 1, 6],
			// Passages: their words (statistics with phrase counts, then the ranking) and their vectors: one
			// statement checks whether the scope holds a passage vector and asks the shared index only then
			// (whether that index exists depends on which test first wrote passage vectors; the count does
			// not); the words' statistics found no passage in this memory, so the ranking was not run.
			// Neighbour words (#38) read the words hits' neighbour lists before fusion: one statement,
			// which the graph rerank then finds cached (8 before them).
			"search (default: hybrid + graph)": [9, 0, 9],
			"search (fulltext)": [2, 0, 2],
			"context (2 hops)": [4, 0, 4],
			// Passages: every note of a batch in one statement; a full sync first asks whether the memory
			// has passages at all (one from before them gets them), and the edited note, whose engrama_id
			// the edit dropped, has its sections written again with the lines the id write shifted.
			"sync: first sync of 20 notes": [5, 4, 9],
			"sync: one edited note": [14, 5, 19],
			// Node words (statistics, ranking), passage words (statistics, ranking: the hits' nodes come
			// with them), the graph rerank's neighbours.
			"search (notes with passages)": [5, 0, 5],
			// Its Insights are written without a read of each first (119 before).
			"reflect (fixture, all detectors)": [99, 1, 100],
		});
		// Every statement finds its nodes through an index, an id or a procedure: none scans the
		// :Engrama label (every memory of the database) or the store. A reflect detector may start
		// from a relation type's lookup index when the planner finds that cheaper.
		const scans = rows.flatMap((r) => r.plans.filter((p) => p.plan.some((op) => /^(AllNodesScan|NodeByLabelScan)/.test(op))).map((p) => `${r.verb}: ${p.statement}\n  ${p.plan.join("\n  ")}`));
		expect(scans).toEqual([]);
	}, 600_000);
});
