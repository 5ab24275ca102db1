import * as z from "zod";
import { defineTool, type ToolEnv } from "../tool-kit";

export function reflectTool(env: ToolEnv) {
	return defineTool({
		name: "engrama_reflect",
		title: "Reflect (find patterns)",
		description:
			"Find patterns across the memory (a solution for an open problem elsewhere, shared technologies, clusters, stale nodes) as pending Insights; show them with engrama_surface_insights.",
		inputSchema: {},
		outputSchema: {
			created: z.number(),
			refreshed: z.number(),
			unchanged: z.number(),
			detectors: z.array(z.looseObject({ detector: z.string(), ran: z.boolean() })),
			insights: z.array(z.looseObject({ title: z.string(), body: z.string() })),
		},
		annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false, title: "Reflect (find patterns)" },
		async run(_args, call) {
			const report = await env.skills.reflect(call.ctx);
			const ran = report.detectors.filter((d) => d.ran).length;
			return {
				structured: { ...report },
				summary: `Reflect ran ${ran} of ${report.detectors.length} detectors: ${report.insights.length} pending Insight${report.insights.length === 1 ? "" : "s"} (${report.created} new, ${report.refreshed} refreshed, ${report.unchanged} unchanged). Present them with engrama_surface_insights; the person approves or dismisses.`,
			};
		},
	});
}
