import { existsSync, statSync } from "node:fs";
import { isAbsolute } from "node:path";
import type { Command } from "commander";
import type { EngramaConfig } from "../../config/engrama-config";
import { ValidationError } from "../../engine/errors";
import { DEFAULT_INSIGHTS_FOLDER, INSIGHT_STATUSES, type InsightStatus, type InsightView, REFLECT_DETECTORS, type ReflectDetectorId, type ReflectReport } from "../../engine";
import { createNodeVaultGuard } from "../../mcp/node-vault-guard";
import { resolveVaultFolder, resolveVaultPath } from "../../mcp/vault-path";
import { FolderVaultSource } from "../../nodejs/folder-vault-source";
import { runWithMemory } from "../run-command";
import { positiveInt } from "./memory-commands";

function insightLines(insights: readonly InsightView[]): string[] {
	return insights.flatMap((i) => [`[${i.confidence.toFixed(2)}] ${i.title}`, `    ${i.body}`]);
}

function reflectText(report: ReflectReport): string {
	const lines = [
		`Reflect proposed ${report.insights.length} Insight${report.insights.length === 1 ? "" : "s"}: ${report.created} new, ${report.refreshed} refreshed, ${report.unchanged} unchanged (${Math.round(report.ms)} ms).`,
	];
	for (const d of report.detectors) {
		if (!d.ran) {
			lines.push(`  - ${d.name}: skipped (${d.skipped ?? "not run"})`);
			continue;
		}
		const parts = [`${d.created} new`, `${d.refreshed} refreshed`, `${d.unchanged} unchanged`];
		if (d.reviewed > 0) parts.push(`${d.reviewed} already reviewed`);
		if (d.retired > 0) parts.push(`${d.retired} retired (pattern gone)`);
		if (d.over_budget) parts.push("budget reached");
		lines.push(`  - ${d.name}: ${parts.join(", ")}`);
	}
	if (report.insights.length > 0) {
		lines.push("", ...insightLines(report.insights), "", 'Review them: engrama approve "TITLE" or engrama dismiss "TITLE" (optionally --reason "...").');
	}
	return lines.join("\n");
}

function vaultSource(config: EngramaConfig): FolderVaultSource {
	if (!config.vaultPath) throw new ValidationError("No vault given: pass --vault DIR (before the command) or set VAULT_PATH.");
	if (!existsSync(config.vaultPath) || !statSync(config.vaultPath).isDirectory()) {
		throw new ValidationError(`The vault folder ${config.vaultPath} does not exist. Check --vault or VAULT_PATH.`);
	}
	return new FolderVaultSource(config.vaultPath, { watchMode: "poll" });
}

function detectorList(values: readonly string[] | undefined): ReflectDetectorId[] | undefined {
	if (!values || values.length === 0) return undefined;
	const ids = values.flatMap((v) => v.split(",")).map((v) => v.trim().replace(/-/g, "_")).filter(Boolean);
	for (const id of ids) {
		if (!(REFLECT_DETECTORS as readonly string[]).includes(id)) {
			throw new ValidationError(`Unknown detector "${id}". Use one of: ${REFLECT_DETECTORS.join(", ")}.`);
		}
	}
	return ids as ReflectDetectorId[];
}

/** reflect, insights, approve, dismiss, write-insight. */
export function registerReflectCommands(program: Command): void {
	program
		.command("reflect")
		.description("look for cross-entity patterns and propose them as pending Insights for you to review")
		.option("--budget <n>", "Insights each detector may hold open per run", "25")
		.option("--detector <id...>", `only these detectors: ${REFLECT_DETECTORS.join(", ")}`)
		.option("--json", "machine-readable output")
		.action(async (flags: { budget: string; detector?: string[] }, command: Command) =>
			runWithMemory(command, async ({ skills, out, ctx }) => {
				const report = await skills.reflect(ctx, { budget: positiveInt("--budget", flags.budget), detectors: detectorList(flags.detector) });
				out.result(report, () => reflectText(report));
			}),
		);

	program
		.command("insights")
		.description("list Insights to review (pending by default), optionally only those related to a query")
		.option("--status <status>", `${INSIGHT_STATUSES.join(", ")}`, "pending")
		.option("--query <text>", "only pending Insights related to this text (title, body, entities, meaning)")
		.option("--limit <n>", "number of Insights", "20")
		.option("--json", "machine-readable output")
		.action(async (flags: { status: string; query?: string; limit: string }, command: Command) =>
			runWithMemory(command, async ({ opened, skills, out }) => {
				if (!(INSIGHT_STATUSES as readonly string[]).includes(flags.status)) {
					throw new ValidationError(`--status must be one of ${INSIGHT_STATUSES.join(", ")}, got "${flags.status}".`);
				}
				const limit = positiveInt("--limit", flags.limit);
				if (flags.query !== undefined) {
					if (flags.status !== "pending") throw new ValidationError("--query surfaces pending Insights only; drop --status or use --status pending.");
					const result = await skills.surfaceInsights(opened.scope, { query: flags.query, limit });
					out.result(result, () => (result.insights.length === 0 ? `No pending Insights relate to "${flags.query}".` : insightLines(result.insights).join("\n")));
					return;
				}
				const status = flags.status as InsightStatus;
				const insights = await skills.insights(opened.scope, { status, limit });
				out.result({ status, insights }, () => (insights.length === 0 ? `No ${status} Insights.` : insightLines(insights).join("\n")));
			}),
		);

	for (const [name, verdict] of [
		["approve", "approved"],
		["dismiss", "dismissed"],
	] as const) {
		program
			.command(name)
			.description(`${name} an Insight reflect proposed (reflect never proposes it again either way)`)
			.argument("<title>", "the Insight's exact title")
			.option("--reason <text>", "why, for your future self")
			.option("--json", "machine-readable output")
			.action(async (title: string, flags: { reason?: string }, command: Command) =>
				runWithMemory(command, async ({ skills, out, ctx }) => {
					const result = await skills.reviewInsight(ctx, title, verdict, flags.reason);
					out.result(result, () =>
						result.changed ? `${verdict === "approved" ? "Approved" : "Dismissed"}: ${result.insight.title}` : `Already ${verdict}: ${result.insight.title}`,
					);
				}),
			);
	}

	program
		.command("write-insight")
		.description("write an approved Insight into the vault: a dated section in --note, or a new note in the Insights folder")
		.argument("<title>", "the Insight's exact title")
		.option("--note <path>", "an existing note: a path inside the vault, absolute or relative to the vault")
		.option("--folder <dir>", "without --note: the vault folder for the new note", DEFAULT_INSIGHTS_FOLDER)
		.option("--json", "machine-readable output")
		.action(async (title: string, flags: { note?: string; folder: string }, command: Command) =>
			runWithMemory(command, async ({ skills, out, ctx, config }) => {
				const vault = vaultSource(config);
				// The MCP tool's checks (no .., no absolute path, no symlink leading out), same messages.
				const guarded = { path: vault.root, source: vault, containment: createNodeVaultGuard(vault.root) };
				const given = flags.note === undefined ? undefined : isAbsolute(flags.note) ? vault.vaultPath(flags.note) : flags.note;
				const note = given === undefined ? undefined : await resolveVaultPath(guarded, /\.md$/i.test(given) ? given : `${given}.md`, "--note");
				const folder = await resolveVaultFolder(guarded, flags.folder, "--folder");
				const result = await skills.writeInsightToNote(ctx, vault, title, { note, folder });
				out.result(result, () =>
					!result.written
						? `${result.path} already holds this Insight; nothing written.`
						: result.created
							? `Created ${result.path} with the Insight.`
							: `Appended the Insight to ${result.path}.`,
				);
			}),
		);
}
