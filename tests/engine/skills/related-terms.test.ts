import { describe, expect, it } from "vitest";
import { nameDictionary, notesNamedBy } from "../../../src/engine/skills/related-terms";
import type { NodeRecord } from "../../../src/engine/types";

const note = (id: string, key: string, aliases?: string[]): NodeRecord =>
	({ id, label: "Note", key, props: { name: key, obsidian_path: `${key}.md`, ...(aliases ? { aliases } : {}) } }) as unknown as NodeRecord;

describe("notesNamedBy (related notes' words found in other notes' names)", () => {
	const dictionary = nameDictionary([
		note("a", "Formulas"),
		note("b", "Formulas and diagrams"),
		note("c", "Programación de sistemas distribuidos en la universidad de Oviedo"),
		note("d", "Cooking", ["Pasta recipes"]),
	]);

	it("ranks notes by the weight of the words their names hold, the shorter name first on a tie, each note once", () => {
		const weights = new Map([
			["formulas", 1],
			["diagrams", 0.5],
			["pasta", 0.2],
		]);
		expect(notesNamedBy(weights, dictionary)).toEqual(["b", "a", "d"]);
		expect(notesNamedBy(new Map([["formulas", 1]]), dictionary)).toEqual(["a", "b"]);
	});

	it("matches long titles (too long to be mentioned) and words as names compare them, without accents", () => {
		expect(notesNamedBy(new Map([["programación", 1]]), dictionary)).toEqual(["c"]);
		expect(notesNamedBy(new Map([["nothing", 1]]), dictionary)).toEqual([]);
	});
});
