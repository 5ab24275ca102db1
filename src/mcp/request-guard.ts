import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
	CallToolRequestSchema,
	ErrorCode,
	InitializeRequestSchema,
	ListToolsRequestSchema,
	PingRequestSchema,
	type JSONRPCMessage,
} from "@modelcontextprotocol/sdk/types.js";

/** The requests this server answers, by the SDK's own schemas (which it would check with -32603). */
const SCHEMAS: Readonly<Record<string, { safeParse(value: unknown): { success: boolean; error?: { issues: readonly Issue[] } } }>> = {
	"tools/call": CallToolRequestSchema,
	"tools/list": ListToolsRequestSchema,
	initialize: InitializeRequestSchema,
	ping: PingRequestSchema,
};

interface Issue {
	readonly code: string;
	readonly path: readonly PropertyKey[];
	readonly message: string;
	readonly expected?: string;
}

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

/** The declared argument names of each tool, by tool name (undefined for an unknown tool). */
export type ToolArguments = (tool: string) => ReadonlySet<string> | undefined;

/**
 * The Python engrama's tools take their arguments wrapped, `{"params": {...}}`; these take them
 * flat. A call whose arguments hold an undeclared `params` key is read as the wrapped shape:
 * `{params: {...}}` alone is unwrapped; anything else around it is a problem sentence.
 */
export function unwrapParams(tool: string, args: Record<string, unknown>, declared: ReadonlySet<string>): { args: Record<string, unknown> } | { problem: string } {
	if (!("params" in args) || declared.has("params")) return { args };
	const inner = args.params;
	const name = tool.slice(0, 100);
	if (!isObject(inner)) {
		return {
			problem: `Invalid params: ${name} takes its arguments flat or wrapped as {"params": {...}}; "params" must be a JSON object of its parameters (see its inputSchema in tools/list), not ${kind(inner)}.`,
		};
	}
	const others = Object.keys(args).filter((k) => k !== "params");
	if (others.length > 0) {
		return {
			problem: `Invalid params: the arguments of ${name} mix "params" with flat arguments (${others.slice(0, 5).join(", ")}); send them either flat or all inside {"params": {...}}.`,
		};
	}
	return { args: inner };
}

/** The first schema problem of a request, as a sentence (undefined when the request is fine). */
export function requestProblem(request: { method: string; params?: unknown }): string | undefined {
	if (request.method === "tools/call") {
		const problem = toolCallProblem(request.params);
		if (problem) return problem;
		// Beyond name and arguments the schema checks only `_meta` and `task`: without them the call
		// passes it, and the SDK parses it against the same schema anyway (once, not twice).
		const params = request.params as Record<string, unknown>;
		if (!("_meta" in params) && !("task" in params)) return undefined;
	}
	const schema = SCHEMAS[request.method];
	const result = schema?.safeParse(request);
	const issue = result && !result.success ? result.error?.issues[0] : undefined;
	if (!issue) return undefined;
	const where = issue.path.length > 0 ? `"${issue.path.map(String).join(".")}"` : "the request";
	const received = /received (\w+)/.exec(issue.message)?.[1];
	const why =
		issue.code === "invalid_type" && issue.expected
			? `must be ${issue.expected === "record" || issue.expected === "object" ? "a JSON object" : `a ${issue.expected}`}${received ? `, not ${received}` : ""}`
			: `is not valid (${issue.message.replace(/^Invalid input: /, "")})`;
	return `Invalid params: in ${request.method}, ${where} ${why}.`;
}

/**
 * tools/call arguments in the wrapped shape `{"params": {...}}` made flat (the same message when
 * there is nothing to unwrap), or the problem with the wrapped shape.
 */
function unwrapToolCall(message: JSONRPCMessage, toolArguments: ToolArguments | undefined): { message: JSONRPCMessage } | { problem: string } {
	const request = message as { method?: unknown; params?: unknown };
	if (!toolArguments || request.method !== "tools/call" || !isObject(request.params)) return { message };
	const { name, arguments: args } = request.params;
	const declared = typeof name === "string" ? toolArguments(name) : undefined;
	if (!declared || !isObject(args)) return { message };
	const unwrapped = unwrapParams(name as string, args, declared);
	if ("problem" in unwrapped) return unwrapped;
	if (unwrapped.args === args) return { message };
	return { message: { ...message, params: { ...request.params, arguments: unwrapped.args } } as JSONRPCMessage };
}

/**
 * Answers a request with malformed params (tools/call, tools/list, initialize, ping) with JSON-RPC
 * -32602 and a sentence, before the SDK sees it, and unwraps tools/call arguments sent in the
 * Python engrama's `{"params": {...}}` shape when `toolArguments` is given. Call after
 * `server.connect(transport)` (it wraps the handler the server installed).
 */
export function guardToolCalls(transport: Transport, log?: (line: string) => void, toolArguments?: ToolArguments): void {
	const deliver = transport.onmessage;
	transport.onmessage = (original, extra) => {
		let message: JSONRPCMessage = original;
		const request = message as { method?: unknown; id?: unknown; params?: unknown };
		if (typeof request.method === "string" && (typeof request.id === "string" || typeof request.id === "number")) {
			let problem = requestProblem({ method: request.method, params: request.params });
			if (!problem) {
				const unwrapped = unwrapToolCall(message, toolArguments);
				if ("problem" in unwrapped) problem = unwrapped.problem;
				else message = unwrapped.message;
			}
			if (problem) {
				const reply: JSONRPCMessage = { jsonrpc: "2.0", id: request.id, error: { code: ErrorCode.InvalidParams, message: problem } };
				transport.send(reply).catch((error: unknown) => log?.(`engrama mcp: answering a malformed tools/call: ${String(error)}`));
				return;
			}
		}
		(deliver as ((message: JSONRPCMessage, extra?: unknown) => void) | undefined)?.(message, extra);
	};
}
