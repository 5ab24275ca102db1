import * as z from "zod";
import { NotFoundError, ValidationError } from "../../engine/errors";
import { defineTool, type ToolEnv } from "../tool-kit";
import { resolveVaultFolder } from "../vault-path";
import { requireVaultSync, syncReportView, syncSummary } from "./sync-shared";

export function syncVaultTool(env: ToolEnv) {
	return defineTool({
		name: "engrama_sync_vault",
		title: "Sync the whole vault",
		description:
			"Sync Engrama's whole vault (or one folder) into the graph; unchanged notes are skipped, so repeating is cheap. A dry run covers the whole vault.",
		inputSchema: {
			folder: z.string().max(1000, { error: "folder is longer than 1000 characters." }).default("").describe("Vault-relative; empty for the whole vault."),
			dry_run: z.boolean().default(false).describe("Report; write nothing."),
		},
		outputSchema: { dry_run: z.boolean(), counts: z.record(z.string(), z.number()) },
		annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false, title: "Sync the whole vault" },
		async run(args, call) {
			const { vault, sync } = requireVaultSync(env, call, "engrama_sync_vault");
			const folder = await resolveVaultFolder(vault, args.folder, "folder");
			if (folder === "") {
				const report = await sync.fullSync({ dryRun: args.dry_run });
				return { structured: syncReportView(report), summary: syncSummary(report) };
			}
			if (args.dry_run) {
				throw new ValidationError(`A dry run covers the whole vault: call engrama_sync_vault with dry_run=true and folder "" (or without folder).`);
			}
			const prefix = `${folder.toLowerCase()}/`;
			const paths = (await vault.source.list()).map((f) => f.path).filter((p) => p.toLowerCase().startsWith(prefix));
			if (paths.length === 0) throw new NotFoundError(`No folder "${folder}" in the vault ${vault.path} (or it holds no notes); nothing was synced. Give a vault-relative folder, or none for the whole vault.`);
			const report = await sync.syncPaths(paths);
			return { structured: { folder, ...syncReportView(report) }, summary: `${folder}: ${syncSummary(report)}` };
		},
	});
}
