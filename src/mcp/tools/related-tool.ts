import * as z from "zod";
import { NotFoundError } from "../../engine/errors";
import { RELATED_LIMIT, type RelatedNoteView } from "../../engine";
import { READ_ONLY, count, defineTool, text, type ToolEnv } from "../tool-kit";

/** One note of the answer: what an agent needs to open it and to judge it. */
function row(note: RelatedNoteView): Record<string, unknown> {
	return {
		path: note.path,
		title: note.name,
		...(note.passage ? { why: note.passage.snippet, heading: note.passage.heading } : {}),
		score: note.score,
		...(note.relation ? { relation: note.relation.type, direction: note.relation.direction } : {}),
	};
}

export function relatedTool(env: ToolEnv) {
	return defineTool({
		name: "engrama_related",
		title: "Related notes",
		description:
			"Notes related to a note and not yet linked to it, best first; `why` is the shared passage, shared words in **bold**. Linked notes come apart in `linked`.",
		inputSchema: {
			note: text("note", 1000, "A vault path or a note's name."),
			limit: count("limit", 1, 30, "").default(RELATED_LIMIT),
		},
		outputSchema: {
			note: z.string(),
			related: z.array(z.looseObject({})),
			linked: z.array(z.looseObject({})),
		},
		annotations: { ...READ_ONLY, title: "Related notes" },
		async run(args, call) {
			const view = await env.skills.relatedToNote(call.scope.scope, args.note, { limit: args.limit });
			if (!view) {
				throw new NotFoundError(`No note "${args.note}" in this memory${call.scope.problem ? ` (${call.scope.problem})` : ""}. Give a path as engrama_search returns it, or the note's exact name.`);
			}
			const related = view.related.map(row);
			const linked = view.linked.map(row);
			return {
				structured: { note: args.note, related, linked },
				summary: `${related.length} related notes not yet linked to "${args.note}", ${linked.length} linked.`,
			};
		},
	});
}
