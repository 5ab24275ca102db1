import * as z from "zod";
import { NotFoundError, ValidationError } from "../../engine/errors";
import { READ_ONLY, defineTool, requireVault, text, type ToolEnv } from "../tool-kit";
import { resolveVaultPath } from "../vault-path";

export function ingestTool(env: ToolEnv) {
	return defineTool({
		name: "engrama_ingest",
		title: "Ingest content",
		description:
			"Stores nothing: returns a vault note, text or transcript with extraction guidance from the profile, the names it mentions and dedup_hints (existing nodes whose names to reuse). Then store each entity with engrama_remember.",
		inputSchema: {
			source: text("source", 200_000, "A vault-relative note path, or the content itself."),
			source_type: z
				.enum(["note", "text", "conversation"], { error: "source_type must be 'note', 'text' or 'conversation'." })
				.default("note")
				.describe(""),
			context_hint: z.string().max(2000, { error: "context_hint is longer than 2000 characters; shorten it." }).default("").describe("Context to keep in mind (project, domain)."),
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
				// The description allows the content itself, and source_type defaults to 'note': say which to pass.
				if (!/\.md$/i.test(args.source)) {
					throw new ValidationError(
						`source "${args.source.slice(0, 80)}" is not a note path (a vault path ending in .md). To ingest this text itself, call again with source_type 'text' (or 'conversation' for a transcript).`,
						{ path: args.source.slice(0, 200) },
					);
				}
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
