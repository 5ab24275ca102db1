import { z } from "zod";
import { NotAvailableError, defineTool, text, type ToolEnv } from "../tool-kit";

export function writeInsightTool(_env: ToolEnv) {
	return defineTool({
		name: "engrama_write_insight_to_vault",
		title: "Write an approved Insight into a note",
		description:
			"Append an approved Insight as a dated section (with links to the notes of the entities it is about) to a note of Engrama's own vault. target_note is vault-relative (e.g. 'Projects/Billing Portal.md'); paths outside the vault (.., absolute, symlinks leading out) are refused. Pending or dismissed Insights are refused: approve it first with engrama_approve_insight.",
		inputSchema: {
			title: text("title", 500, "Exact title of the approved Insight."),
			target_note: text("target_note", 1000, "Vault-relative path of the note to append to."),
		},
		outputSchema: { title: z.string(), path: z.string() },
		annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false, title: "Write an approved Insight into a note" },
		run() {
			return Promise.reject(new NotAvailableError("engrama_write_insight_to_vault", "the proactive skill has not landed"));
		},
	});
}
