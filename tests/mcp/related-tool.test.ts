import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RELATED_VAULT } from "../fixtures/related-vault";
import { makeTempDir } from "../helpers/temp-dir";
import { call, connectClient, ok, startBridge, textOf, writeNote, type Bridge } from "./mcp-harness";

interface Row {
	path: string;
	title: string;
	why?: string;
	score: number;
	relation?: string;
	direction?: string;
}

describe("engrama_related over real HTTP: the panel's related notes for an agent", () => {
	let dir: ReturnType<typeof makeTempDir>;
	let bridge: Bridge;
	let client: Client;

	beforeAll(async () => {
		dir = makeTempDir("engrama-mcp-related-");
		const vault = join(dir.path, "vault");
		for (const [path, text] of Object.entries(RELATED_VAULT)) writeNote(vault, `Notes/${path}`, text);
		bridge = await startBridge({ dir: dir.path, vault });
		client = await connectClient(bridge.url, bridge.token);
		await ok(client, "engrama_sync_vault", {});
	});

	afterAll(async () => {
		await client?.close();
		await bridge?.close();
		dir?.cleanup();
	});

	it("answers a note's path with related notes not yet linked (path, title, why, score) and the linked ones apart", async () => {
		const answer = await ok<{ note: string; related: Row[]; linked: Row[] }>(client, "engrama_related", { note: "Notes/Rendering.md" });
		expect(answer.related.map((r) => r.path).slice(0, 2).sort()).toEqual(["Notes/Charts.md", "Notes/Typesetting.md"]);
		const charts = answer.related.find((r) => r.title === "Charts")!;
		expect(charts.why).toMatch(/\*\*\w+\*\*/);
		expect(charts.score).toBeGreaterThan(0);
		expect(answer.linked).toEqual([expect.objectContaining({ path: "Notes/Reading list.md", title: "Reading list", relation: "LINKS_TO", direction: "in" })]);
		expect(answer.related.map((r) => r.path)).not.toContain("Notes/Reading list.md");
	});

	it("takes the note's name as well, and says how to find a note it does not know", async () => {
		const byName = await ok<{ related: Row[] }>(client, "engrama_related", { note: "Typesetting", limit: 1 });
		expect(byName.related.map((r) => r.title)).toEqual(["Rendering"]);
		const missing = await call(client, "engrama_related", { note: "Notes/Nowhere.md" });
		expect(missing.isError).toBe(true);
		expect(textOf(missing)).toMatch(/No note "Notes\/Nowhere\.md".*engrama_search/);
	});
});
