import { z } from "zod";
import { defineTool, type ToolEnv } from "../tool-kit";

export function gdprForgetTool(env: ToolEnv) {
	return defineTool({
		name: "engrama_gdpr_forget",
		title: "Erase my memory (GDPR)",
		description:
			"Permanently erase the caller's own memory (right to erasure): every node, relation, vector, fulltext row, history entry and name-index row of the calling identity, and nothing of anyone else. mode 'dry-run' (the default, safe) reports the counts that would be erased and writes nothing; mode 'apply' erases them. There is no undo. Only ever run 'apply' when the person explicitly asked to delete all of their memory. Notes Engrama itself wrote for that memory and nobody changed since are deleted with it; the person's own notes (and Engrama's notes they edited) are kept and named in notes.kept_paths.",
		inputSchema: {
			mode: z.enum(["dry-run", "apply"], { error: "mode must be 'dry-run' (report only) or 'apply' (erase)." }).default("dry-run").describe("'dry-run' reports; 'apply' erases for good."),
		},
		outputSchema: {
			mode: z.string(),
			scope: z.looseObject({ org_id: z.string(), user_id: z.string() }),
			counts: z.looseObject({ nodes: z.number(), edges: z.number() }),
		},
		annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false, title: "Erase my memory (GDPR)" },
		async run(args, call) {
			const report = await env.skills.gdprForget(call.ctx, { apply: args.mode === "apply" });
			const c = report.counts;
			const notes = report.notes ? `; ${report.notes.removed} notes removed, ${report.notes.kept} kept` : "";
			const what = `${c.nodes} nodes, ${c.edges} relations, ${c.vectors} vectors`;
			return {
				structured: { ...report },
				summary: report.mode === "apply" ? `Erased ${what} of ${report.scope.org_id}/${report.scope.user_id}${notes}.` : `Dry run: would erase ${what}. Call again with mode 'apply' to erase.`,
			};
		},
	});
}
