import { z } from "zod";
import { NotAvailableError, READ_ONLY, defineTool, text, type ToolEnv } from "../tool-kit";

export function surfaceInsightsTool(_env: ToolEnv) {
	return defineTool({
		name: "engrama_surface_insights",
		title: "Pending Insights",
		description:
			"List pending Insights (found by engrama_reflect) for the person to review: title, body, confidence and the entities each is about. Present them and ask the person to approve or dismiss each with engrama_approve_insight; never act on an Insight yourself. title returns one Insight; query returns only those related to a topic.",
		inputSchema: {
			limit: z.number().int().min(1).max(100).default(10).describe("Most Insights to return (1-100)."),
			title: text("title", 500, "Only the pending Insight with this exact title.").optional(),
			query: text("query", 500, "Only pending Insights related to this topic (ignored when title is given).").optional(),
		},
		outputSchema: { insights: z.array(z.looseObject({ title: z.string() })) },
		annotations: { ...READ_ONLY, title: "Pending Insights" },
		run() {
			return Promise.reject(new NotAvailableError("engrama_surface_insights", "the proactive skill has not landed"));
		},
	});
}
