import type { SyncReport, VaultSync } from "../../engine";
import { NotAvailableError, requireVaultOwner, type ToolCall, type ToolEnv } from "../tool-kit";
import type { McpVault } from "../mcp-services";

/** The vault and its running sync, for the standalone identity only (see requireVaultOwner). */
export function requireVaultSync(env: ToolEnv, call: ToolCall, tool: string): { vault: McpVault; sync: VaultSync } {
	const vault = requireVaultOwner(env, call, tool);
	if (!env.services.sync) throw new NotAvailableError(tool, "vault sync is not running for this memory");
	return { vault, sync: env.services.sync };
}

function snake(key: string): string {
	return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** A sync report as the tools' JSON (snake_case like every other answer). */
export function syncReportView(report: SyncReport): Record<string, unknown> {
	return {
		dry_run: report.dryRun,
		counts: Object.fromEntries(Object.entries(report.counts).map(([k, v]) => [snake(k), v])),
		ids_written: report.idsWritten,
		notes_written: report.notesWritten,
		problems: report.problems,
		timings_ms: Object.fromEntries(Object.entries(report.timings).map(([k, v]) => [snake(k.replace(/Ms$/, "")), v])),
	};
}

export function syncSummary(report: SyncReport): string {
	const c = report.counts;
	const verb = report.dryRun ? "would create" : "created";
	return `${report.dryRun ? "Dry run: " : ""}${c.filesScanned} notes scanned; ${verb} ${c.nodesCreated}, updated ${c.nodesUpdated}, archived ${c.nodesArchived} nodes; +${c.relationsAdded}/-${c.relationsRemoved} relations; ${report.idsWritten.length} engrama_id written; ${report.problems.length} problems.`;
}
