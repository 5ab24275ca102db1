import { z } from "zod";
import { ValidationError } from "../../engine/errors";
import { defineTool, type ToolEnv } from "../tool-kit";
import { resolveVaultFolder } from "../vault-path";
import { requireVaultSync, syncReportView, syncSummary } from "./sync-shared";

export function syncVaultTool(env: ToolEnv) {
	return defineTool({
		name: "engrama_sync_vault",
		title: "Sync the whole vault",
		description:
			"Full scan of Engrama's own vault (see engrama_status for its path): new and changed notes are merged into the graph, vanished notes' nodes archived, engrama_id written where missing, and entities remembered outside the vault written out as notes. Unchanged notes are skipped by mtime and content hash, so repeating it is cheap. dry_run=true writes nothing and reports the counts that would change and the files that would receive an engrama_id: run it first on an unfamiliar vault. folder limits a real sync to one folder (vault-relative); the dry run always covers the whole vault.",
		inputSchema: {
			folder: z.string().max(1000, { error: "folder is longer than 1000 characters." }).default("").describe("Vault-relative folder to sync; empty for the whole vault."),
			dry_run: z.boolean().default(false).describe("Report what would change; write nothing."),
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
			const report = await sync.syncPaths(paths);
			return { structured: { folder, ...syncReportView(report) }, summary: `${folder}: ${syncSummary(report)}` };
		},
	});
}
