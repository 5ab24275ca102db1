import * as z from "zod";
import { MERGE_WRITE, defineTool, text, type ToolEnv } from "../tool-kit";

export function approveInsightTool(env: ToolEnv) {
	return defineTool({
		name: "engrama_approve_insight",
		title: "Approve or dismiss an Insight",
		description:
			"Record the person's decision on an Insight ('approve' or 'dismiss', optional reason), only after they decided. engrama_write_insight_to_vault puts an approved one in a note.",
		inputSchema: {
			title: text("title", 500, ""),
			action: z.enum(["approve", "dismiss"], { error: "action must be 'approve' or 'dismiss'." }).default("approve").describe(""),
			reason: text("reason", 2000, "Kept on the Insight.").optional(),
		},
		outputSchema: {
			insight: z.looseObject({ title: z.string(), status: z.string() }),
			previous_status: z.string(),
			changed: z.boolean(),
		},
		annotations: { ...MERGE_WRITE, title: "Approve or dismiss an Insight" },
		async run(args, call) {
			const verdict = args.action === "approve" ? "approved" : "dismissed";
			const result = await env.skills.reviewInsight(call.ctx, args.title, verdict, args.reason);
			return {
				structured: { ...result },
				summary: result.changed
					? `${verdict === "approved" ? "Approved" : "Dismissed"} "${result.insight.title}" (was ${result.previous_status}).`
					: `"${result.insight.title}" was already ${verdict}; nothing changed.`,
			};
		},
	});
}
