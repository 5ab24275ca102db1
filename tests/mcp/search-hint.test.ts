import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterEach, describe, expect, it } from "vitest";
import type { FulltextQuery, GraphStore } from "../../src/engine/protocols";
import type { PartialScope } from "../../src/engine/types";
import { makeTempDir } from "../helpers/temp-dir";
import { connectClient, ok, startBridge, textOf, call, type Bridge } from "./mcp-harness";

/** Counts the real SQLite store's reads that the proactive hint makes (the store itself answers). */
function countReads(graph: GraphStore): { fulltext: string[]; edgesOf: number } {
	const counts = { fulltext: [] as string[], edgesOf: 0 };
	const fulltext = graph.fulltext.bind(graph);
	const edgesOf = graph.edgesOf.bind(graph);
	graph.fulltext = (scope: PartialScope, query: FulltextQuery) => {
		counts.fulltext.push(query.labels?.join(",") || "any");
		return fulltext(scope, query);
	};
	graph.edgesOf = (...args: Parameters<GraphStore["edgesOf"]>) => {
		counts.edgesOf++;
		return edgesOf(...args);
	};
	return counts;
}

describe("engrama_search's proactive hint", () => {
	let dir: ReturnType<typeof makeTempDir> | undefined;
	let bridge: Bridge | undefined;
	let client: Client | undefined;
	afterEach(async () => {
		await client?.close();
		await bridge?.close();
		dir?.cleanup();
	});

	it("is computed once per search, by Memory.search, and costs no fulltext read without pending Insights", async () => {
		dir = makeTempDir("engrama-hint-");
		bridge = await startBridge({ dir: dir.path, embedder: null });
		client = await connectClient(bridge.url, bridge.token);
		for (const name of ["Billing Portal", "Invoice Service", "Refund Worker"]) {
			await ok(client, "engrama_remember", { label: "Project", properties: { name, summary: "Billing work." }, relations: { USES: ["Python"], APPLIES: ["Idempotency"] } });
		}

		// A first search counts how rare the named node's words are (name-rarity.ts; kept 60 s):
		// the reads below are those of a search once that is known.
		await ok(client, "engrama_search", { query: "Idempotency billing" });
		const reads = countReads(bridge.opened.stores.graph);
		await ok(client, "engrama_search", { query: "Idempotency billing" });
		// No pending Insight: the search's own fulltext read only.
		expect(reads).toEqual({ fulltext: ["any"], edgesOf: 0 });

		await ok(client, "engrama_reflect");
		reads.fulltext.length = 0;
		reads.edgesOf = 0;
		const result = await call(client, "engrama_search", { query: "Idempotency billing" });
		const hint = (result.structuredContent as { proactive_hint?: string }).proactive_hint;
		expect(hint).toMatch(/pending Insights? relates? to this search/);
		expect(textOf(result)).toContain(hint);
		// One hint: one fulltext read over the Insights, and the edges of the search's top results
		// (at most five) instead of a second fulltext read.
		expect(reads.fulltext).toEqual(["any", "Insight"]);
		expect(reads.edgesOf).toBeLessThanOrEqual(5);
	});
});
