import { z } from "zod";
import { MERGE_WRITE, defineTool, text, type ToolEnv } from "../tool-kit";

export function relateTool(env: ToolEnv) {
	const nodeRef = z.looseObject({ node_id: z.string(), label: z.string(), name: z.string() });
	return defineTool({
		name: "engrama_relate",
		title: "Relate two nodes",
		description:
			"Connect two existing nodes with a typed relation, validated against the profile (which types may go from which label to which). Call it right after engrama_remember to wire a new node into the graph, and whenever you notice a connection. Idempotent: relating twice keeps one edge (created: false). Both nodes must exist in your scope (create them with engrama_remember first); names match up to case and accents, and a miss answers with did_you_mean.",
		inputSchema: {
			from_name: text("from_name", 500, "Name (or title) of the source node."),
			from_label: env.schemas.label("Label of the source node."),
			rel_type: env.schemas.relationType("Relation type."),
			to_name: text("to_name", 500, "Name (or title) of the target node."),
			to_label: env.schemas.label("Label of the target node."),
		},
		outputSchema: { created: z.boolean(), from: nodeRef, type: z.string(), to: nodeRef },
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
				summary: `${result.created ? "Related" : "Already related"}: ${result.from.label} "${result.from.name}" -[${result.type}]-> ${result.to.label} "${result.to.name}".`,
			};
		},
	});
}
