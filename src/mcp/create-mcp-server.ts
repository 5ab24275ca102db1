import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { toJsonSchemaCompat } from "@modelcontextprotocol/sdk/server/zod-json-schema-compat.js";
import {
	InitializeRequestSchema,
	ListToolsRequestSchema,
	type InitializeRequest,
	type InitializeResult,
	type ListToolsResult,
	type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod";
import { createSkills } from "../engine/host";
import type { McpServerInput } from "./mcp-services";
import type { ToolArguments } from "./request-guard";
import { scopeFromHeaders } from "./scope-headers";
import { SESSION_GUIDE_DESCRIPTION, SESSION_GUIDE_PROMPT, sessionGuide } from "./session-guide";
import { errorResult, okResult, profileSchemas, STRUCTURED_CONTENT_SINCE, type EngramaTool, type ToolCall, type ToolEnv } from "./tool-kit";
import { engramaTools } from "./tools";

export const SERVER_NAME = "engrama";

const INSTRUCTIONS =
	"Engrama is the person's graph memory (entities and typed relations, kept in step with their Obsidian vault). " +
	"Start a session with engrama_status and engrama_search on the topic. Store what you learn with engrama_remember (rich summary and details, inline relations) and wire it up with engrama_relate. " +
	"Use engrama_context before answering about a known entity. Run engrama_reflect now and then, and present pending Insights with engrama_surface_insights: the person approves or dismisses; Insights never act by themselves. The engrama_session_guide prompt has the full guide.";

/** Built once per memory: the tools' dependencies, shared by every session. */
export function createToolEnv(input: McpServerInput): ToolEnv {
	const { memory, services } = input;
	const skills = services.skills ?? createSkills(memory);
	return { memory, services, skills, schemas: profileSchemas(memory) };
}

type JsonSchema = Record<string, unknown>;

/** A schema without empty descriptions: a parameter whose name says it all is described as "" in its tool. */
function withoutEmptyDescriptions(value: unknown): unknown {
	if (Array.isArray(value)) return value.map(withoutEmptyDescriptions);
	if (typeof value !== "object" || value === null) return value;
	return Object.fromEntries(Object.entries(value).filter(([key, v]) => !(key === "description" && v === "")).map(([key, v]) => [key, withoutEmptyDescriptions(v)]));
}

/** An input schema as agents read it: no `$schema` line, and undeclared properties refused (as the server does). */
function inputJsonSchema(tool: EngramaTool): Tool["inputSchema"] {
	const { $schema: _, ...schema } = withoutEmptyDescriptions(toJsonSchemaCompat(z.object(tool.inputSchema), { strictUnions: true, pipeStrategy: "input" })) as JsonSchema;
	return { ...schema, additionalProperties: false } as unknown as Tool["inputSchema"];
}

/**
 * An output schema as the fields every success carries. The fields' shapes are in the tool's
 * description; spelling them out here doubled tools/list, which every session pays for.
 */
function outputJsonSchema(tool: EngramaTool): Tool["outputSchema"] {
	const full = toJsonSchemaCompat(z.looseObject(tool.outputSchema), { strictUnions: true, pipeStrategy: "output" });
	return { type: "object", ...(full.required ? { required: full.required } : {}) } as Tool["outputSchema"];
}

/** The annotations without their title, which is the tool's own (already in the listing). */
function annotationsOf(tool: EngramaTool): Tool["annotations"] {
	const { title: _title, ...hints } = tool.annotations;
	return hints;
}

// The JSON Schemas of the tools depend only on the profile: convert them once, not per tools/list
// (the conversion costs ~0.1 s, and every client session lists the tools).
const toolLists = new WeakMap<ToolEnv, ListToolsResult>();

function toolList(env: ToolEnv, tools: readonly EngramaTool[]): ListToolsResult {
	let list = toolLists.get(env);
	if (!list) {
		list = {
			tools: tools.map(
				(tool): Tool => ({
					name: tool.name,
					title: tool.title,
					description: tool.description,
					inputSchema: inputJsonSchema(tool),
					outputSchema: outputJsonSchema(tool),
					annotations: annotationsOf(tool),
				}),
			),
		};
		toolLists.set(env, list);
	}
	return list;
}

const toolArgumentsByServer = new WeakMap<McpServer, ToolArguments>();

/** A tool with its argument and answer schemas built once, for every session of the memory. */
interface BuiltTool {
	readonly tool: EngramaTool;
	readonly input: z.ZodObject;
	readonly output: z.ZodObject;
}

interface BuiltTools {
	readonly tools: readonly EngramaTool[];
	readonly built: readonly BuiltTool[];
	readonly arguments: ToolArguments;
}

// The tools and their zod schemas depend only on the memory's profile (ToolEnv): built once, not
// per session (≈8 ms of a session's start), and zod compiles each schema at its first parse, once.
const builtTools = new WeakMap<ToolEnv, BuiltTools>();

function toolsOf(env: ToolEnv): BuiltTools {
	let found = builtTools.get(env);
	if (!found) {
		const tools = engramaTools(env);
		const declared = new Map(tools.map((tool) => [tool.name, new Set(Object.keys(tool.inputSchema))]));
		found = {
			tools,
			built: tools.map((tool) => ({ tool, input: strictArguments(tool), output: z.looseObject(tool.outputSchema) })),
			arguments: (name) => declared.get(name),
		};
		builtTools.set(env, found);
	}
	return found;
}

/** The declared argument names of the tools of a server made here (for the request guard's unwrapping). */
export function toolArgumentsOf(server: McpServer): ToolArguments | undefined {
	return toolArgumentsByServer.get(server);
}

/** One MCP server (one per client session) with the fifteen tools and the session-guide prompt over the given memory. */
export function createEngramaMcpServer(envOrInput: ToolEnv | McpServerInput): McpServer {
	const env = "schemas" in envOrInput ? envOrInput : createToolEnv(envOrInput);
	const server = new McpServer(
		{ name: SERVER_NAME, version: env.services.version, title: "Engrama memory" },
		{ instructions: INSTRUCTIONS, maxToolInputElements: 10_000 },
	);
	const { tools, built, arguments: toolArguments } = toolsOf(env);
	const client = rememberProtocol(server);
	for (const tool of built) register(server, env, tool, client);
	server.server.setRequestHandler(ListToolsRequestSchema, () => toolList(env, tools));
	server.registerPrompt(SESSION_GUIDE_PROMPT, { title: "Engrama session guide", description: SESSION_GUIDE_DESCRIPTION }, () => ({
		description: SESSION_GUIDE_DESCRIPTION,
		messages: [{ role: "user", content: { type: "text", text: sessionGuide(env.memory.profile) } }],
	}));
	toolArgumentsByServer.set(server, toolArguments);
	return server;
}

/** The protocol version the session's client asked for at initialize (the SDK answers it but keeps no copy). */
function rememberProtocol(server: McpServer): { protocol?: string } {
	const client: { protocol?: string } = {};
	const base = server.server as unknown as { _oninitialize(request: InitializeRequest): Promise<InitializeResult> };
	const initialize = base._oninitialize.bind(base);
	server.server.setRequestHandler(InitializeRequestSchema, (request) => {
		client.protocol = request.params.protocolVersion;
		return initialize(request);
	});
	return client;
}

/**
 * A tool's arguments as a strict object: an argument the tool does not take is an error that names
 * it (and the argument meant, when one is close), never silently dropped.
 */
export function strictArguments(tool: EngramaTool): z.ZodObject {
	const declared = Object.keys(tool.inputSchema);
	const meant = (key: string) => declared.find((d) => d.startsWith(key) || key.startsWith(d) || d.replace(/_/g, "") === key.replace(/[_-]/g, "").toLowerCase());
	return z.strictObject(tool.inputSchema, {
		error: (issue) => {
			if (issue.code !== "unrecognized_keys") return undefined;
			const named = issue.keys.map((k) => `"${k.slice(0, 60)}"${meant(k) ? ` (did you mean "${meant(k)}"?)` : ""}`);
			const takes = declared.length > 0 ? `it takes ${declared.join(", ")}` : "it takes no arguments";
			return `${tool.name} does not take ${named.join(", ")}: ${takes}. Nothing was done; drop ${issue.keys.length === 1 ? "it" : "them"} and call again.`;
		},
	});
}

function register(server: McpServer, env: ToolEnv, { tool, input, output }: BuiltTool, client: { protocol?: string }): void {
	const { log } = env.services;
	server.registerTool(
		tool.name,
		{
			title: tool.title,
			description: tool.description,
			inputSchema: input,
			outputSchema: output,
			annotations: tool.annotations,
		},
		async (args: Record<string, unknown>, extra) => {
			let call: ToolCall | undefined;
			try {
				const scope = scopeFromHeaders(extra.requestInfo?.headers, env.services.identity);
				const agent = server.server.getClientVersion()?.name?.slice(0, 100);
				call = { scope, ctx: { scope: scope.scope, source: "mcp", ...(agent ? { agent } : {}), ...(extra.sessionId ? { session: extra.sessionId } : {}) } };
				// Protocol versions are ISO dates: they compare as strings.
				const structured = client.protocol === undefined || client.protocol >= STRUCTURED_CONTENT_SINCE;
				return okResult(await tool.run(args, call), { structured });
			} catch (error) {
				return errorResult(tool.name, error, call, log);
			}
		},
	);
}
