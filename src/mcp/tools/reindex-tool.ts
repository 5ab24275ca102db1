import { z } from "zod";
import { count, defineTool, type ToolEnv } from "../tool-kit";

export function reindexTool(env: ToolEnv) {
	return defineTool({
		name: "engrama_reindex",
		title: "Re-embed nodes missing their vector",
		description:
			"Find and repair nodes (and sections of notes) of your scope that have no vector (the embedder was down or off when they were written) or a stale one (the model or its dimension changed): such nodes are invisible to semantic search. Run it in order: mode 'detect' (read-only: how many, why, a sample), 'classify' (read-only: the same plan with the reason for each), then 'apply' with dry_run=false to embed up to `limit` nodes and `limit` note sections (dry_run defaults to true, which only simulates). If `deferred` or `passages.deferred` > 0, call apply again. Needs an embedder (see engrama_status).",
		inputSchema: {
			mode: z.enum(["detect", "classify", "apply"], { error: "mode must be 'detect', 'classify' or 'apply' (in that order)." }).describe("detect, classify, then apply."),
			dry_run: z.boolean().default(true).describe("Only for mode 'apply': true simulates; pass false to embed and write."),
			limit: count("limit", 1, 1000, "Most nodes to embed in this call (1-1000).").default(100),
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
