import * as z from "zod";
import { ValidationError } from "../../engine/errors";
import type { RelationOutcomeView } from "../../engine";
import { MERGE_WRITE, defineTool, text, type ToolEnv } from "../tool-kit";

const target = z.union([
	text("relation target", 500, ""),
	z.object({
		name: text("relation target name", 500, ""),
		label: text("relation target label", 64, "").optional(),
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
			`Store a node (a MERGE: the same label + name updates it). properties need 'name' ('title' for ${titled.join(", ")}); add 'summary', 'details', 'tags', 'status'.`,
			`relations: {"USES": ["Python", {"name": "SQLite", "label": "Technology"}]}, types as engrama_relate's rel_type; each target comes back resolved, ambiguous (did_you_mean), stubbed or rejected (why).`,
		].join("\n"),
		inputSchema: {
			label: env.schemas.label(""),
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
				.describe(""),
			relations: z
				// One target or a list: read as a list, so the schema shows the target's shape once.
				.record(text("relation type", 64, ""), z.preprocess((v): unknown => (Array.isArray(v) ? (v as unknown[]) : [v]), z.array(target).max(100)))
				.refine((r) => Object.keys(r).length <= 50, { error: "relations names more than 50 types; keep at most 50." })
				.optional()
				.describe('{"REL_TYPE": [target, ...]}; a target is a name or {"name", "label"}.'),
			force_new: z.boolean().optional().describe("Create it even if it looks like a duplicate."),
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
				relationsNote(result.relations),
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

/** "2/3 relations written (USES "X": why)": each relation not written, with its reason. */
function relationsNote(relations: readonly RelationOutcomeView[]): string {
	if (relations.length === 0) return "";
	const written = relations.filter((r) => r.outcome === "resolved" || r.outcome === "stubbed");
	const missed = relations.filter((r) => !written.includes(r)).map((r) => `${r.type} "${r.target}": ${r.message.replace(/\.$/, "")}`);
	return `${written.length}/${relations.length} relations written${missed.length > 0 ? ` (${missed.join("; ")})` : ""}`;
}

function capitalise(text: string): string {
	return text.charAt(0).toUpperCase() + text.slice(1);
}
