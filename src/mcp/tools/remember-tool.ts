import { z } from "zod";
import { ValidationError } from "../../engine/errors";
import { MERGE_WRITE, defineTool, text, type ToolEnv } from "../tool-kit";

const target = z.union([
	text("relation target", 500, "Target name."),
	z.object({
		name: text("relation target name", 500, "Target name (or title)."),
		label: text("relation target label", 64, "Pins the target's label, e.g. Technology.").optional(),
	}),
]);

export function rememberTool(env: ToolEnv) {
	const { profile } = env.memory;
	const titled = profile
		.labels()
		.filter((l) => l.keyField === "title")
		.map((l) => l.label);
	return defineTool({
		name: "engrama_remember",
		title: "Remember (merge a node)",
		description: [
			"Store knowledge as a node in the memory graph. Always a MERGE: the same label + name updates the existing node, so it is safe to repeat.",
			`properties must include 'name' (or 'title' for ${titled.join(", ")}). Make nodes rich: 'summary' (2-3 sentences: what it is, why it matters), 'details' (techniques, decisions, alternatives, examples), 'tags' (list of strings), 'status'. Thin nodes are nearly useless later.`,
			`relations creates typed edges in the same call: {"USES": ["Python", {"name": "SQLite", "label": "Technology"}]}. Relation types: ${profile.relationTypes().join(", ")}. Targets are matched by name through the entity resolver; each target reports resolved, ambiguous (pick from did_you_mean), stubbed (a stub node was created) or rejected (with the reason).`,
			"The answer reports degree, possible_duplicate_of, orphan_warning and suggested_relations when the node has no relations (relate it, then), and proactive_hint after many remembers (run engrama_reflect).",
		].join("\n"),
		inputSchema: {
			label: env.schemas.label("Node label from the active profile."),
			properties: z
				.record(z.string().max(64), z.unknown(), {
					error: (issue) =>
						issue.code === "invalid_key"
							? "Property names are at most 64 characters; shorten this one."
							: issue.code !== "invalid_type"
								? undefined
								: issue.input === undefined
									? "properties is required: an object with name (or title), summary, details, tags, status."
									: 'properties must be an object of property name → value, e.g. {"name": "Billing Portal", "summary": "..."}.',
				})
				.refine((p) => Object.keys(p).length <= 100, { error: "properties has more than 100 keys; keep at most 100." })
				.describe("Node properties: name (or title), summary, details, tags, status and any profile property."),
			relations: z
				.record(text("relation type", 64, "Relation type."), z.union([target, z.array(target).max(100)]))
				.refine((r) => Object.keys(r).length <= 50, { error: "relations names more than 50 types; keep at most 50." })
				.optional()
				.describe('Optional relations to create with the node: {"REL_TYPE": [target, ...]}; a target is a name or {"name", "label"}.'),
			force_new: z.boolean().optional().describe("With ENGRAMA_REMEMBER_DEDUPE=block: create the node even though it looks like a duplicate."),
		},
		outputSchema: {
			created: z.boolean(),
			node: z.looseObject({ node_id: z.string(), label: z.string(), name: z.string() }),
			degree: z.number(),
			warnings: z.array(z.string()),
		},
		annotations: { ...MERGE_WRITE, title: "Remember (merge a node)" },
		async run(args, call) {
			const def = profile.resolveLabel(args.label);
			const keyField = def?.keyField ?? "name";
			const other = keyField === "title" ? "name" : "title";
			const props: Record<string, unknown> = { ...args.properties };
			// The key field, or the other one as an alias (the Python engrama accepts both).
			const used = typeof props[keyField] === "string" ? keyField : typeof props[other] === "string" ? other : undefined;
			if (!used) {
				throw new ValidationError(`properties must include "${keyField}" (a string): it is the ${args.label}'s unique key.`);
			}
			const name = props[used] as string;
			delete props[used];
			const result = await env.skills.remember(call.ctx, {
				label: args.label,
				name,
				props,
				relations: args.relations,
				forceNew: args.force_new,
			});
			const node = result.node;
			const notes = [
				result.relations.length > 0 ? `${result.relations.filter((r) => r.outcome === "resolved" || r.outcome === "stubbed").length}/${result.relations.length} relations written` : "",
				result.orphan_warning ? "no relations yet: see suggested_relations" : "",
				result.possible_duplicate_of.length > 0 ? `possible duplicate of ${result.possible_duplicate_of.map((d) => `${d.label} "${d.name}"`).join(", ")}` : "",
				...result.warnings,
				result.proactive_hint ? `${result.proactive_hint.replace(/\.$/, "")} (engrama_reflect, then engrama_surface_insights)` : "",
			].filter(Boolean);
			return {
				structured: { ...result },
				summary: `${result.created ? "Created" : "Updated"} ${node.label} "${node.name}" (${node.node_id}), degree ${result.degree}.${notes.length ? ` ${capitalise(notes.join("; ").replace(/\.$/, ""))}.` : ""}`,
			};
		},
	});
}

function capitalise(text: string): string {
	return text.charAt(0).toUpperCase() + text.slice(1);
}
