import * as z from "zod";
import { MERGE_WRITE, defineTool, text, type ToolEnv } from "../tool-kit";

export function relateTool(env: ToolEnv) {
	const nodeRef = z.looseObject({ node_id: z.string(), label: z.string(), name: z.string() });
	return defineTool({
		name: "engrama_relate",
		title: "Relate two nodes",
		description:
			"Add a typed relation between two existing nodes. Idempotent (created: false when it exists); a name not found answers did_you_mean.",
		inputSchema: {
			from_name: text("from_name", 500, ""),
			from_label: env.schemas.label(""),
			rel_type: env.schemas.relationType(""),
			to_name: text("to_name", 500, ""),
			to_label: env.schemas.label(""),
		},
		outputSchema: { created: z.boolean(), from: nodeRef, type: z.string(), to: nodeRef, warnings: z.array(z.string()).optional() },
		annotations: { ...MERGE_WRITE, title: "Relate two nodes" },
		async run(args, call) {
			const result = await env.skills.relate(
				call.ctx,
				{ label: args.from_label, name: args.from_name },
				args.rel_type,
				{ label: args.to_label, name: args.to_name },
			);
			return {
				structured: { ...result },
				summary: [
					`${result.created ? "Related" : "Already related"}: ${result.from.label} "${result.from.name}" -[${result.type}]-> ${result.to.label} "${result.to.name}".`,
					...(result.warnings ?? []),
				].join(" "),
			};
		},
	});
}
