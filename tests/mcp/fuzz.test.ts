import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/backends/sqlite/wasm/open-database";
import { TOOL_NAMES } from "../../src/mcp";
import { INJECTIONS, fuzzValues, mulberry32 } from "../helpers/fuzz-values";
import { makeTempDir } from "../helpers/temp-dir";
import { connectClient, startBridge, textOf, type Bridge } from "./mcp-harness";

describe("MCP bridge under malformed input", () => {
	let dir: ReturnType<typeof makeTempDir>;
	let bridge: Bridge;
	let clients: Client[];
	let partial: Client;
	const rand = mulberry32(20260131);
	const { pick, junk: junkValue, junkArgs } = fuzzValues(rand);

	beforeAll(async () => {
		dir = makeTempDir("engrama-mcp-fuzz-");
		// Gateway mode, so the half-scoped client reaches the tools (and has its writes refused there).
		bridge = await startBridge({ dir: dir.path, embedder: null, allowTenantHeaders: true });
		clients = await Promise.all(Array.from({ length: 8 }, () => connectClient(bridge.url, bridge.token)));
		partial = await connectClient(bridge.url, bridge.token, { "X-Engrama-User-Id": "mallory" });
	});
	afterAll(async () => {
		await Promise.all((clients ?? []).map((c) => c.close()));
		await partial?.close();
		await bridge?.close();
		dir?.cleanup();
	});

	/** A tool call: a valid one now and then (its writes are expected to land), mostly broken ones. */
	function nextCall(): { name: string; args: unknown; validWrite: boolean } {
		const roll = rand();
		if (roll < 0.05) {
			const name = `Fuzz ${pick(["Alpha", "Beta", "Gamma", "Δέλτα", "Ærø", "日本"])} ${Math.floor(rand() * 40)}`;
			return { name: "engrama_remember", args: { label: pick(["Project", "Concept", "Technology"]), properties: { name, summary: pick(INJECTIONS) } }, validWrite: true };
		}
		// Reflect accepts any object (it has no parameters) and then really runs: keep it rare.
		const name =
			roll < 0.95
				? pick(TOOL_NAMES.filter((t) => t !== "engrama_gdpr_forget" && t !== "engrama_reflect"))
				: pick(["engrama_nope", "", "x".repeat(300), "engrama_gdpr_forget", "engrama_reflect"]);
		const shape = rand();
		let args: unknown;
		if (name === "engrama_gdpr_forget") args = { mode: pick(["apply ", "APPLY", "delete", 1, null, "dry_run"]) };
		else if (shape < 0.15) args = junkValue();
		else if (shape < 0.3) args = {};
		else args = junkArgs();
		return { name, args, validWrite: false };
	}

	it("survives thousands of malformed tool calls with well-formed errors and stores exactly the valid writes", async () => {
		const expected = new Set<string>();
		let errors = 0;
		let successes = 0;
		let protocolErrors = 0;
		const TOTAL = 2000;
		let next = 0;
		// What a successful call may have created: the node, stubs for inline relations, reflect's Insights.
		const record = (result: CallToolResult) => {
			const s = result.structuredContent as
				| { node?: { node_id?: string }; relations?: { outcome: string; node?: { node_id: string } }[]; insights?: { insight_id: string }[] }
				| undefined;
			if (s?.node?.node_id) expected.add(s.node.node_id);
			for (const r of s?.relations ?? []) if (r.outcome === "stubbed" && r.node) expected.add(r.node.node_id);
			for (const i of s?.insights ?? []) expected.add(i.insight_id);
		};
		await Promise.all(
			clients.map(async (client) => {
				while (next < TOTAL) {
					next++;
					const { name, args, validWrite } = nextCall();
					try {
						const result = (await client.callTool({ name, arguments: args as Record<string, unknown> })) as CallToolResult;
						expect(Array.isArray(result.content)).toBe(true);
						if (result.isError) {
							errors++;
							expect(textOf(result).length).toBeGreaterThan(10);
							expect(validWrite, `valid write refused: ${textOf(result)}`).toBe(false);
						} else {
							successes++;
							if (name === "engrama_remember" || name === "engrama_reflect") record(result);
						}
					} catch (error) {
						// Arguments that are not an object at all are refused as invalid params, with a sentence.
						expect(error).toBeInstanceOf(McpError);
						expect((error as McpError).code).toBe(-32602);
						expect((error as McpError).message).toMatch(/must be a JSON object/);
						protocolErrors++;
					}
				}
			}),
		);
		// A few very large payloads (up to the 4 MB body limit).
		for (const size of [200_001, 300_000, 1_000_000, 3_500_000]) {
			const result = (await clients[0].callTool({ name: "engrama_remember", arguments: { label: "Project", properties: { name: "Huge", summary: "y".repeat(size) } } })) as CallToolResult;
			expect(result.isError).toBe(true);
			expect(textOf(result)).toMatch(/limit is 200000|longer than/);
		}
		// Writes through a half-scoped client are always refused.
		for (let i = 0; i < 50; i++) {
			const result = (await partial.callTool({ name: "engrama_remember", arguments: { label: "Project", properties: { name: `Mallory ${i}` } } })) as CallToolResult;
			expect(result.isError).toBe(true);
		}
		expect(errors + successes + protocolErrors).toBeGreaterThanOrEqual(TOTAL);
		expect(errors).toBeGreaterThan(TOTAL / 2);
		expect(expected.size).toBeGreaterThan(20);

		const status = (await clients[0].callTool({ name: "engrama_status", arguments: {} })) as CallToolResult;
		expect(status.isError).toBeFalsy();
		const stored = await bridge.opened.memory.graph.listNodes(bridge.opened.scope, { includeArchived: true, limit: 100_000 });
		expect(new Set(stored.map((n) => n.id))).toEqual(expected);
	}, 240_000);

	it("answers invalid JSON-RPC with well-formed errors and keeps working", async () => {
		const headers = { authorization: `Bearer ${bridge.token}`, "content-type": "application/json", accept: "application/json, text/event-stream" };
		const init = await fetch(bridge.url, {
			method: "POST",
			headers,
			body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "fuzz", version: "1" } } }),
		});
		const session = init.headers.get("mcp-session-id") ?? "";
		await init.text();
		expect(session).not.toBe("");
		const bodies = [
			"{",
			"",
			"null",
			"1",
			"[]",
			"[1,2]",
			'"str"',
			'{"jsonrpc":"1.0","id":1,"method":"tools/list"}',
			'{"jsonrpc":"2.0","method":5,"id":1}',
			'{"jsonrpc":"2.0","id":{},"method":"tools/call"}',
			'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"x"}',
			'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":7}}',
			'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"engrama_search","arguments":"query"}}',
			'{"jsonrpc":"2.0","id":1,"method":"no/such/method"}',
			'{"jsonrpc":"2.0","id":1,"result":{}}',
			`${"[".repeat(5000)}${"]".repeat(5000)}`,
			'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"engrama_search","arguments":{"query":"\\ud800"}}}',
			'{"__proto__":{"polluted":true},"jsonrpc":"2.0","id":1,"method":"tools/list"}',
		];
		const rand2 = mulberry32(7);
		for (let i = 0; i < 200; i++) {
			const base = bodies[i % bodies.length];
			const body = i < bodies.length ? base : base.slice(0, Math.floor(rand2() * (base.length + 1)));
			const res = await fetch(bridge.url, { method: "POST", headers: { ...headers, "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" }, body });
			const text = await res.text();
			expect(res.status, body).toBeLessThan(500);
			if (text.length > 0) {
				const parsed = JSON.parse(text) as { jsonrpc?: string; error?: unknown; result?: unknown } | { jsonrpc?: string }[];
				const one = Array.isArray(parsed) ? parsed[0] : parsed;
				if (one) expect(one.jsonrpc).toBe("2.0");
			}
		}
		expect(({} as Record<string, unknown>).polluted).toBeUndefined();
		const still = (await clients[0].callTool({ name: "engrama_search", arguments: { query: "Fuzz" } })) as CallToolResult;
		expect(still.isError).toBeFalsy();
	}, 60_000);

	it("leaves a database that passes PRAGMA integrity_check", async () => {
		const count = (await bridge.opened.memory.graph.counts(bridge.opened.scope)).nodes;
		await Promise.all(clients.map((c) => c.close()));
		await partial.close();
		await bridge.close();
		const db = await openDatabase({ path: join(dir.path, "memory.db"), readonly: true });
		try {
			expect(db.get("PRAGMA integrity_check")).toEqual({ integrity_check: "ok" });
			expect(db.get<{ n: number }>("SELECT count(*) AS n FROM nodes")?.n).toBe(count);
		} finally {
			db.close();
		}
		clients = [];
		bridge = undefined as unknown as Bridge;
	});
});
