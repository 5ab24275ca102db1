import { z } from "zod";
import { READ_ONLY, count, defineTool, text, type ToolEnv } from "../tool-kit";

export function surfaceInsightsTool(env: ToolEnv) {
	return defineTool({
		name: "engrama_surface_insights",
		title: "Pending Insights",
		description:
			"List pending Insights (proposed by engrama_reflect) for the person to review: title, body, confidence, detector and the entities each is about, highest confidence first. Present them and ask the person to approve or dismiss each with engrama_approve_insight; never act on an Insight yourself. `title` returns that one Insight (when it is still pending); `query` returns only Insights related to a topic (by title and body, by the entities they are about, or by meaning), best match first.",
		inputSchema: {
			limit: count("limit", 1, 100, "Most Insights to return (1-100).").default(10),
			title: text("title", 500, "Only the pending Insight with this exact title.").optional(),
			query: text("query", 500, "Only pending Insights related to this topic (ignored when title is given).").optional(),
		},
		outputSchema: { insights: z.array(z.looseObject({ title: z.string(), body: z.string(), status: z.string() })) },
		annotations: { ...READ_ONLY, title: "Pending Insights" },
		async run(args, call) {
			const { skills } = env;
			const scope = call.scope.scope;
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
