import type { Command } from "commander";
import type { ReindexReport } from "../../engine";
import { runWithMemory } from "../run-command";
import { positiveInt } from "./memory-commands";

interface ReindexFlags {
	apply?: boolean;
	rebuild?: boolean;
	limit?: string;
	batchSize: string;
}

function describe(report: ReindexReport): string {
	const reasons = Object.entries(report.reasons)
		.filter(([, n]) => n > 0)
		.map(([reason, n]) => `${reason.replaceAll("_", " ")} ${n}`)
		.join(", ");
	const lines = [
		`${report.embedder} embedder, model ${report.model || "(default)"}, ${report.dimensions || "?"} dimensions` +
			(report.stored_dimensions ? `; the memory holds ${report.stored_dimensions}-dimensional vectors` : "; the memory holds no vectors yet"),
		`${report.scanned} live nodes: ${report.up_to_date} up to date, ${report.to_embed} to embed${reasons ? ` (${reasons})` : ""}` +
			(report.deferred > 0 ? `, ${report.deferred} left for a later run (--limit)` : ""),
		`${report.passages.to_embed} note sections to embed` + (report.passages.deferred > 0 ? `, ${report.passages.deferred} left for a later run (--limit)` : ""),
	];
	if (report.dry_run) {
		for (const s of report.sample) lines.push(`  [${s.label}] ${s.name}: ${s.reason.replaceAll("_", " ")}`);
		if (report.to_embed + report.passages.to_embed > 0) lines.push('Dry run: nothing was written. Add --apply to embed them.');
	} else {
		if (report.reset) lines.push("Every vector in the file was dropped first (the dimension changed).");
		lines.push(`Embedded ${report.embedded}, failed ${report.failed}; note sections: embedded ${report.passages.embedded}, failed ${report.passages.failed}.`);
	}
	for (const error of report.errors) lines.push(`! ${error}`);
	return lines.join("\n");
}

export function registerReindexCommand(program: Command): void {
	program
		.command("reindex")
		.description("embed the nodes and note sections that have no vector (or a stale one); a dry run unless --apply")
		.option("--apply", "embed and store the vectors (default: only report)")
		.option("--rebuild", "re-embed every node (after changing the model)")
		.option("--limit <n>", "embed at most n nodes (and n note sections) in this run")
		.option("--batch-size <n>", "texts per embedder call", "32")
		.action(async (options: ReindexFlags, command: Command) =>
			runWithMemory(command, async ({ opened, skills, out }) => {
				let lastPercent = -1;
				const report = await skills.reindex(
					opened.scope,
					{
						apply: !!options.apply,
						rebuild: !!options.rebuild,
						limit: options.limit !== undefined ? positiveInt("--limit", options.limit) : undefined,
						batchSize: positiveInt("--batch-size", options.batchSize),
						onProgress: ({ done, total, failed }) => {
							const percent = Math.floor((done / total) * 100);
							if (percent >= lastPercent + 10 || done === total) {
								lastPercent = percent;
								out.info(`reindex: ${done}/${total} (${percent}%)${failed ? `, ${failed} failed` : ""}`);
							}
						},
					},
				);
				out.result(report, () => describe(report));
				if (report.failed + report.passages.failed > 0) process.exitCode = 2;
			}),
		);
}
