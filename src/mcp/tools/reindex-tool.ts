import * as z from "zod";
import { count, defineTool, type ToolEnv } from "../tool-kit";

export function reindexTool(env: ToolEnv) {
	return defineTool({
		name: "engrama_reindex",
		title: "Re-embed nodes missing their vector",
		description:
			"Embed nodes and note sections with no or a stale vector (invisible to semantic search): mode 'detect', 'classify', then 'apply' with dry_run: false, again while deferred > 0.",
		inputSchema: {
			mode: z.enum(["detect", "classify", "apply"], { error: "mode must be 'detect', 'classify' or 'apply' (in that order)." }).describe("detect, classify, then apply."),
			dry_run: z.boolean().default(true).describe("For 'apply': false embeds and writes."),
			limit: count("limit", 1, 1000, "").default(100),
		},
		outputSchema: { mode: z.string(), dry_run: z.boolean(), to_embed: z.number(), embedded: z.number() },
		annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false, title: "Re-embed nodes missing their vector" },
		async run(args, call) {
			const apply = args.mode === "apply" && !args.dry_run;
			const report = await env.skills.reindex(call.scope.scope, { apply, limit: args.limit });
			const p = report.passages;
			const summary = apply
				? `Embedded ${report.embedded} of ${report.to_embed} nodes (${report.failed} failed, ${report.deferred} left for the next call) and ${p.embedded} of ${p.to_embed} note sections (${p.failed} failed, ${p.deferred} left).`
				: `${report.to_embed} of ${report.scanned} nodes and ${p.to_embed} note sections need embedding${report.deferred + p.deferred > 0 ? ` (${report.deferred} nodes and ${p.deferred} sections beyond the limit)` : ""}; nothing was written.`;
			return { structured: { mode: args.mode, ...report }, summary };
		},
	});
}
