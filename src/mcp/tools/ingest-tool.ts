import { z } from "zod";
import { NotFoundError } from "../../engine/errors";
import { READ_ONLY, defineTool, requireVault, text, type ToolEnv } from "../tool-kit";
import { resolveVaultPath } from "../vault-path";

export function ingestTool(env: ToolEnv) {
	return defineTool({
		name: "engrama_ingest",
		title: "Ingest content",
		description:
			"Read a note from Engrama's own vault, raw text or a conversation transcript, and get it back with extraction guidance built from the active profile (labels, key fields, allowed relations, anchors), the names it mentions, and dedup_hints: existing nodes that look related, whose exact names you should reuse. Nothing is written: you then call engrama_remember once per entity (with inline relations). source_type 'note' reads a vault-relative path (never outside the vault; to use a note from another Obsidian server, read it there and pass it here as 'text').",
		inputSchema: {
			source: text("source", 200_000, "A vault-relative note path (source_type 'note') or the content itself ('text', 'conversation')."),
			source_type: z
				.enum(["note", "text", "conversation"], { error: "source_type must be 'note', 'text' or 'conversation'." })
				.default("note")
				.describe("'note' reads the vault path in source; 'text' and 'conversation' take source as the content."),
			context_hint: z.string().max(2000, { error: "context_hint is longer than 2000 characters; shorten it." }).default("").describe("Optional context (project, domain, course) to keep in mind while extracting."),
		},
		outputSchema: {
			kind: z.string(),
			content: z.string(),
			guidance: z.looseObject({ instructions: z.array(z.string()) }),
			dedup_hints: z.array(z.looseObject({ node_id: z.string(), label: z.string(), name: z.string() })),
		},
		annotations: { ...READ_ONLY, title: "Ingest content" },
		async run(args, call) {
			let content = args.source;
			let source: string | undefined;
			if (args.source_type === "note") {
				const vault = requireVault(env, "engrama_ingest with source_type 'note'");
				const path = await resolveVaultPath(vault, args.source, "source");
				if (!(await vault.source.stat(path))) {
					throw new NotFoundError(`No note "${path}" in the vault ${vault.path}. Check the path (relative to the vault root, with .md), or pass the content with source_type 'text'.`);
				}
				content = await vault.source.read(path);
				source = path;
			}
			const result = await env.skills.ingest(call.scope.scope, { content, kind: args.source_type, source });
			return {
				structured: { ...result, ...(args.context_hint ? { context_hint: args.context_hint } : {}) },
				summary: `Read ${result.characters} characters (${result.kind}${source ? ` from ${source}` : ""}); ${result.mentions.length} names mentioned, ${result.dedup_hints.length} existing nodes look related. Extract entities and call engrama_remember for each.`,
			};
		},
	});
}
