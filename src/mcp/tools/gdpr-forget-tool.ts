import * as z from "zod";
import { defineTool, type ToolEnv } from "../tool-kit";

export function gdprForgetTool(env: ToolEnv) {
	return defineTool({
		name: "engrama_gdpr_forget",
		title: "Erase my memory (GDPR)",
		description:
			"Erase all of the caller's memory and the notes Engrama wrote for it that nobody changed. 'dry-run' (default) reports counts; 'apply' erases, no undo: only when the person asked.",
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
