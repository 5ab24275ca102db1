import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { feedbackTerms } from "../../src/engine/search/feedback";
import { HybridSearch, type SearchSettings } from "../../src/engine/search/hybrid-search";
import type { WriteContext } from "../../src/engine/write/write-pipeline";
import type { OpenedMemory } from "../../src/nodejs/open-memory";
import { testBackends } from "./backends";

// Pseudo-relevance feedback: the words the best hits share find an item that shares no word with
// the query, on every backend.
describe.each(testBackends())("pseudo-relevance feedback on $name", (backend) => {
	let opened: OpenedMemory;
	let ctx: WriteContext;

	beforeEach(async () => {
		opened = await backend.open();
		ctx = { scope: opened.scope, source: "cli" };
		const items: [string, string][] = [
			["Group night", "Caroline went to the LGBTQ support group, where transgender stories gave her courage"],
			["Group again", "At the support group she heard more transgender stories and found courage"],
			["Library visit", "She read transgender stories of courage at the library"],
			["Running", "A running group met at the park"],
			["Lake", "Melanie painted a lake at sunrise"],
		];
		for (const [key, description] of items) await opened.memory.remember(ctx, { label: "Concept", key, props: { description } });
	});
	afterEach(async () => {
		await opened.close();
	});

	const search = (settings: Partial<SearchSettings>) => {
		const { memory, scope } = opened;
		return new HybridSearch({ graph: memory.graph, vectors: null, embedder: null, clock: memory.clock, settings }).search(scope, "support group");
	};

	it("finds an item sharing no query word through the words the best hits share, and says so in its signals", async () => {
		const off = await search({ feedbackDocs: 0 });
		expect(off.hits.map((h) => h.node.key)).not.toContain("Library visit");
		expect(off.hits.every((h) => h.signals.feedbackRank === undefined)).toBe(true);

		const on = await search({ feedbackDocs: 2, feedbackTerms: 5, feedbackWeight: 0.5 });
		const library = on.hits.find((h) => h.node.key === "Library visit");
		expect(library).toBeDefined();
		expect(library?.signals.fulltext).toBe(0);
		expect(library?.signals.feedbackRank).toBeGreaterThanOrEqual(1);
		// Found by the query's own words, the two group nights stay first.
		expect(on.hits.slice(0, 2).map((h) => h.node.key).sort()).toEqual(["Group again", "Group night"]);
		expect(on.hits.map((h) => h.node.key)).not.toContain("Lake");
	});
});

describe("feedbackTerms", () => {
	const node = (key: string, description: string) => ({ id: key, label: "Concept", keyField: "name" as const, key, props: { description }, createdAt: "", updatedAt: "" });

	it("keeps words two feedback items share, not the query's own, not words every candidate has", () => {
		const a = node("a", "support group: transgender stories, really great");
		const b = node("b", "the support group told transgender stories, really");
		const c = node("c", "really nice running group");
		const d = node("d", "really, a group of friends");
		const terms = feedbackTerms("support group", [a, b], [a, b, c, d], 5);
		expect(terms.slice(0, 2).sort()).toEqual(["stor", "transgender"]);
		expect(terms).not.toContain("support");
		expect(terms).not.toContain("group");
		// "really" is in every candidate: it scores below the words only the feedback items share.
		expect(terms.indexOf("really")).toBeGreaterThan(terms.indexOf("transgender"));
		expect(feedbackTerms("support group", [], [a], 5)).toEqual([]);
	});
});
