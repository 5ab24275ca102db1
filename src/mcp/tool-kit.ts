import type { CallToolResult, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod";
import { EngramaError, ScopeError, errorMessage } from "../engine/errors";
import { isFullScope, type Skills, type WriteContext } from "../engine";
import { type Memory } from "../engine/host";
import type { McpServices, McpVault } from "./mcp-services";
import type { CallScope } from "./scope-headers";

/** Everything a tool handler may use: the memory, the skills' dependencies and the services. */
export interface ToolEnv {
	readonly memory: Memory;
	readonly services: McpServices;
	readonly skills: Skills;
	readonly schemas: ProfileSchemas;
}

/** Who is calling: the scope from the headers and the write context stamped on writes. */
export interface ToolCall {
	readonly scope: CallScope;
	readonly ctx: WriteContext;
}

/** What a handler returns: structured JSON plus a short line a person can read. */
export interface ToolOutput {
	readonly structured: Record<string, unknown>;
	readonly summary: string;
}

export interface EngramaTool<S extends z.ZodRawShape = z.ZodRawShape> {
	readonly name: string;
	readonly title: string;
	readonly description: string;
	readonly inputSchema: S;
	/** Top-level fields every success carries; extra fields are allowed (answers grow additively). */
	readonly outputSchema: z.ZodRawShape;
	readonly annotations: ToolAnnotations;
	run(args: z.infer<z.ZodObject<S>>, call: ToolCall): Promise<ToolOutput>;
}

/** Keeps the args type of `run` tied to the input schema. */
export function defineTool<S extends z.ZodRawShape>(tool: EngramaTool<S>): EngramaTool<S> {
	return tool;
}

/** A tool whose skill is not in this build yet: a clear, expected failure. */
export class NotAvailableError extends EngramaError {
	constructor(tool: string, what: string) {
		super("not_available", `${tool} is not available yet in this build: ${what}. Use the other engrama_* tools meanwhile.`);
	}
}

export type StringEnum = z.ZodEnum<Record<string, string>>;

/** The labels and relation types of the active profile as zod enums (they shape the JSON Schema). */
export interface ProfileSchemas {
	readonly labels: readonly string[];
	readonly relationTypes: readonly string[];
	label(description: string): StringEnum;
	relationType(description: string): StringEnum;
}

export function profileSchemas(memory: Memory): ProfileSchemas {
	const labels = memory.profile.labels().map((l) => l.label);
	const relationTypes = [...memory.profile.relationTypes()];
	const enumOf = (values: readonly string[], what: string, description: string): StringEnum =>
		z
			.enum(values as [string, ...string[]], {
				error: (issue) =>
					`${what} ${JSON.stringify(issue.input)?.slice(0, 80) ?? "(missing)"} is not in profile ${memory.profile.name}. Use one of: ${values.join(", ")}.`,
			})
			.describe(description);
	return {
		labels,
		relationTypes,
		label: (description) => enumOf(labels, "Label", description),
		relationType: (description) => enumOf(relationTypes, "Relation type", description),
	};
}

/** A bounded, trimmed string with a message that says the limit. */
export function text(field: string, max: number, description: string, min = 1): z.ZodString {
	return z
		.string({ error: (issue) => (issue.input === undefined ? `${field} is required.` : `${field} must be a string.`) })
		.trim()
		.min(min, { error: `${field} must not be empty.` })
		.max(max, { error: `${field} is longer than ${max} characters; shorten it.` })
		.describe(description);
}

/** A bounded whole number; every mistake (missing, wrong type, fraction, out of range) says the range. */
export function count(field: string, min: number, max: number, description: string): z.ZodNumber {
	const range = `${field} must be a whole number from ${min} to ${max}`;
	return z
		.number({ error: (issue) => (issue.input === undefined ? `${field} is required.` : `${range}, not ${JSON.stringify(issue.input)?.slice(0, 40) ?? typeof issue.input}.`) })
		.int({ error: `${range}.` })
		.min(min, { error: `${range}.` })
		.max(max, { error: `${range}.` })
		.describe(description);
}

export function requireVault(env: ToolEnv, tool: string): McpVault {
	if (!env.services.vault) {
		throw new NotAvailableError(tool, "no vault is configured for this memory (start it with --vault PATH or VAULT_PATH, or from Obsidian)");
	}
	return env.services.vault;
}

/**
 * The vault is the standalone person's: tools that read or write it run only for that identity
 * (no scope headers), so another tenant's call can never touch this person's notes.
 */
export function requireVaultOwner(env: ToolEnv, call: ToolCall, tool: string): McpVault {
	const vault = requireVault(env, tool);
	const scope = call.scope.scope;
	const owner = env.services.identity;
	if (!isFullScope(scope)) throw new ScopeError(call.scope.problem ?? "This call has no complete scope.");
	if (scope.orgId !== owner.orgId || scope.userId !== owner.userId) {
		throw new ScopeError(`${tool} works on the vault of this memory's own identity only. Call it without X-Engrama-Org-Id / X-Engrama-User-Id.`);
	}
	return vault;
}

/** The protocol version from which clients read `structuredContent` (MCP 2025-06-18). */
export const STRUCTURED_CONTENT_SINCE = "2025-06-18";

/**
 * A success: the data once, in `structuredContent`, and a one-line summary as text. A client that
 * negotiated a protocol older than structured content (`structured: false`) gets the data as
 * compact JSON after the summary instead, so it still sees it; never pretty-printed, never twice.
 */
export function okResult(output: ToolOutput, options: { structured?: boolean } = {}): CallToolResult {
	const text = options.structured === false ? `${output.summary}\n${JSON.stringify(output.structured)}` : output.summary;
	return { content: [{ type: "text", text }], structuredContent: output.structured };
}

/** Expected failures carry their message (what to change); anything else is reported as internal. */
export function errorResult(tool: string, error: unknown, call: ToolCall | undefined, log?: (line: string) => void): CallToolResult {
	let message: string;
	let code: string;
	let details: Readonly<Record<string, unknown>> = {};
	if (error instanceof ScopeError && call?.scope.problem) {
		code = error.code;
		message = `Refused: this call has no complete scope. ${call.scope.problem}`;
	} else if (error instanceof EngramaError) {
		code = error.code;
		message = error.message;
		details = error.details;
	} else {
		code = "internal_error";
		message = `${tool} failed unexpectedly: ${errorMessage(error)}. Nothing further was done; retry, and report it if it repeats.`;
		log?.(`engrama mcp: ${tool} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
	}
	// One block: the message once, then the code (and details, when any) as a short JSON line. Not
	// structuredContent: clients check that against the tool's output schema, errors included.
	const payload = { error: { code, ...(Object.keys(details).length > 0 ? { details } : {}) } };
	return { isError: true, content: [{ type: "text", text: `${message}\n${JSON.stringify(payload)}` }] };
}

export const READ_ONLY: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
export const MERGE_WRITE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };
