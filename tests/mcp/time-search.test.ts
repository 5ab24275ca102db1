import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTempDir } from "../helpers/temp-dir";
import { call, connectClient, ok, startBridge, textOf, writeNote, type Bridge } from "./mcp-harness";

// A note's date (frontmatter valid_from) dates the relative words in its text; engrama_search
// filters on those dates over real HTTP.
describe("engrama_search with dates, from notes", () => {
	let dir: ReturnType<typeof makeTempDir>;
	let bridge: Bridge;
	let client: Client;

	beforeAll(async () => {
		dir = makeTempDir("engrama-mcp-time-");
		const vault = join(dir.path, "vault");
		writeNote(vault, "Concepts/Charity race.md", "---\nengrama_label: Concept\nvalid_from: 2023-05-08\n---\n# Charity race\n\nRan the charity race yesterday, with Ana.\n");
		writeNote(vault, "Concepts/Winter race.md", "---\nengrama_label: Concept\nvalid_from: 2024-02-01\n---\n# Winter race\n\nA charity race in the snow.\n");
		bridge = await startBridge({ dir: dir.path, vault });
		client = await connectClient(bridge.url, bridge.token);
		await ok(client, "engrama_sync_vault", {});
	});

	afterAll(async () => {
		await client?.close();
		await bridge?.close();
		dir?.cleanup();
	});

	type Found = { results: { name: string; scores: Record<string, number> }[] };

	it("keeps only items dated, or mentioning a date, in the range; every result keeps its signals", async () => {
		const all = await ok<Found>(client, "engrama_search", { query: "charity race" });
		expect(all.results.map((r) => r.name).sort()).toEqual(["Charity race", "Winter race"]);
		// "yesterday" in a note dated 2023-05-08 is 2023-05-07: only that date matches.
		const day = await ok<Found>(client, "engrama_search", { query: "charity race", date_from: "2023-05-07", date_to: "2023-05-07", scores: true });
		expect(day.results.map((r) => r.name)).toEqual(["Charity race"]);
		expect(Object.keys(day.results[0].scores)).toEqual(expect.arrayContaining(["rrf", "fulltext", "vector", "graph", "temporal", "trust", "date", "when", "penalty"]));
		const later = await ok<Found>(client, "engrama_search", { query: "charity race", date_from: "2024-01-01" });
		expect(later.results.map((r) => r.name)).toEqual(["Winter race"]);
	});

	it("refuses a date it cannot read, naming the field", async () => {
		const bad = await call(client, "engrama_search", { query: "charity race", date_from: "soon" });
		expect(bad.isError).toBe(true);
		expect(textOf(bad)).toContain("date_from");
	});
});
