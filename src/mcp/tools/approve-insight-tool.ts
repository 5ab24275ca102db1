import { z } from "zod";
import { MERGE_WRITE, defineTool, text, type ToolEnv } from "../tool-kit";

export function approveInsightTool(env: ToolEnv) {
	return defineTool({
		name: "engrama_approve_insight",
		title: "Approve or dismiss an Insight",
		description:
			"Record the person's decision on an Insight proposed by reflect: action 'approve' or 'dismiss', with an optional reason. Call it only after the person decided. Reflect never resurfaces or rewrites a reviewed Insight; a dismissed one can still be approved later. An approved Insight can then be written into a note with engrama_write_insight_to_vault.",
		inputSchema: {
			title: text("title", 500, "Exact title of the Insight."),
			action: z.enum(["approve", "dismiss"], { error: "action must be 'approve' or 'dismiss'." }).default("approve").describe("'approve' or 'dismiss'."),
			reason: text("reason", 2000, "Why (optional), kept on the Insight.").optional(),
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
