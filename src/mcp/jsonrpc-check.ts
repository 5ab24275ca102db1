import { ErrorCode, JSONRPCMessageSchema, isInitializeRequest, isJSONRPCRequest, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** The most messages one batch may hold (the SDK's HTTP transport refuses more, with -32600 too). */
const MAX_BATCH = 100;

/** A JSON-RPC error answer to a body or line that is not a usable message; `id` is null when none can be read. */
export interface RpcRefusal {
	readonly code: number;
	readonly message: string;
	readonly id: string | number | null;
}

/** A body or line that is fine: one message, or the messages of a batch, in order. */
export type RpcBody = { readonly single: JSONRPCMessage } | { readonly batch: readonly JSONRPCMessage[] };

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function usableId(value: unknown): string | number | null {
	return typeof value === "string" || typeof value === "number" ? value : null;
}

/** The members a message may not hold (the SDK's schemas are strict), as a clause. */
function unknownMembers(value: Record<string, unknown>, allowed: readonly string[]): string | undefined {
	const extra = Object.keys(value).filter((k) => !allowed.includes(k));
	if (extra.length === 0) return undefined;
	return `unknown member${extra.length > 1 ? "s" : ""} ${extra
		.slice(0, 5)
		.map((k) => JSON.stringify(k.slice(0, 40)))
		.join(", ")} (a message holds only ${allowed.map((k) => `"${k}"`).join(", ")})`;
}

/** What is wrong with one value that is not a JSON-RPC 2.0 message, as a clause. */
function whyNotMessage(value: unknown): string {
	if (!isObject(value)) return `a JSON-RPC message is a JSON object, not ${Array.isArray(value) ? "an array" : value === null ? "null" : `a ${typeof value}`}`;
	if (value.jsonrpc !== "2.0") return `"jsonrpc" must be "2.0"`;
	if ("id" in value && usableId(value.id) === null) return `"id" must be a string or a number`;
	if ("method" in value) {
		if (typeof value.method !== "string") return `"method" must be a string`;
		if ("params" in value && !isObject(value.params)) return `"params" must be a JSON object`;
		return unknownMembers(value, ["jsonrpc", "id", "method", "params"]) ?? "it is not a valid request or notification";
	}
	if ("result" in value) return unknownMembers(value, ["jsonrpc", "id", "result"]) ?? "it is not a valid response";
	if ("error" in value) return unknownMembers(value, ["jsonrpc", "id", "error"]) ?? "it is not a valid error response";
	return `it has no "method" (a request or notification) and no "result" or "error" (a response)`;
}

function refuse(message: string, id: string | number | null = null): { refusal: RpcRefusal } {
	return { refusal: { code: ErrorCode.InvalidRequest, message: `Invalid Request: ${message}.`, id } };
}

/** The batch's own rules, once each element is a message (the SDK's HTTP transport holds the same two of them). */
function batchProblem(messages: readonly JSONRPCMessage[]): string | undefined {
	if (messages.length > MAX_BATCH) return `a batch of ${messages.length} messages is over the limit of ${MAX_BATCH}`;
	if (messages.length > 1 && messages.some((m) => isInitializeRequest(m))) return "initialize must be sent alone, not in a batch";
	const seen = new Set<string | number>();
	for (const m of messages) {
		if (!isJSONRPCRequest(m)) continue;
		if (seen.has(m.id)) return `two requests of the batch share the id ${JSON.stringify(m.id)}`;
		seen.add(m.id);
	}
	return undefined;
}

/**
 * A parsed body or line read as JSON-RPC 2.0: one message, a batch, or the -32600 answer that says
 * what is wrong. A batch is all or nothing: when one element is not a message, none of it runs.
 * The same rules for every transport (HTTP, `mcp --stdio`, `mcp-proxy`).
 */
export function readRpcBody(value: unknown): RpcBody | { refusal: RpcRefusal } {
	if (!Array.isArray(value)) {
		const parsed = JSONRPCMessageSchema.safeParse(value);
		if (parsed.success) return { single: parsed.data };
		return refuse(whyNotMessage(value), isObject(value) ? usableId(value.id) : null);
	}
	if (value.length === 0) return refuse("an empty batch");
	const messages: JSONRPCMessage[] = [];
	for (const [i, element] of value.entries()) {
		const parsed = JSONRPCMessageSchema.safeParse(element);
		if (!parsed.success) return refuse(`message ${i + 1} of the batch: ${whyNotMessage(element)}; nothing in the batch was run`);
		messages.push(parsed.data);
	}
	const problem = batchProblem(messages);
	return problem ? refuse(`${problem}; nothing in the batch was run`) : { batch: messages };
}

/** A JSON-RPC error object, `id` null when none could be read (not a JSONRPCMessage: the SDK's type has no null id). */
export function rpcErrorBody(code: number, message: string, id: string | number | null = null): { jsonrpc: "2.0"; id: string | number | null; error: { code: number; message: string } } {
	return { jsonrpc: "2.0", id, error: { code, message } };
}
