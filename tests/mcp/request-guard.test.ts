import { CallToolRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { requestProblem } from "../../src/mcp/request-guard";

// requestProblem answers a malformed tools/call before the SDK (which would answer -32603 with a
// raw dump); the SDK parses every call against CallToolRequestSchema again. Whatever the guard lets
// through, that schema must accept, and what it refuses, a sentence must say.
describe("the tools/call guard", () => {
	const cases: unknown[] = [
		{ name: "engrama_search", arguments: { query: "x" } },
		{ name: "engrama_status" },
		{ name: "engrama_status", arguments: {}, extra: 1 },
		{ name: "engrama_search", arguments: { query: "x", nested: { __proto__: 1, list: [1, null] } } },
		{ name: "engrama_status", _meta: { progressToken: 7 } },
		{ name: "engrama_status", _meta: { progressToken: { no: 1 } } },
		{ name: "engrama_status", _meta: "not an object" },
		{ name: "engrama_status", task: { ttl: "soon" } },
		{ name: "engrama_status", task: { ttl: 60_000 } },
		{ name: 5 },
		{ name: "engrama_status", arguments: [1] },
		"not params",
	];

	it("lets through exactly what the SDK's schema accepts, and says what is wrong with the rest", () => {
		for (const params of cases) {
			const request = { method: "tools/call", params };
			const problem = requestProblem(request);
			const accepted = CallToolRequestSchema.safeParse(request).success;
			expect(problem === undefined, JSON.stringify(params)).toBe(accepted);
			if (problem) expect(problem).toMatch(/^Invalid params: /);
		}
	});
});
