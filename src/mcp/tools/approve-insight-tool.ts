import { z } from "zod";
import { NotAvailableError, MERGE_WRITE, defineTool, text, type ToolEnv } from "../tool-kit";

export function approveInsightTool(_env: ToolEnv) {
	return defineTool({
		name: "engrama_approve_insight",
		title: "Approve or dismiss an Insight",
		description:
			"Record the person's decision on a pending Insight: action 'approve' or 'dismiss' (with an optional reason). Call it only after the person decided; an approved or dismissed Insight is never resurfaced by reflect. An approved Insight can then be written into a note with engrama_write_insight_to_vault.",
		inputSchema: {
			title: text("title", 500, "Exact title of the Insight."),
			action: z.enum(["approve", "dismiss"], { error: "action must be 'approve' or 'dismiss'." }).default("approve").describe("'approve' or 'dismiss'."),
			reason: text("reason", 2000, "Why (optional), kept on the Insight.").optional(),
		},
		outputSchema: { title: z.string(), status: z.string() },
		annotations: { ...MERGE_WRITE, title: "Approve or dismiss an Insight" },
		run() {
			return Promise.reject(new NotAvailableError("engrama_approve_insight", "the proactive skill has not landed"));
		},
	});
}
