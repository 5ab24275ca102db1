import { existsSync, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import type { Command } from "commander";
import type { EngramaConfig } from "../../config/engrama-config";
import { ValidationError } from "../../engine/errors";
import type { SyncProblem, SyncReport, SyncSettings, VaultSync } from "../../engine";
import { createNodeVaultSync, type FolderVaultSource } from "../../nodejs/folder-vault-source";
import { vaultContainment } from "../../nodejs/vault-containment";
import { containmentRefusal } from "../../mcp/vault-path";
import type { OpenedMemory } from "../../nodejs/open-memory";
import { runWithMemory } from "../run-command";
import type { Output } from "../output";

interface SyncFlags {
	dryRun?: boolean;
	json?: boolean;
	writeIds?: boolean;
	export?: boolean;
	untyped?: boolean;
	exclude?: string;
	folderLabel?: string[];
	backfillRelations?: boolean;
	poll?: string | boolean;
}

function vaultOf(config: EngramaConfig): string {
	if (!config.vaultPath) throw new ValidationError("No vault given: pass --vault DIR (before the command) or set VAULT_PATH.");
	if (!existsSync(config.vaultPath) || !statSync(config.vaultPath).isDirectory()) {
		throw new ValidationError(`The vault folder ${config.vaultPath} does not exist. Check --vault or VAULT_PATH.`);
	}
	return config.vaultPath;
}

/** Flags → sync settings (each flag only overrides what it names). */
function settingsFrom(flags: SyncFlags): Partial<SyncSettings> {
	const settings: { -readonly [K in keyof SyncSettings]?: SyncSettings[K] } = {};
	if (flags.writeIds === false) settings.writeEngramaIds = false;
	if (flags.export === false) settings.writeGraphToVault = false;
	if (flags.untyped === false) settings.indexUntypedNotes = false;
	if (flags.backfillRelations) settings.backfillRelations = true;
	if (flags.exclude !== undefined) settings.excludedFolders = flags.exclude.split(",").map((f) => f.trim()).filter(Boolean);
	if (flags.folderLabel && flags.folderLabel.length > 0) {
		const map: Record<string, string> = {};
		for (const pair of flags.folderLabel) {
			const at = pair.lastIndexOf("=");
			if (at <= 0 || at === pair.length - 1) throw new ValidationError(`--folder-label needs FOLDER=Label, got "${pair}". Example: --folder-label Projects=Project`);
			map[pair.slice(0, at)] = pair.slice(at + 1);
		}
		settings.folderLabels = map;
	}
	return settings;
}

function collect(value: string, previous: string[] = []): string[] {
	return [...previous, value];
}

function addSyncOptions(command: Command): Command {
	return command
		.option("--no-write-ids", "do not write engrama_id into notes (identity then follows paths)")
		.option("--no-export", "do not write entities remembered outside the vault as notes")
		.option("--no-untyped", "skip notes without a label instead of indexing them as Note")
		.option("--exclude <folders>", "comma-separated folders never synced (default: Templates,.trash + the templates folder)")
		.option("--folder-label <FOLDER=Label>", "label for untyped notes in a folder (repeatable)", collect)
		.option("--backfill-relations", "also write into notes the relations added while no vault writer was running");
}

/** The report as stable snake_case JSON (the CLI and MCP contract). */
export function syncReportJson(report: SyncReport, vault: string): Record<string, unknown> {
	const c = report.counts;
	return {
		vault,
		dry_run: report.dryRun,
		counts: {
			files_scanned: c.filesScanned,
			files_read: c.filesRead,
			files_unchanged: c.filesUnchanged,
			files_skipped: c.filesSkipped,
			nodes_created: c.nodesCreated,
			nodes_updated: c.nodesUpdated,
			nodes_archived: c.nodesArchived,
			nodes_moved: c.nodesMoved,
			stubs_created: c.stubsCreated,
			relations_added: c.relationsAdded,
			relations_removed: c.relationsRemoved,
			ids_written: report.idsWritten.length,
			notes_written: report.notesWritten.length,
			problems: report.problems.length,
		},
		ids_written: report.idsWritten,
		notes_written: report.notesWritten,
		problems: report.problems,
		timings_ms: report.timings,
	};
}

function problemLine(p: SyncProblem): string {
	return `  ${p.path}: ${p.severity}: ${p.problem} ${p.action}`;
}

export function syncReportText(report: SyncReport, vault: string, title: string): string {
	const c = report.counts;
	const would = report.dryRun ? "would be " : "";
	const lines = [
		`${title} ${vault}${report.dryRun ? " (dry run: nothing was written)" : ""} in ${((report.timings.totalMs ?? 0) / 1000).toFixed(2)} s`,
		`  notes: ${c.filesScanned} scanned, ${c.filesRead} read, ${c.filesUnchanged} unchanged, ${c.filesSkipped} skipped`,
		`  nodes ${would}created ${c.nodesCreated}, updated ${c.nodesUpdated}, archived ${c.nodesArchived}, moved ${c.nodesMoved}; stubs ${c.stubsCreated}`,
		`  relations ${would}added ${c.relationsAdded}, removed ${c.relationsRemoved}`,
		`  engrama_id ${report.dryRun ? "would be written into" : "written into"} ${report.idsWritten.length} note${report.idsWritten.length === 1 ? "" : "s"}`,
	];
	if (report.notesWritten.length > 0) lines.push(`  notes ${would}written from the graph: ${report.notesWritten.join(", ")}`);
	const timings = Object.entries(report.timings)
		.filter(([k]) => k !== "totalMs")
		.map(([k, v]) => `${k.replace(/Ms$/, "")} ${v} ms`);
	if (timings.length > 0) lines.push(`  timings: ${timings.join(", ")}`);
	if (report.problems.length > 0) {
		lines.push(`  problems (${report.problems.length}):`);
		lines.push(...report.problems.slice(0, 50).map(problemLine));
		if (report.problems.length > 50) lines.push(`  ... and ${report.problems.length - 50} more (use --json for all)`);
	}
	return lines.join("\n");
}

async function openSync(
	opened: OpenedMemory,
	config: EngramaConfig,
	flags: SyncFlags,
	extra: { onBatch?: (r: SyncReport) => void; onError?: (e: unknown) => void; watchMode?: "auto" | "fs" | "poll" } = {},
): Promise<{ sync: VaultSync; source: FolderVaultSource; vault: string }> {
	const vault = vaultOf(config);
	const { sync, source } = await createNodeVaultSync({
		memory: opened.memory,
		scope: opened.scope,
		vaultPath: vault,
		settings: settingsFrom(flags),
		watchMode: extra.watchMode,
		onBatch: extra.onBatch,
		onError: extra.onError,
	});
	return { sync, source, vault };
}

function print(out: Output, report: SyncReport, vault: string, title: string): void {
	out.result(syncReportJson(report, vault), () => syncReportText(report, vault, title));
}

/** sync, watch, sync-note. */
export function registerSyncCommands(program: Command): void {
	addSyncOptions(
		program
			.command("sync")
			.description("sync the vault into the graph (full sync; the graph's new entities are written back as notes)")
			.option("--dry-run", "report what would change; write nothing to the graph or the vault")
			.option("--json", "machine-readable output"),
	).action(async (flags: SyncFlags, command: Command) =>
		runWithMemory(command, async ({ opened, out, config }) => {
			const { sync, vault } = await openSync(opened, config, flags);
			const report = await sync.fullSync({ dryRun: !!flags.dryRun });
			print(out, report, vault, "Synced");
		}),
	);

	addSyncOptions(
		program
			.command("watch")
			.description("full sync, then keep the graph in step with the vault until interrupted (Ctrl+C)")
			.option("--poll", "poll the folder instead of using file system events (network drives)")
			.option("--json", "one JSON object per line for each batch"),
	).action(async (flags: SyncFlags, command: Command) =>
		runWithMemory(command, async ({ opened, out, config }) => {
			let failures = 0;
			const { sync, vault } = await openSync(opened, config, flags, {
				watchMode: flags.poll ? "poll" : "auto",
				onBatch: (report) => {
					if (out.json) process.stdout.write(`${JSON.stringify({ event: "batch", ...syncReportJson(report, vault) })}\n`);
					else out.info(syncReportText(report, vault, "Synced changes in"));
				},
				onError: (error) => {
					failures++;
					out.info(`engrama: a sync batch failed: ${error instanceof Error ? error.message : String(error)}`);
				},
			});
			const first = await sync.fullSync();
			if (out.json) process.stdout.write(`${JSON.stringify({ event: "full_sync", ...syncReportJson(first, vault) })}\n`);
			else out.info(syncReportText(first, vault, "Synced"));
			const detach = sync.writer.attach();
			sync.start();
			out.info(`Watching ${vault} (Ctrl+C to stop)`);
			await new Promise<void>((done) => {
				process.once("SIGINT", () => done());
				process.once("SIGTERM", () => done());
			});
			await sync.stop();
			detach();
			if (out.json) process.stdout.write(`${JSON.stringify({ event: "stopped", failed_batches: failures })}\n`);
			else out.info("Stopped watching.");
		}),
	);

	addSyncOptions(
		program
			.command("sync-note")
			.description("sync one note now (new, changed, moved or deleted)")
			.argument("<path>", "the note: a path inside the vault, absolute or relative to the vault")
			.option("--json", "machine-readable output"),
	).action(async (path: string, flags: SyncFlags, command: Command) =>
		runWithMemory(command, async ({ opened, out, config }) => {
			const { sync, source, vault } = await openSync(opened, config, flags);
			const abs = isAbsolute(path) ? path : existsSync(resolve(path)) ? resolve(path) : source.absolute(path);
			const notePath = source.vaultPath(abs);
			if (notePath.startsWith("..")) throw new ValidationError(`${path} is not inside the vault ${vault}.`);
			const where = vaultContainment(source.root, source.absolute(notePath));
			if (where !== "inside") throw new ValidationError(containmentRefusal(notePath, where, "note"));
			if (!sync.isSyncedPath(notePath)) {
				throw new ValidationError(`${notePath} is not synced: only .md notes outside excluded folders (${sync.settings.excludedFolders.join(", ")}) and dot-folders are.`);
			}
			const report = await sync.syncPaths([notePath]);
			await sync.writer.idle();
			print(out, report, notePath, "Synced");
		}),
	);
}
