import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ValidationError } from "../../src/engine/errors";
import { HybridSearch, type SearchSettings } from "../../src/engine/search/hybrid-search";
import type { WriteContext } from "../../src/engine/write/write-pipeline";
import type { OpenedMemory } from "../../src/nodejs/open-memory";
import { testBackends } from "./backends";

// Time in memory: relative expressions resolved against the item's own date when written, a date
// filter, and the query's date cues, on every backend.
describe.each(testBackends())("time in search on $name", (backend) => {
	let opened: OpenedMemory;
	let ctx: WriteContext;

	beforeEach(async () => {
		opened = await backend.open();
		ctx = { scope: opened.scope, source: "cli" };
	});
	afterEach(async () => {
		await opened.close();
	});

	const remember = async (key: string, props: Record<string, unknown>) => (await opened.memory.remember(ctx, { label: "Concept", key, props })).node;
	const search = (text: string, settings: Partial<SearchSettings>) => {
		const { memory, scope } = opened;
		return new HybridSearch({ graph: memory.graph, vectors: memory.vectors, embedder: memory.embedder, clock: memory.clock, settings }).search(scope, text);
	};

	it("resolves relative time words against the item's date when it is written, and again when text or date change", async () => {
		let node = await remember("Support group", { description: "Went to the support group yesterday", valid_from: "2023-05-08T13:56:00Z" });
		expect(node.props.mentioned_dates).toEqual(["2023-05-07"]);
		node = await remember("Support group", { description: "Ran a charity race last week and painted a lake in May" });
		expect(node.props.mentioned_dates).toEqual(["2023-05-01/2023-05-07", "2023-05-01/2023-05-31"]);
		node = await remember("Support group", { valid_from: "2022-03-10" });
		expect(node.props.mentioned_dates).toEqual(["2022-03-03/2022-03-09", "2022-05-01/2022-05-31"]);
		node = await remember("Support group", { description: "Nothing about time here" });
		expect(node.props.mentioned_dates).toBeUndefined();
		// Without a valid_from, the date of writing is the reference.
		const today = await remember("Undated", { description: "I started pottery yesterday" });
		const written = Date.parse(today.props.valid_from as string);
		expect(today.props.mentioned_dates).toEqual([new Date(written - 86_400_000).toISOString().slice(0, 10)]);
	});

	it("finds an item by its own day in words, but a person's note not by the day sync first saw it", async () => {
		const fulltext = async (query: string) => (await opened.memory.searchFulltext(opened.scope, query)).map((h) => h.name);
		const agent: WriteContext = { scope: opened.scope, source: "mcp", agent: "claude" };
		await opened.memory.remember(agent, { label: "Concept", key: "Support group", props: { description: "Went to the support group", valid_from: "2023-05-08T23:30:00Z" } });
		// A note: sync gives it obsidian_path, and its valid_from is when sync first saw it.
		await opened.memory.remember({ scope: opened.scope, source: "sync" }, { label: "Concept", key: "Garden note", props: { description: "Planting tomatoes", obsidian_path: "Garden note.md", valid_from: "2021-11-09T10:00:00Z" } });
		// An agent's memory written out as a note keeps its author, and its day.
		await opened.memory.remember(agent, { label: "Concept", key: "Exported", props: { description: "Bought a kiln", obsidian_path: "Engrama/Concept/Exported.md", valid_from: "2024-06-10" } });
		// The date as written (23:30 UTC stays the 8th), nothing of it in the text.
		expect(await fulltext("May 2023")).toEqual(["Support group"]);
		expect(await fulltext("8")).toEqual(["Support group"]);
		expect(await fulltext("June 2024")).toEqual(["Exported"]);
		expect(await fulltext("November 2021")).toEqual([]);
		// A new valid_from re-indexes the item under its new day.
		await opened.memory.remember(agent, { label: "Concept", key: "Support group", props: { valid_from: "2022-03-10" } });
		expect(await fulltext("May 2023")).toEqual([]);
		expect(await fulltext("March 2022")).toEqual(["Support group"]);
	});

	it("keeps the engine's mentioned_dates: a caller cannot set them", async () => {
		const { node, warnings } = await opened.memory.remember(ctx, { label: "Concept", key: "Forged", props: { description: "plain words", mentioned_dates: ["1999-01-01"] } });
		expect(node.props.mentioned_dates).toBeUndefined();
		expect(warnings.join(" ")).toContain("mentioned_dates");
	});

	it("filters by date: the item's own date or a date its text mentions falls in the range", async () => {
		await remember("Race 2023", { description: "charity race with friends last week", valid_from: "2023-05-08" });
		await remember("Race 2024", { description: "charity race in the rain", valid_from: "2024-02-01" });
		const names = async (dateFrom?: string, dateTo?: string) =>
			(await opened.memory.search(opened.scope, "charity race", { dateFrom, dateTo })).results.map((r) => r.name).sort();
		expect(await names()).toEqual(["Race 2023", "Race 2024"]);
		// Only "last week" (2023-05-01 to 05-07) lies here: the item's own date (05-08) does not.
		expect(await names("2023-05-02", "2023-05-03")).toEqual(["Race 2023"]);
		expect(await names("2024-01-01")).toEqual(["Race 2024"]);
		expect(await names(undefined, "2023-12-31")).toEqual(["Race 2023"]);
		expect(await names("2025-01-01", "2025-12-31")).toEqual([]);
		await expect(opened.memory.search(opened.scope, "charity race", { dateFrom: "last tuesday" })).rejects.toThrow(ValidationError);
		await expect(opened.memory.search(opened.scope, "charity race", { dateFrom: "2024-02-02", dateTo: "2024-02-01" })).rejects.toThrow(/after/);
	});

	it("uses the dates a query names, with the date signal in every result", async () => {
		await remember("Race A", { description: "charity race by the river", valid_from: "2024-02-01" });
		await remember("Race B", { description: "charity race by the river", valid_from: "2023-05-20" });
		const plain = await search("charity race by the river in May 2023", { dateCueWeight: 0 });
		const cued = await search("charity race by the river in May 2023", { dateCueWeight: 0.5 });
		const b = cued.hits.find((h) => h.node.key === "Race B");
		const a = cued.hits.find((h) => h.node.key === "Race A");
		expect(b?.signals.date).toBe(1);
		expect(a?.signals.date).toBeGreaterThan(0);
		expect(a?.signals.date).toBeLessThan(0.1);
		expect(cued.hits[0].node.key).toBe("Race B");
		// The term adds weight × date to the score, nothing else.
		for (const hit of cued.hits) {
			const before = plain.hits.find((h) => h.node.id === hit.node.id);
			expect(hit.score - (before?.score ?? 0)).toBeCloseTo(0.5 * hit.signals.date, 6);
		}
		// No date in the query: the term is 0 for everyone.
		expect((await search("charity race by the river", { dateCueWeight: 0.5 })).hits.every((h) => h.signals.date === 0)).toBe(true);
	});

	it("favours items that mention a date when the query asks when", async () => {
		await remember("Pottery talk", { description: "Caroline talked about pottery class", valid_from: "2023-07-01" });
		await remember("Pottery start", { description: "Caroline started a pottery class two weeks ago", valid_from: "2023-07-10" });
		const plain = await search("When did Caroline start the pottery class?", { whenWeight: 0 });
		const outcome = await search("When did Caroline start the pottery class?", { whenWeight: 0.5 });
		expect(outcome.hits[0].node.key).toBe("Pottery start");
		for (const hit of outcome.hits) {
			const before = plain.hits.find((h) => h.node.id === hit.node.id);
			expect(hit.score - (before?.score ?? 0)).toBeCloseTo(0.5 * hit.signals.when, 6);
		}
		expect(outcome.hits[0].signals.when).toBe(1);
		expect(outcome.hits.find((h) => h.node.key === "Pottery talk")?.signals.when).toBe(0);
		const notWhen = await search("Caroline pottery class", { whenWeight: 0.5 });
		expect(notWhen.hits.every((h) => h.signals.when === 0)).toBe(true);
	});

	it("takes the hub penalty off hubs only, and says so in their signals", async () => {
		await remember("Pottery", { description: "pottery pottery class" });
		for (const k of ["Bowl", "Vase", "Kiln"]) {
			await remember(k, { description: `a pottery ${k.toLowerCase()}` });
			await opened.memory.relate(ctx, { label: "Concept", key: "Pottery" }, "RELATED_TO", { label: "Concept", key: k });
		}
		const off = await search("pottery", { fanOutCap: 2, hubPenalty: 0 });
		// A penalty above what the channels' scores and the terms can add (0.4 with the default weights) sinks the hub to the bottom.
		const on = await search("pottery", { fanOutCap: 2, hubPenalty: 1 });
		const hubOn = on.hits.find((h) => h.node.key === "Pottery");
		const hubOff = off.hits.find((h) => h.node.key === "Pottery");
		expect(hubOn?.signals.penalty).toBe(1);
		expect((hubOff?.score ?? 0) - (hubOn?.score ?? 0)).toBeCloseTo(1, 6);
		expect(on.hits.filter((h) => h.node.key !== "Pottery").every((h) => h.signals.penalty === 0)).toBe(true);
		expect(on.hits[on.hits.length - 1].node.key).toBe("Pottery");
	});
});
