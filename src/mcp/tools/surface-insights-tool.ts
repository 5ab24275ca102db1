import * as z from "zod";
import { READ_ONLY, count, defineTool, text, type ToolEnv } from "../tool-kit";

export function surfaceInsightsTool(env: ToolEnv) {
	return defineTool({
		name: "engrama_surface_insights",
		title: "Pending Insights",
		description:
			"List Insights, highest confidence first: pending ones, or `status` approved or dismissed; `title` gives one, `query` those on a topic. The person decides; record it with engrama_approve_insight.",
		inputSchema: {
			limit: count("limit", 1, 100, "").default(10),
			title: text("title", 500, "One Insight, by exact title.").optional(),
			query: text("query", 500, "Only Insights about this topic.").optional(),
			status: z.enum(["pending", "approved", "dismissed"], { error: "status must be 'pending', 'approved' or 'dismissed'." }).default("pending").describe(""),
		},
		outputSchema: { insights: z.array(z.looseObject({ title: z.string(), body: z.string(), status: z.string() })) },
		annotations: { ...READ_ONLY, title: "Pending Insights" },
		async run(args, call) {
			const { skills } = env;
			const scope = call.scope.scope;
			if (args.status !== "pending" && args.title === undefined) {
				// Reviewed Insights: listed in review order (the topic search covers pending ones).
				const insights = await skills.insights(scope, { status: args.status, limit: args.limit });
				const n = insights.length;
				return {
					structured: { insights },
					summary: n === 0 ? `No ${args.status} Insights.` : `${n} ${args.status} Insight${n === 1 ? "" : "s"}: ${insights.map((i) => `"${i.title}"`).slice(0, 5).join(", ")}${n > 5 ? ", ..." : ""}.`,
				};
			}
			if (args.title !== undefined) {
				const view = await skills.insight(scope, args.title);
				const pending = view.status === "pending";
				return {
					structured: { insights: pending ? [view] : [], ...(pending ? {} : { note: `"${view.title}" is ${view.status}, not pending: it was already reviewed.` }) },
					summary: pending ? `Pending Insight "${view.title}" (${view.confidence}).` : `"${view.title}" is ${view.status}, not pending.`,
				};
			}
			const result = await skills.surfaceInsights(scope, { limit: args.limit, query: args.query });
			const n = result.insights.length;
			return {
				structured: { ...result },
				summary:
					n === 0
						? `No pending Insights${args.query ? ` related to "${args.query}"` : ""}. Run engrama_reflect to look for new patterns.`
						: `${n} pending Insight${n === 1 ? "" : "s"}: ${result.insights.map((i) => `"${i.title}"`).slice(0, 5).join(", ")}${n > 5 ? ", ..." : ""}. Ask the person to approve or dismiss each.`,
			};
		},
	});
}
