import { z } from "zod";
import { defineTool, type ToolEnv } from "../tool-kit";

export function reflectTool(env: ToolEnv) {
	return defineTool({
		name: "engrama_reflect",
		title: "Reflect (find patterns)",
		description:
			"Look for cross-entity patterns in your memory and record each as a pending Insight linked ABOUT the entities involved: a solution from one project for an open problem in another, shared technologies, training opportunities, technique transfer, concept clusters, stale knowledge, under-connected nodes and much-used stubs. Adaptive: only detectors whose labels exist run (the report says which ran and why others were skipped). Re-running is safe: it never resurfaces or changes an Insight a person approved or dismissed. Then present the pending Insights with engrama_surface_insights and let the person approve or dismiss them; Insights never act by themselves.",
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
