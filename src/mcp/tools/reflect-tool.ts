import { z } from "zod";
import { NotAvailableError, defineTool, type ToolEnv } from "../tool-kit";

export function reflectTool(_env: ToolEnv) {
	return defineTool({
		name: "engrama_reflect",
		title: "Reflect (find patterns)",
		description:
			"Look for cross-entity patterns in your memory and record each as a pending Insight linked to the entities it is about: a solution from one project for an open problem in another, shared technologies, training opportunities, technique transfer, concept clusters, stale knowledge, under-connected nodes and much-used stubs. Adaptive: only patterns whose labels exist run. Re-running is safe: it never resurfaces or changes an Insight a person approved or dismissed. Then present the pending Insights with engrama_surface_insights; Insights never act by themselves.",
		inputSchema: {},
		outputSchema: { created: z.number() },
		annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false, title: "Reflect (find patterns)" },
		run() {
			return Promise.reject(new NotAvailableError("engrama_reflect", "the reflect skill has not landed"));
		},
	});
}
