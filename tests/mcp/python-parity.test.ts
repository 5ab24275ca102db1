import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unwrapParams } from "../../src/mcp/request-guard";
import { makeTempDir } from "../helpers/temp-dir";
import { call, connectClient, ok, startBridge, textOf, type Bridge } from "./mcp-harness";

/** Calls written for the Python engrama (engrama-py 0.18.1) send every tool's arguments as {"params": {...}}. */
describe("MCP bridge: clients written for the Python engrama", () => {
	let dir: ReturnType<typeof makeTempDir>;
	let bridge: Bridge;
	let client: Client;

	beforeAll(async () => {
		dir = makeTempDir("engrama-mcp-py-");
		bridge = await startBridge({ dir: dir.path });
		client = await connectClient(bridge.url, bridge.token);
	});

	afterAll(async () => {
		await client?.close();
		await bridge?.close();
		dir?.cleanup();
	});

	it("accepts the wrapped {params: {...}} shape for remember, relate, context, search and status", async () => {
		const made = await ok<{ created: boolean; node: { name: string } }>(client, "engrama_remember", {
			params: { label: "Project", properties: { name: "Harbor", summary: "Port scheduling service." } },
		});
		expect(made).toMatchObject({ created: true, node: { name: "Harbor" } });
		await ok(client, "engrama_remember", { params: { label: "Technology", properties: { name: "Postgres", summary: "Relational database." } } });
		const related = await ok(client, "engrama_relate", {
			params: { from_name: "Harbor", from_label: "Project", rel_type: "USES", to_name: "Postgres", to_label: "Technology" },
		});
		expect(related).toMatchObject({ created: true, type: "USES" });
		const context = await ok<{ neighbours: { name: string }[] }>(client, "engrama_context", { params: { name: "Harbor", label: "Project" } });
		expect(context.neighbours.map((n) => n.name)).toEqual(["Postgres"]);
		const search = await ok<{ results: { name: string }[] }>(client, "engrama_search", { params: { query: "port scheduling", limit: 3 } });
		expect(search.results[0]).toMatchObject({ name: "Harbor" });
		// A tool without parameters: the Python client sends {} (or an empty wrapper).
		await ok(client, "engrama_status", { params: {} });
		// The flat shape keeps working, and the same answer comes back.
		const flat = await ok<{ results: { name: string }[] }>(client, "engrama_search", { query: "port scheduling", limit: 3 });
		expect(flat.results.map((r) => r.name)).toEqual(search.results.map((r) => r.name));
	});

	it("validates the unwrapped arguments like flat ones (an isError result naming the field)", async () => {
		const result = await call(client, "engrama_search", { params: { limit: 3 } });
		expect(result.isError).toBe(true);
		expect(textOf(result)).toMatch(/query is required/);
	});

	it("answers a bad wrapped shape with -32602 and a sentence", async () => {
		const cases: [Record<string, unknown>, RegExp][] = [
			[{ params: null }, /"params" must be a JSON object of its parameters .*not null/],
			[{ params: [] }, /"params" must be a JSON object .*not an array/],
			[{ params: "billing" }, /"params" must be a JSON object .*not a string/],
			[{ params: { query: "a" }, limit: 3 }, /mix "params" with flat arguments \(limit\)/],
		];
		for (const [args, message] of cases) {
			const error = await client.callTool({ name: "engrama_search", arguments: args }).then(
				() => undefined,
				(e: unknown) => e,
			);
			expect(error, JSON.stringify(args)).toBeInstanceOf(McpError);
			expect((error as McpError).code).toBe(-32602);
			expect((error as McpError).message).toMatch(message);
			expect((error as McpError).message).toMatch(/engrama_search takes its arguments flat or wrapped|send them either flat/);
		}
		// The session goes on answering.
		await ok(client, "engrama_status", {});
	});

	it("leaves a tool's own `params` argument alone", () => {
		const args = { params: { depth: 2 } };
		expect(unwrapParams("tool_with_params", args, new Set(["params", "name"]))).toEqual({ args });
		expect(unwrapParams("tool_with_params", { params: "x" }, new Set(["params"]))).toEqual({ args: { params: "x" } });
		expect(unwrapParams("other", { params: { depth: 2 } }, new Set(["depth"]))).toEqual({ args: { depth: 2 } });
	});

	it("offers the session guide as an MCP prompt (engrama_session_guide, as the Python engrama names it)", async () => {
		expect(client.getServerCapabilities()?.prompts).toBeDefined();
		const { prompts } = await client.listPrompts();
		expect(prompts.map((p) => p.name)).toEqual(["engrama_session_guide"]);
		expect(prompts[0].description).toMatch(/search first, remember with relations/);
		const guide = await client.getPrompt({ name: "engrama_session_guide" });
		expect(guide.messages).toHaveLength(1);
		const { content } = guide.messages[0];
		const text = content.type === "text" ? content.text : "";
		for (const rule of [/Search before you remember/, /with relations/, /engrama_relate/, /Insights need the person's approval/, /Provenance and trust/, /\*\*Scope\.\*\*/, /engrama_approve_insight/]) {
			expect(text).toMatch(rule);
		}
		// The active profile's vocabulary, so the agent picks valid labels and relation types.
		expect(text).toMatch(/Profile base\./);
		expect(text).toMatch(/Labels keyed by title: [^.]*Decision/);
		expect(text).toMatch(/Relation types: [^.]*USES/);
		// Every tool the guide names exists.
		const { tools } = await client.listTools();
		const names = new Set(tools.map((t) => t.name));
		for (const named of text.match(/engrama_[a-z_]+/g) ?? []) if (named !== "engrama_session_guide" && !named.startsWith("engrama_id")) expect(names.has(named), named).toBe(true);
	});

	it("answers an unknown prompt with -32602", async () => {
		await expect(client.getPrompt({ name: "engrama_nope" })).rejects.toMatchObject({ code: -32602 });
	});
});
