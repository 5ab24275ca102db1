import { describe, expect, it } from "vitest";
import { itemDay, nodeToText } from "../../src/engine/node-text";

describe("nodeToText and an item's own day", () => {
	it("writes the day of valid_from as words right after the header", () => {
		const node = { label: "Concept", key: "Support group", props: { description: "Went to the support group", tags: ["lgbtq"], valid_from: "2023-05-08T13:56:00.000Z" } };
		expect(nodeToText(node)).toBe("Concept: Support group\n[8 May 2023]\nWent to the support group\ntags: lgbtq");
	});

	it("takes the date part as written: no time zone shift, a bare date too", () => {
		expect(itemDay({ valid_from: "2023-05-08T23:59:59.999Z" })).toBe("8 May 2023");
		expect(itemDay({ valid_from: "2023-12-31T00:30:00+09:00" })).toBe("31 December 2023");
		expect(itemDay({ valid_from: "2024-01-01" })).toBe("1 January 2024");
	});

	it("gives none without a valid date", () => {
		expect(itemDay({})).toBeNull();
		expect(itemDay({ valid_from: "last tuesday" })).toBeNull();
		expect(itemDay({ valid_from: "2023-13-01" })).toBeNull();
		expect(itemDay({ valid_from: 20230508 })).toBeNull();
		expect(nodeToText({ label: "Concept", key: "Undated", props: { description: "no date" } })).toBe("Concept: Undated\nno date");
	});

	it("leaves a person's note as it is, but not an agent's memory written out as a note", () => {
		const note = { obsidian_path: "Garden.md", valid_from: "2023-05-08T10:00:00Z", description: "Planting tomatoes" };
		expect(nodeToText({ label: "Note", key: "Garden", props: { ...note, source: "sync" } })).toBe("Note: Garden\nPlanting tomatoes");
		// A note from a file without provenance (an older or hand-made memory) is a person's too.
		expect(itemDay(note)).toBeNull();
		expect(itemDay({ ...note, source: "mcp" })).toBe("8 May 2023");
		expect(itemDay({ ...note, source: "cli" })).toBe("8 May 2023");
		// A date the note's frontmatter states is the note's own.
		expect(itemDay({ ...note, source: "sync", note_props: ["description", "valid_from"] })).toBe("8 May 2023");
		expect(itemDay({ ...note, source: "sync", note_props: ["description"] })).toBeNull();
		// Not a note yet: the item's date, whoever wrote it.
		expect(itemDay({ valid_from: "2023-05-08", source: "sync" })).toBe("8 May 2023");
	});
});
