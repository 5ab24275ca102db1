import * as z from "zod";
import { NotFoundError } from "../../engine/errors";
import { MERGE_WRITE, defineTool, text, type ToolEnv } from "../tool-kit";
import { resolveVaultPath } from "../vault-path";
import { requireVaultSync, syncReportView, syncSummary } from "./sync-shared";

export function syncNoteTool(env: ToolEnv) {
	return defineTool({
		name: "engrama_sync_note",
		title: "Sync one note",
		description:
			"Sync one note of Engrama's vault into the graph: node merged, relations reconciled, engrama_id written if missing, a deleted note's node archived.",
		inputSchema: {
			path: text("path", 1000, "Vault-relative."),
			dry_run: z.boolean().default(false).describe("Preview; write nothing."),
		},
		outputSchema: { dry_run: z.boolean(), path: z.string() },
		annotations: { ...MERGE_WRITE, title: "Sync one note" },
		async run(args, call) {
			const { vault, sync } = requireVaultSync(env, call, "engrama_sync_note");
			const path = await resolveVaultPath(vault, args.path, "path");
			if (args.dry_run) {
				if (!(await vault.source.stat(path))) {
					throw new NotFoundError(`No note "${path}" in the vault ${vault.path}. A real sync of a deleted note archives its node; check the path.`);
				}
				const parsed = await sync.previewNote(path);
				if (parsed.kind === "note") {
					const n = parsed.note;
					const structured = {
						dry_run: true,
						path,
						would: {
							label: n.label,
							name: n.key,
							key_field: n.keyField,
							engrama_id: n.id ?? null,
							inject_engrama_id: !n.id && !n.frontmatterBroken && sync.settings.writeEngramaIds,
							props: n.props,
							relations: n.relations,
							links: n.links,
						},
						problems: n.warnings,
					};
					const how = n.frontmatterBroken ? " from its text only (its frontmatter is broken, see problems)" : "";
					return { structured, summary: `Dry run: "${path}" would sync as ${n.label} "${n.key}"${how} with ${n.relations.length} relations and ${n.links.length} links.` };
				}
				const problems = parsed.kind === "invalid" ? parsed.problems : [];
				const why = parsed.kind === "skipped" ? "it is untyped and untyped indexing is off" : "it has problems (see problems)";
				return { structured: { dry_run: true, path, skipped: true, reason: why, problems }, summary: `Dry run: "${path}" would not sync: ${why}.` };
			}
			const report = await sync.syncNote(path);
			return { structured: { path, ...syncReportView(report) }, summary: `${path}: ${syncSummary(report)}` };
		},
	});
}
