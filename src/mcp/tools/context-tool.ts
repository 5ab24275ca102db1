import { z } from "zod";
import { NotFoundError } from "../../engine/errors";
import { CONTEXT_LIMIT } from "../../engine";
import { READ_ONLY, count, defineTool, text, type ToolEnv } from "../tool-kit";

export function contextTool(env: ToolEnv) {
	return defineTool({
		name: "engrama_context",
		title: "Node context",
		description:
			"Fetch one node with all its properties (summary, details, tags, status, ...) and its neighbourhood up to `hops` relations away: the nearest `limit` neighbours (label, name, depth, status) and the relations between them (from, type, to, direction seen from the node). Use it before answering about a person, project or technology, and to see what a search result connects to. `label` may be left out when the name is unique (a name under several labels asks for it). Works for isolated nodes too (empty neighbours). `truncated: true` means more neighbours exist than shown (`neighbour_count` says how many): raise `limit` or lower `hops`.",
		inputSchema: {
			name: text("name", 500, "Name (or title) of the node."),
			label: env.schemas.label("Label of the node; optional when the name is unique.").optional(),
			hops: count("hops", 1, 3, "How many relations away to walk (1-3).").default(1),
			limit: count("limit", 1, 200, "Most neighbours to return, nearest first (1-200).").default(CONTEXT_LIMIT),
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
