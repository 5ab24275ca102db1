import { describe, expect, it } from "vitest";
import { bm25Bound, bm25Idf, fts5Query, planFulltext, queryTerms } from "../../../src/backends/sqlite/fts-query";

describe("fts5Query", () => {
	it("quotes every word so FTS5 operators and punctuation are searched as text", () => {
		expect(fts5Query(`title:"foo" AND bar* NEAR(x) ^baz -qux`)).toBe(
			`"title" OR "foo" OR "and" OR "bar" OR "near" OR "x" OR "baz" OR "qux"`,
		);
	});

	it("returns null when nothing searchable is left", () => {
		expect(fts5Query(`"" '' ** () -- ;;`)).toBeNull();
		expect(fts5Query("")).toBeNull();
	});

	it("makes prefix phrases of words of four or more characters only", () => {
		expect(fts5Query("research the oauth", true)).toBe(`"research"* OR "the" OR "oauth"*`);
	});

	it("keeps unicode words, lower-cases and deduplicates them", () => {
		expect(queryTerms("Café CAFÉ naïve 東京 emoji🙂")).toEqual(["café", "naïve", "東京", "emoji"]);
	});

	it("bounds the number of terms of a huge query", () => {
		expect(queryTerms(Array.from({ length: 5000 }, (_, i) => `w${i}`).join(" "))).toHaveLength(32);
	});
});

describe("planFulltext", () => {
	const stats = (entries: [string, number][]) => new Map(entries.map(([t, n]) => [t, { postings: n, docs: n }]));

	it("scores every weighted word exactly when their postings fit the budget", () => {
		const plan = planFulltext(["oauth", "refresh"], stats([["oauth", 12], ["refresh", 40]]), 10_000, 100);
		expect(plan.rare).toEqual([`"oauth"`, `"refresh"`]);
		expect(plan.common).toEqual([]);
	});

	it("keeps the rarest words within the budget and bounds what the others can add", () => {
		const plan = planFulltext(
			["cache", "token", "oauth", "refresh"],
			stats([["cache", 3000], ["token", 900], ["oauth", 12], ["refresh", 40]]),
			10_000,
			100,
		);
		expect(plan.rare).toEqual([`"oauth"`, `"refresh"`]);
		expect(plan.common).toEqual([`"token"`, `"cache"`]);
		expect(plan.weightless).toEqual([]);
		expect(plan.commonBound).toBeCloseTo(bm25Bound(900, 10_000) + bm25Bound(3000, 10_000), 12);
	});

	it("treats words in half the documents or more as weightless, as FTS5's idf floor does", () => {
		expect(bm25Idf(5000, 10_000)).toBe(1e-6);
		expect(bm25Idf(4000, 10_000)).toBeGreaterThan(0.4);
		const plan = planFulltext(["the", "oauth"], stats([["the", 6000], ["oauth", 12]]), 10_000, 100);
		expect(plan.weightless).toEqual([`"the"`]);
		expect(plan.rare).toEqual([`"oauth"`]);
		expect(plan.commonBound).toBeLessThan(1e-5);
	});

	it("plans a query of only common words with no rare pass", () => {
		const plan = planFulltext(["cache", "queue"], stats([["cache", 3000], ["queue", 2000]]), 10_000, 500);
		expect(plan.rare).toEqual([]);
		expect(plan.common).toEqual([`"queue"`, `"cache"`]);
	});
});
