import { ScopeError } from "../../engine/errors";
import { isFullScope } from "../../engine/scope";
import type { SyncReport } from "../../engine/sync/sync-report";
import type { VaultSync } from "../../engine/sync/vault-sync";
import { NotAvailableError, requireVault, type ToolCall, type ToolEnv } from "../tool-kit";
import type { McpVault } from "../mcp-services";

/**
 * The vault is the standalone person's: sync tools run only for that identity (no scope headers),
 * so another tenant's call can never read or rewrite this person's notes.
 */
export function requireVaultOwner(env: ToolEnv, call: ToolCall, tool: string): { vault: McpVault; sync: VaultSync } {
	const vault = requireVault(env, tool);
	if (!env.services.sync) throw new NotAvailableError(tool, "vault sync is not running for this memory");
	const scope = call.scope.scope;
	const owner = env.services.identity;
	if (!isFullScope(scope)) throw new ScopeError(call.scope.problem ?? "This call has no complete scope.");
	if (scope.orgId !== owner.orgId || scope.userId !== owner.userId) {
		throw new ScopeError(`${tool} works on the vault of this memory's own identity only. Call it without X-Engrama-Org-Id / X-Engrama-User-Id.`);
	}
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
