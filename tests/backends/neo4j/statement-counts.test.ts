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
		if (process.env.ENGRAMA_COUNTS_LOG) for (const r of rows) console.log(`${r.verb}:\n  ${r.log.join("\n  ")}`);
	}, 600_000);
});
