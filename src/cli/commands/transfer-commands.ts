import { createReadStream, createWriteStream, existsSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { once } from "node:events";
import type { Command } from "commander";
import type { ExportCounts, ImportReport } from "../../engine";
import { ValidationError, errorMessage } from "../../engine/errors";
import { runWithMemory } from "../run-command";

/** Lines of a file, read afresh on every call (the importer reads it once per pass). */
function fileLines(path: string): () => AsyncIterable<string> {
	return () => createInterface({ input: createReadStream(path, { encoding: "utf8" }), crlfDelay: Infinity });
}

function describeImport(file: string, r: ImportReport): string {
	const lines = [
		`${r.dryRun ? "Dry run (nothing written): would import" : "Imported"} from ${file} (${r.producer}): ${r.nodes.created} new nodes, ${r.nodes.updated} updated, ${r.relations} relations, ${r.history} history entries, ${r.vectors.stored} vectors${r.meta ? `, ${r.meta} settings` : ""}.`,
		`Scopes: ${r.scopes.join(", ") || "none"}.`,
	];
	if (r.renumbered > 0) lines.push(`${r.renumbered} nodes got a new engrama_id (theirs was taken in this memory).`);
	for (const w of r.warnings) lines.push(`Note: ${w}`);
	return lines.join("\n");
}

/** `engrama export [file|-] [--vectors]` and `engrama import <file> [--dry-run] [--merge]`: the portable NDJSON memory file. */
export function registerTransferCommands(program: Command, version: string): void {
	program
		.command("export")
		.argument("[file]", "where to write the NDJSON export; - (the default) writes to standard output")
		.description("write the whole memory (nodes with provenance, relations, history, Insights, settings; vectors with --vectors) as portable NDJSON that engrama import reads back")
		.option("--vectors", "include the stored vectors, with the model name and dimension")
		.action(async (file: string | undefined, flags: { vectors?: boolean }, command: Command) =>
			runWithMemory(
				command,
				async ({ opened, skills, out, config }) => {
					const { memory } = opened;
					const toStdout = file === undefined || file === "-";
					const target = toStdout ? "" : resolve(file);
					if (!toStdout && existsSync(target) && statSync(target).isDirectory()) throw new ValidationError(`${target} is a folder: name a file to export into.`);
					// A temporary file beside the target, renamed when complete: an interrupted export never leaves a partial file under the name.
					const temp = toStdout ? "" : join(dirname(target), `.${basename(target)}.${process.pid}.partial`);
					const stream = toStdout ? process.stdout : createWriteStream(temp, { encoding: "utf8", mode: 0o600 });
					let counts: ExportCounts | undefined;
					try {
						const lines = skills.exportMemory({
							vectors: !!flags.vectors,
							embeddingModel: memory.embedder?.model || config.embedding.model || "",
							version,
							now: new Date().toISOString(),
						});
						for await (const line of lines) {
							if (!("engrama_export" in line) && line.type === "end") counts = line;
							if (!stream.write(`${JSON.stringify(line)}\n`)) await once(stream, "drain");
						}
						if (!toStdout) {
							await new Promise<void>((done, failed) => stream.end((error?: Error | null) => (error ? failed(error) : done())));
							renameSync(temp, target);
						}
					} catch (error) {
						if (!toStdout) {
							stream.destroy();
							rmSync(temp, { force: true });
						}
						throw error;
					}
					const c = counts ?? { nodes: 0, relations: 0, vectors: 0, history: 0, meta: 0 };
					const summary = `Exported ${c.nodes} nodes, ${c.relations} relations, ${c.history} history entries, ${c.vectors} vectors, ${c.meta} settings${toStdout ? "" : ` to ${target}`}.`;
					if (toStdout) out.info(summary);
					else out.result({ file: target, ...c }, () => summary);
				},
				{ mustExist: true },
			),
		);

	program
		.command("import")
		.argument("<file>", "an NDJSON export of engrama export (or of engrama-py's engrama export)")
		.description("read an export into this memory; the whole file is checked first and bad input changes nothing")
		.option("--dry-run", "check the file and report what would be imported; write nothing")
		.option("--merge", "import into a memory that already holds nodes of the file's scopes: same label and name update the node, the rest is added")
		.action(async (file: string, flags: { dryRun?: boolean; merge?: boolean }, command: Command) =>
			runWithMemory(command, async ({ opened, skills, out, config }) => {
				const path = resolve(file);
				if (!existsSync(path) || !statSync(path).isFile()) throw new ValidationError(`No file at ${path}: name an export written by engrama export.`);
				const { memory, scope } = opened;
				let report: ImportReport;
				try {
					report = await skills.importMemory(fileLines(path), {
						merge: !!flags.merge,
						dryRun: !!flags.dryRun,
						callerScope: scope,
						embeddingModel: memory.embedder?.model || config.embedding.model || "",
					});
				} catch (error) {
					if (error instanceof ValidationError) throw new ValidationError(`${path}: ${errorMessage(error)}`, error.details);
					throw error;
				}
				out.result({ file: path, ...report }, () => describeImport(path, report));
			}),
		);
}
