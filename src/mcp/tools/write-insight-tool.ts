import * as z from "zod";
import { DEFAULT_INSIGHTS_FOLDER } from "../../engine";
import { defineTool, requireVaultOwner, text, type ToolEnv } from "../tool-kit";
import { resolveVaultFolder, resolveVaultPath } from "../vault-path";

export function writeInsightTool(env: ToolEnv) {
	return defineTool({
		name: "engrama_write_insight_to_vault",
		title: "Write an approved Insight into a note",
		description:
			"Write an approved Insight into Engrama's vault: appended to target_note, or as a new note in the Insights folder. Writing it twice is a no-op.",
		inputSchema: {
			title: text("title", 500, ""),
			target_note: text("target_note", 1000, "Vault-relative note to append to; omit for a new note.").optional(),
		},
		outputSchema: { title: z.string(), path: z.string(), created: z.boolean(), written: z.boolean() },
		annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false, title: "Write an approved Insight into a note" },
		async run(args, call) {
			const vault = requireVaultOwner(env, call, "engrama_write_insight_to_vault");
			const note =
				args.target_note === undefined
					? undefined
					: await resolveVaultPath(vault, /\.md$/i.test(args.target_note) ? args.target_note : `${args.target_note}.md`, "target_note");
			// A new note goes to the Insights folder: that folder may be a symlink leading out too.
			if (note === undefined) await resolveVaultFolder(vault, DEFAULT_INSIGHTS_FOLDER, "The Insights folder");
			const result = await env.skills.writeInsightToNote(call.ctx, vault.source, args.title, { note });
			return {
				structured: { ...result },
				summary: !result.written
					? `${result.path} already holds "${result.title}"; nothing written.`
					: result.created
						? `Created ${result.path} with the Insight "${result.title}".`
						: `Appended the Insight "${result.title}" to ${result.path}.`,
			};
		},
	});
}
