import * as z from "zod";
import { NotFoundError } from "../../engine/errors";
import { CONTEXT_LIMIT } from "../../engine";
import { READ_ONLY, count, defineTool, text, type ToolEnv } from "../tool-kit";

export function contextTool(env: ToolEnv) {
	return defineTool({
		name: "engrama_context",
		title: "Node context",
		description:
			"One node with all its properties, its nearest neighbours up to `hops` away (each with its note path) and the relations between them. truncated: true means more exist (neighbour_count).",
		inputSchema: {
			name: text("name", 500, ""),
			label: env.schemas.label("Optional when the name is unique.").optional(),
			hops: count("hops", 1, 3, "").default(1),
			limit: count("limit", 1, 200, "Nearest first.").default(CONTEXT_LIMIT),
		},
		outputSchema: {
			node: z.looseObject({ node_id: z.string(), label: z.string(), name: z.string() }),
			neighbours: z.array(z.looseObject({ node_id: z.string(), label: z.string(), name: z.string(), depth: z.number() })),
			relations: z.array(z.looseObject({ from: z.string(), type: z.string(), to: z.string(), direction: z.string() })),
			truncated: z.boolean(),
		},
		annotations: { ...READ_ONLY, title: "Node context" },
		async run(args, call) {
			const view = await env.skills.context(call.scope.scope, { label: args.label, name: args.name }, args.hops, args.limit);
			if (!view) {
				const what = args.label ? `${args.label} "${args.name}"` : `node named "${args.name}"`;
				throw new NotFoundError(
					`No ${what} in this memory${call.scope.problem ? ` (${call.scope.problem})` : ""}. Check the exact name with engrama_search, or create it with engrama_remember.`,
				);
			}
			return {
				structured: { ...view },
				summary: `${view.node.label} "${view.node.name}": ${view.neighbours.length}${view.neighbour_count !== undefined ? ` of ${view.neighbour_count}` : ""} neighbours, ${view.relations.length} relations${view.truncated ? " (truncated: raise limit to see more)" : ""}.`,
			};
		},
	});
}
