import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTempDir } from "../helpers/temp-dir";
import { call, connectClient, ok, startBridge, textOf, writeNote, type Bridge } from "./mcp-harness";

/**
 * What agents met through real clients (the SDK's client over real HTTP here): each rough edge
 * of #26 as an answer that says what happened, in as few bytes as the answer needs.
 */

let dir: ReturnType<typeof makeTempDir>;
let bridge: Bridge;
let client: Client;
let vault: string;

/** Bytes an agent receives: the text blocks plus structuredContent, as JSON on the wire. */
function wireBytes(result: CallToolResult): number {
	return Buffer.byteLength(JSON.stringify({ content: result.content, structuredContent: result.structuredContent }));
}

/** The same answer as the bridge sent it before #26: the summary, the payload pretty-printed as a second text block, and structuredContent. */
function oldWireBytes(result: CallToolResult): number {
	const summary = textOf(result).split("\n")[0];
	const content = [
		{ type: "text", text: summary },
		{ type: "text", text: JSON.stringify(result.structuredContent, null, 2) },
	];
	return Buffer.byteLength(JSON.stringify({ content, structuredContent: result.structuredContent }));
}

beforeAll(async () => {
	dir = makeTempDir("engrama-mcp-ergonomics-");
	vault = join(dir.path, "vault");
	mkdirSync(vault);
	writeNote(vault, "Projects/Billing Portal.md", "---\ntype: Project\n---\n# Billing Portal\n\nInvoices.\n");
	writeNote(vault, "Guides/Preamble.md", "Text before any heading: the preamble.\n\n# Setup\n\nInstall it.\n");
	// Twelve notes that all speak of invoices at length; one of them holds the answer.
	const filler = (i: number) =>
		`Invoices for clinic ${i} are sent monthly, and every invoice carries the clinic's tax number, the period, the amounts per service and the payment terms agreed in the contract.`;
	for (let i = 0; i < 12; i++) {
		const answer = i === 7 ? "\n\n## Retry limit\n\nA failed invoice delivery is retried at most 7 attempts, then the invoice goes to the manual queue.\n" : "";
		writeNote(vault, `Billing/Invoice run ${i}.md`, `# Invoice run ${i}\n\n${filler(i)}\n\n## Delivery\n\n${filler(i + 100)} Invoice delivery uses the mail relay.${answer}\n## Notes\n\n${filler(i + 200)}\n`);
	}
	bridge = await startBridge({ dir: dir.path, vault });
	client = await connectClient(bridge.url, bridge.token);
	await ok(client, "engrama_sync_vault", {});
}, 60_000);

afterAll(async () => {
	await client?.close();
	await bridge?.close();
	dir?.cleanup();
});

describe("agent ergonomics over real HTTP", () => {
	it("tools/list costs at most 14 kB, and every input schema refuses undeclared properties", async () => {
		const list = await client.listTools();
		const bytes = Buffer.byteLength(JSON.stringify(list));
		console.info(`tools/list: ${bytes} bytes`);
		expect(bytes).toBeLessThanOrEqual(14_000);
		for (const tool of list.tools) expect(tool.inputSchema, tool.name).toMatchObject({ type: "object", additionalProperties: false });
	});

	it("a default engrama_search costs at most 4 kB with the answer in it; per-signal scores only on request", async () => {
		const result = await call(client, "engrama_search", { query: "invoice delivery retry limit" });
		const bytes = wireBytes(result);
		console.info(`default engrama_search: ${bytes} bytes, ${(result.structuredContent as { results: unknown[] }).results.length} results`);
		expect(bytes).toBeLessThanOrEqual(4_000);
		const view = result.structuredContent as { results: { path?: string; scores?: unknown; passages?: { heading: string; snippet: string }[] }[] };
		expect(view.results.length).toBeGreaterThanOrEqual(10);
		const answer = view.results.find((r) => r.path === "Billing/Invoice run 7.md");
		expect(answer?.passages?.some((p) => p.snippet.includes("7 attempts"))).toBe(true);
		expect(view.results.every((r) => r.scores === undefined)).toBe(true);
		const scored = await ok<{ results: { scores: Record<string, number> }[] }>(client, "engrama_search", { query: "invoice delivery retry limit", scores: true });
		expect(Object.keys(scored.results[0].scores)).toEqual(expect.arrayContaining(["rrf", "fulltext", "vector", "trust"]));
	});

	it("engrama_sync_note on a path that is not in the vault is an error naming it, not a success", async () => {
		const result = await call(client, "engrama_sync_note", { path: "Projects/Nowhere.md" });
		expect(result.isError).toBe(true);
		expect(textOf(result)).toMatch(/No note "Projects\/Nowhere\.md" in the vault, and no node was synced from that path/);
		// A note that is there still syncs.
		const synced = await ok<{ path: string; counts: { files_scanned: number } }>(client, "engrama_sync_note", { path: "Projects/Billing Portal.md" });
		expect(synced.counts.files_scanned).toBe(1);
	});

	it("an argument a tool does not take is an error that names it and the one meant", async () => {
		const result = await call(client, "engrama_search", { query: "billing", label: "Project", top_k: 2 });
		expect(result.isError).toBe(true);
		const text = textOf(result);
		expect(text).toMatch(/engrama_search does not take "label" \(did you mean "labels"\?\), "top_k"/);
		expect(text).toMatch(/it takes query, limit, labels/);
		// The declared arguments still work, and a tool without arguments refuses any.
		expect((await ok<{ results: unknown[] }>(client, "engrama_search", { query: "billing", labels: ["Project"], limit: 2 })).results.length).toBe(1);
		expect(textOf(await call(client, "engrama_status", { verbose: true }))).toMatch(/engrama_status does not take "verbose": it takes no arguments/);
	});

	it("engrama_context finds a unique name without its label, and asks for the label only when the name is ambiguous", async () => {
		const view = await ok<{ node: { label: string; name: string } }>(client, "engrama_context", { name: "Billing Portal" });
		expect(view.node).toMatchObject({ label: "Project", name: "Billing Portal" });
		await ok(client, "engrama_remember", { label: "Concept", properties: { name: "Billing Portal" } });
		const ambiguous = await call(client, "engrama_context", { name: "Billing Portal" });
		expect(ambiguous.isError).toBe(true);
		expect(textOf(ambiguous)).toMatch(/"Billing Portal" names 2 nodes \((Project, Concept|Concept, Project)\): give the label/);
		const missing = await call(client, "engrama_context", { name: "Nothing Here" });
		expect(textOf(missing)).toMatch(/No node named "Nothing Here" in this memory/);
		expect(textOf(missing)).not.toMatch(/undefined|\(missing\)/);
	});

	it("answers carry their data once: structuredContent, a one-line summary, no pretty-printed copy", async () => {
		const result = await call(client, "engrama_search", { query: "billing" });
		expect(result.content).toHaveLength(1);
		const text = textOf(result);
		expect(text).not.toContain("\n");
		expect(text).not.toContain('"node_id"');
		expect((result.structuredContent as { results: unknown[] }).results.length).toBeGreaterThan(0);
		console.info(`engrama_search answer: ${wireBytes(result)} bytes (as before #26: ${oldWireBytes(result)} bytes)`);
	});

	it("bounds a hub's context: 25 nearest of 62 neighbours by default, the count said, more on request", async () => {
		// Names unlike each other, so the resolver makes 62 nodes, not one.
		const relations = { RELATED_TO: Array.from({ length: 62 }, (_, i) => `${String.fromCharCode(97 + (i % 26))}${((i + 7) * 2654435761 % 4294967296).toString(36)}`) };
		await ok(client, "engrama_remember", { label: "Concept", properties: { name: "Hub", summary: "A concept everything relates to." }, relations });
		const result = await call(client, "engrama_context", { label: "Concept", name: "Hub" });
		const view = result.structuredContent as { neighbours: unknown[]; relations: unknown[]; truncated: boolean; neighbour_count: number };
		expect(view).toMatchObject({ truncated: true, neighbour_count: 62 });
		expect(view.neighbours).toHaveLength(25);
		expect(view.relations).toHaveLength(25);
		expect(textOf(result)).toMatch(/25 of 62 neighbours, 25 relations \(truncated: raise limit to see more\)/);
		const all = await call(client, "engrama_context", { label: "Concept", name: "Hub", limit: 100, hops: 2 });
		expect((all.structuredContent as { neighbours: unknown[]; truncated: boolean }).neighbours).toHaveLength(62);
		console.info(`engrama_context of a 62-neighbour hub: ${wireBytes(result)} bytes by default, ${wireBytes(all)} with limit 100 at 2 hops (as before #26: ${oldWireBytes(all)} bytes)`);
	});

	it("engrama_read_note sends the section once, and reads the text before the first heading (heading \"\")", async () => {
		const result = await call(client, "engrama_read_note", { path: "Guides/Preamble.md", heading: "" });
		expect(result.isError, textOf(result)).toBeFalsy();
		expect((result.structuredContent as { text: string }).text).toBe("Text before any heading: the preamble.");
		expect(textOf(result)).not.toContain("the preamble");
	});

	it("errors carry their message once", async () => {
		const result = await call(client, "engrama_context", { name: "Nothing Here At All" });
		expect(result.isError).toBe(true);
		expect(result.content).toHaveLength(1);
	});

	it("engrama_sync_vault on a folder that is not in the vault is an error naming it", async () => {
		const result = await call(client, "engrama_sync_vault", { folder: "Nope" });
		expect(result.isError).toBe(true);
		expect(textOf(result)).toMatch(/No folder "Nope" in the vault/);
	});

	it("an unknown Insight title points to the MCP tool that lists Insights, which lists approved ones too", async () => {
		const result = await call(client, "engrama_approve_insight", { title: "No such insight whatsoever" });
		expect(result.isError).toBe(true);
		expect(textOf(result)).toMatch(/engrama_surface_insights/);
		expect(textOf(result)).not.toMatch(/List them with engrama insights\./);
		const approved = await ok<{ insights: unknown[] }>(client, "engrama_surface_insights", { status: "approved" });
		expect(approved.insights).toEqual([]);
	});

	it("remember says why a relation was not written; force_new names no environment variable; ingest says it stores nothing", async () => {
		const result = await call(client, "engrama_remember", { label: "Concept", properties: { name: "Typo Relation" }, relations: { USSES: ["Postgres"] } });
		expect(result.isError, textOf(result)).toBeFalsy();
		expect(textOf(result)).toMatch(/0\/1 relations written \(USSES "Postgres": .*relation type/i);
		const { tools } = await client.listTools();
		const remember = tools.find((t) => t.name === "engrama_remember");
		expect(JSON.stringify(remember?.inputSchema)).not.toMatch(/ENGRAMA_/);
		expect(tools.find((t) => t.name === "engrama_ingest")?.description).toMatch(/^Stores nothing/);
	});

	it("engrama_context neighbours carry their note's path", async () => {
		await ok(client, "engrama_relate", { from_label: "Project", from_name: "Billing Portal", rel_type: "RELATED_TO", to_label: "Note", to_name: "Invoice run 7" });
		const view = await ok<{ neighbours: { name: string; path?: string }[] }>(client, "engrama_context", { label: "Project", name: "Billing Portal" });
		expect(view.neighbours.find((n) => n.name === "Invoice run 7")?.path).toBe("Billing/Invoice run 7.md");
	});
	it("engrama_sync_note calls a symbolic link loop a loop, not a way out of the vault", async () => {
		symlinkSync(join(vault, "Loop B.md"), join(vault, "Loop A.md"));
		symlinkSync(join(vault, "Loop A.md"), join(vault, "Loop B.md"));
		const result = await call(client, "engrama_sync_note", { path: "Loop A.md" });
		expect(result.isError).toBe(true);
		expect(textOf(result)).toMatch(/path "Loop A\.md" is a symbolic link loop: following it leads back to itself and never reaches a note/);
		expect(textOf(result)).not.toMatch(/outside the vault/);
	});

	it("engrama_remember and engrama_relate say when the note cannot take the write, and why", async () => {
		writeNote(vault, "Projects/Kiosk.md", "---\ntype: Project\n---\n# Kiosk\n\nSelf-service café kiosk.\n");
		await ok(client, "engrama_sync_note", { path: "Projects/Kiosk.md" });
		// Re-saved as Latin-1 since the sync.
		writeFileSync(join(vault, "Projects/Kiosk.md"), Buffer.from(readFileSync(join(vault, "Projects/Kiosk.md"), "utf8"), "latin1"));
		const remembered = await call(client, "engrama_remember", { label: "Project", properties: { name: "Kiosk", status: "active" } });
		const warnings = (remembered.structuredContent as { warnings: string[] }).warnings;
		expect(warnings.find((w) => w.includes("Projects/Kiosk.md"))).toMatch(/not valid UTF-8.*Save the note as UTF-8.*keeps the write/s);
		expect(textOf(remembered)).toMatch(/Projects\/Kiosk\.md is not valid UTF-8/);
		const related = await ok<{ warnings?: string[] }>(client, "engrama_relate", { from_name: "Kiosk", from_label: "Project", rel_type: "DEPENDS_ON", to_name: "Billing Portal", to_label: "Project" });
		expect(related.warnings?.some((w) => /Projects\/Kiosk\.md.*not valid UTF-8/s.test(w))).toBe(true);
		// A note that can take it: no warning.
		const fine = await ok<{ warnings?: string[] }>(client, "engrama_relate", { from_name: "Billing Portal", from_label: "Project", rel_type: "DEPENDS_ON", to_name: "Kiosk", to_label: "Project" });
		expect(fine.warnings).toBeUndefined();
	});
});
