import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function kind(value: unknown): string {
	if (value === null) return "null";
	if (Array.isArray(value)) return "an array";
	if (typeof value === "string") return "a string";
	if (typeof value === "number") return "a number";
	if (typeof value === "boolean") return "true/false";
	return typeof value;
}

/**
 * Why the params of a tools/call are malformed, as a sentence (undefined when the shape is fine).
 * The SDK would answer these with -32603 and a raw validation dump.
 */
export function toolCallProblem(params: unknown): string | undefined {
	if (!isObject(params)) return `Invalid params: tools/call needs params {"name": "<tool>", "arguments": {...}}, not ${kind(params)}.`;
	if (typeof params.name !== "string") {
		return `Invalid params: tools/call needs "name", the tool's name as a string (tools/list lists them), not ${kind(params.name)}.`;
	}
	if (params.arguments !== undefined && !isObject(params.arguments)) {
		return `Invalid params: the arguments of ${params.name.slice(0, 100)} must be a JSON object of its parameters (see its inputSchema in tools/list), not ${kind(params.arguments)}. Send {} for a tool without parameters.`;
	}
	return undefined;
}

/**
 * Answers a tools/call with malformed params with JSON-RPC -32602 and a sentence, before the SDK
 * sees it. Call after `server.connect(transport)` (it wraps the handler the server installed).
 */
export function guardToolCalls(transport: Transport, log?: (line: string) => void): void {
	const deliver = transport.onmessage;
	transport.onmessage = (message, extra) => {
		const request = message as { method?: unknown; id?: unknown; params?: unknown };
		if (request.method === "tools/call" && (typeof request.id === "string" || typeof request.id === "number")) {
			const problem = toolCallProblem(request.params);
			if (problem) {
				const reply: JSONRPCMessage = { jsonrpc: "2.0", id: request.id, error: { code: ErrorCode.InvalidParams, message: problem } };
				transport.send(reply).catch((error: unknown) => log?.(`engrama mcp: answering a malformed tools/call: ${String(error)}`));
				return;
			}
		}
		deliver?.(message, extra);
	};
}
