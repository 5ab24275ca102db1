import { describe, expect, it } from "vitest";
import { fts5Query, queryTerms } from "../../../src/backends/sqlite/fts-query";

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

	it("keeps unicode words, lower-cases and deduplicates them", () => {
		expect(queryTerms("Café CAFÉ naïve 東京 emoji🙂")).toEqual(["café", "naïve", "東京", "emoji"]);
	});

	it("bounds the number of terms of a huge query", () => {
		expect(queryTerms(Array.from({ length: 5000 }, (_, i) => `w${i}`).join(" "))).toHaveLength(32);
	});

	it("lets common words only rank documents matched by rarer words", () => {
		const df = new Map([
			["the", 9000],
			["oauth", 12],
			["refresh", 40],
		]);
		expect(fts5Query("the oauth refresh", df, 500)).toBe(`"oauth" OR "refresh" OR ("the") AND ("oauth" OR "refresh")`);
		expect(fts5Query("the", df, 500)).toBe(`"the"`);
	});
});
