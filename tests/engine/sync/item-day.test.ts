import { afterEach, describe, expect, it } from "vitest";
import { nodeToText } from "../../../src/engine/node-text";
import { node, openHarness, SCOPE, type SyncHarness } from "./sync-fixture";

// An item's own day is indexed and embedded as words (node-text.ts itemDay); a person's note keeps
// its text as it is, unless its frontmatter states the date.
describe("an item's day and synced notes", () => {
	let h: SyncHarness;
	afterEach(async () => h?.close());

	it("gives a note no day of its first sync, but the date its frontmatter states", async () => {
		h = await openHarness();
		h.write("Garden.md", "Planting tomatoes in the raised bed.\n");
		h.write("Trip.md", "---\nvalid_from: 2023-05-08\n---\nA weekend at the lake.\n");
		await h.sync.fullSync();
		const garden = await node(h.memory, "Note", "Garden");
		const trip = await node(h.memory, "Note", "Trip");
		// Sync dated the note when it saw it; that date is not the note's.
		expect(typeof garden.props.valid_from).toBe("string");
		expect(nodeToText(garden)).toBe("Note: Garden\nPlanting tomatoes in the raised bed.");
		expect(nodeToText(trip)).toBe("Note: Trip\n[8 May 2023]\nA weekend at the lake.");
		const seen = new Date(garden.props.valid_from as string);
		const sawMonth = seen.toLocaleString("en", { month: "long", timeZone: "UTC" });
		const names = async (query: string) => (await h.memory.searchFulltext(SCOPE, query)).map((hit) => hit.name);
		expect(await names(`${sawMonth} ${seen.getUTCFullYear()}`)).toEqual([]);
		expect(await names("May 2023")).toEqual(["Trip"]);
	});
});
