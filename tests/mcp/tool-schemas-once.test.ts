import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { createEngramaMcpServer, createToolEnv } from "../../src/mcp";
import { makeTempDir } from "../helpers/temp-dir";
import { call, connectClient, startBridge, textOf, type Bridge } from "./mcp-harness";

/** The schemas a server handed the SDK for one tool (the SDK keeps them per registered tool). */
function schemasOf(server: McpServer, tool: string): { inputSchema: unknown; outputSchema: unknown } {
	return (server as unknown as { _registeredTools: Record<string, { inputSchema: unknown; outputSchema: unknown }> })._registeredTools[tool];
}

describe("tool schemas are built once per memory, not per session", () => {
	let dir: ReturnType<typeof makeTempDir>;
	let bridge: Bridge;

	beforeAll(async () => {
		dir = makeTempDir("engrama-mcp-schemas-");
		bridge = await startBridge({ dir: dir.path, embedder: null });
	});
	afterAll(async () => {
		await bridge?.close();
		dir?.cleanup();
	});

	it("gives every session's server the same argument and answer schemas", () => {
		const env = createToolEnv({ memory: bridge.opened.memory, services: bridge.node.services });
		const [a, b] = [createEngramaMcpServer(env), createEngramaMcpServer(env)];
		for (const tool of ["engrama_search", "engrama_remember", "engrama_status"]) {
			expect(schemasOf(a, tool).inputSchema).toBeDefined();
			expect(schemasOf(b, tool).inputSchema).toBe(schemasOf(a, tool).inputSchema);
			expect(schemasOf(b, tool).outputSchema).toBe(schemasOf(a, tool).outputSchema);
		}
	});

	it("still checks each session's arguments strictly with the shared schemas", async () => {
		const clients = await Promise.all([connectClient(bridge.url, bridge.token), connectClient(bridge.url, bridge.token)]);
		try {
			for (const client of clients) {
				const wrong = await call(client, "engrama_search", { query: "x", label: "Project" });
				expect(wrong.isError).toBe(true);
				expect(textOf(wrong)).toMatch(/engrama_search does not take "label" \(did you mean "labels"\?\)/);
				expect((await call(client, "engrama_search", { query: "x", limit: 3 })).isError).toBeFalsy();
			}
		} finally {
			await Promise.all(clients.map((c) => c.close()));
		}
	});
});
