import { afterEach, describe, expect, it } from "vitest";
import { keywordQuery, stem, stemmedKeywordQuery } from "../../../src/engine/search/query-text";
import { openSearchMemory, type SearchMemory } from "./search-fixture";

describe("fulltext query text", () => {
	it("drops English and Spanish function words, unless nothing else is left", () => {
		expect(keywordQuery("What did Caroline research?")).toBe("caroline research");
		expect(keywordQuery("¿Qué decisión tomamos sobre la base de datos?")).toBe("decisión tomamos base datos");
		expect(keywordQuery("what is it")).toBe("what is it");
		expect(keywordQuery("")).toBe("");
		// A Thai tone mark stays in its word (the note's word is "ตะไคร้", lemongrass).
		expect(keywordQuery("ตะไคร้")).toBe("ตะไคร้");
	});

	it("cuts inflections to a stem of at least four letters that starts every form", () => {
		expect(stem("researching")).toBe("research");
		expect(stem("painted")).toBe("paint");
		expect(stem("families")).toBe("famil");
		expect(stem("invoices")).toBe("invoic");
		expect(stem("kids")).toBe("kids");
		expect(stem("class")).toBe("class");
		expect(stem("status")).toBe("status");
		expect(stem("analysis")).toBe("analysis");
		expect(stem("2024s")).toBe("2024s");
		expect(stem("programando")).toBe("programando".slice(0, -4));
		expect(stemmedKeywordQuery("Which invoices were painted painting?")).toBe("invoic paint");
	});
});

describe("prefix matching in the fulltext channel", () => {
	let m: SearchMemory;
	afterEach(async () => {
		await m.close();
	});

	it("finds inflected forms through stems, on by default and off by setting", async () => {
		m = await openSearchMemory();
		await m.remember("Concept", "Adoption", { description: "Researching adoption agencies for the family" });
		await m.remember("Concept", "Pottery", { description: "signed up for a pottery class" });
		const found = await m.memory.search(m.scope, "What did she research about families?");
		expect(found.results.map((r) => r.name)).toEqual(["Adoption"]);
		await m.memory.close();
		const exact = await openSearchMemory({ dbPath: m.dbPath, search: { fulltextPrefix: false } });
		try {
			expect((await exact.memory.search(exact.scope, "What did she research about families?")).results).toEqual([]);
		} finally {
			// Closes the reopened file; afterEach then removes the folder (closing twice is harmless).
			await exact.memory.close();
		}
	});

	it("keeps short words exact", async () => {
		m = await openSearchMemory();
		await m.remember("Concept", "Artist", { description: "an artist" });
		await m.remember("Concept", "Art", { description: "art" });
		expect((await m.memory.search(m.scope, "art")).results.map((r) => r.name)).toEqual(["Art"]);
	});
});
