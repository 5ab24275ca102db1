import { afterEach, describe, expect, it } from "vitest";
import { openSearchMemory, type SearchMemory } from "./search-fixture";

/** Three turns of a conversation, one after another, and a fact on its own that shares a word with the question. */
async function conversation(m: SearchMemory): Promise<void> {
	await m.remember("Concept", "Turn 1", { description: "How was the weekend at the lake?" });
	await m.remember("Concept", "Turn 2", { description: "We rented a cabin, it rained the whole time" });
	await m.remember("Concept", "Turn 3", { description: "Next time bring warm blankets and board games" });
	await m.remember("Concept", "Lake map", { description: "A map of the lake" });
	await m.relate(["Concept", "Turn 1"], "RELATED_TO", ["Concept", "Turn 2"]);
	await m.relate(["Concept", "Turn 2"], "RELATED_TO", ["Concept", "Turn 3"]);
}

const names = async (m: SearchMemory, query: string, graph?: boolean) => (await m.memory.search(m.scope, query, { temporal: false, graph })).results.map((r) => r.name);

describe("neighbour words: a sequence's items share their words", () => {
	let m: SearchMemory;
	afterEach(async () => {
		await m.close();
	});

	it("finds a turn by the words of the turns around it, and ranks the turn between two matches first (the default)", async () => {
		m = await openSearchMemory();
		await conversation(m);
		const found = await names(m, "lake cabin");
		// Turn 3 holds neither word: Turn 2 (cabin, next to it) and Turn 1 (lake, two turns back) do.
		expect(found).toContain("Turn 3");
		// Turn 2 has "cabin" and the lake of the turn it answers; the map only the lake.
		expect(found.indexOf("Turn 2")).toBeLessThan(found.indexOf("Lake map"));
		// A walk of the graph: a search without the graph term does not take it.
		expect(await names(m, "lake cabin", false)).not.toContain("Turn 3");
	});

	it("at weight 0 only items holding a word of the query are found", async () => {
		m = await openSearchMemory({ search: { neighbourWordsWeight: 0 } });
		await conversation(m);
		expect(await names(m, "lake cabin")).not.toContain("Turn 3");
	});

	it("passes nothing between linked notes that are not a chain (an item related to three or more of its label)", async () => {
		m = await openSearchMemory();
		await m.remember("Concept", "Lake house", { description: "The lake house by the pier" });
		for (const key of ["Recipes", "Garden", "Taxes"]) {
			await m.remember("Concept", key, { description: `Notes on ${key.toLowerCase()}` });
			await m.relate(["Concept", "Lake house"], "RELATED_TO", ["Concept", key]);
		}
		expect(await names(m, "lake pier")).toEqual(["Lake house"]);
	});

	it("leaves notes out: linked notes in a row neither give nor take words", async () => {
		m = await openSearchMemory();
		const note = (key: string, description: string) => m.remember("Concept", key, { description, obsidian_path: `${key}.md` }, "sync");
		await note("Lake trip", "The weekend at the lake");
		await note("Cabin", "We rented a cabin");
		await note("Packing", "Warm blankets and board games");
		await m.relate(["Concept", "Lake trip"], "RELATED_TO", ["Concept", "Cabin"]);
		await m.relate(["Concept", "Cabin"], "RELATED_TO", ["Concept", "Packing"]);
		expect(await names(m, "lake cabin")).not.toContain("Packing");
	});
});
