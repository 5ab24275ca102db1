import { closeSync, existsSync, openSync, readSync, statSync } from "node:fs";
import { dirname } from "node:path";
import type { Command } from "commander";
import { closeBackend } from "../../backends";
import { createNodeBackend } from "../../nodejs/node-backend";
import type { EngramaConfig } from "../../config/engrama-config";
import { ValidationError } from "../../engine/errors";
import { initialiseMemory } from "../../nodejs/open-memory";
import { preparePrivateDir } from "../../nodejs/private-dir";
import { resolveConfig, runPlain, type GlobalOptions } from "../run-command";

export interface InitView {
	/** false: the memory was already there and nothing was changed. */
	readonly created: boolean;
	readonly backend: string;
	/** The SQLite file, or the Neo4j URI and database (never the password). */
	readonly location: string;
	readonly next_steps: readonly string[];
}

const SQLITE_HEADER = "SQLite format 3\0";

function isSqliteFile(path: string): boolean {
	if (statSync(path).size === 0) return true; // an empty file is a valid, empty database
	const fd = openSync(path, "r");
	try {
		const header = Buffer.alloc(16);
		readSync(fd, header, 0, 16, 0);
		return header.toString("latin1") === SQLITE_HEADER;
	} finally {
		closeSync(fd);
	}
}

function nextSteps(options: GlobalOptions, config: EngramaConfig): string[] {
	// Repeat the flags that chose this memory, so the commands reach the same one.
	const flags = [options.backend ? `--backend ${options.backend}` : "", options.db ? `--db "${config.dbPath}"` : ""].filter(Boolean).join(" ");
	const engrama = flags ? `engrama ${flags}` : "engrama";
	return [
		`${engrama} --vault "/path/to/your/vault" sync   # index an Obsidian vault into the memory`,
		`${engrama} serve   # serve the memory to agents over MCP; prints the client configuration (Claude Code, Cursor, Claude Desktop)`,
		`${engrama} remember --label Project --name "My project"   # or write to it directly`,
		`${engrama} health   # check backend, embedder and bridge at any time`,
	];
}

/** `engrama init`: creates the memory (SQLite) or checks and prepares Neo4j; idempotent. */
export function registerInitCommand(program: Command): void {
	program
		.command("init")
		.description("set up a memory (the SQLite file, or the Neo4j schema) and print the next steps; changes nothing if it exists")
		.action(async (_flags: unknown, command: Command) =>
			runPlain(command, async (out, options) => {
				const config = resolveConfig(options);
				let view: InitView;
				if (config.backend === "sqlite") {
					if (config.dbPath === ":memory:") throw new ValidationError("An in-memory database keeps nothing: point --db (or ENGRAMA_DB_PATH) at a file.");
					const base = { backend: "sqlite", location: config.dbPath, next_steps: nextSteps(options, config) };
					if (existsSync(config.dbPath)) {
						if (!statSync(config.dbPath).isFile() || !isSqliteFile(config.dbPath)) {
							throw new ValidationError(`${config.dbPath} exists and is not a SQLite database: choose another --db (nothing was changed).`);
						}
						// Not opened: opening may upgrade an older file, and init promises to change nothing here.
						view = { created: false, ...base };
					} else {
						preparePrivateDir(dirname(config.dbPath));
						const backend = await createNodeBackend({ ...config, vectorBackend: "none" });
						try {
							await initialiseMemory(backend, config);
						} finally {
							await closeBackend(backend);
						}
						view = { created: true, ...base };
					}
				} else if (config.backend === "neo4j") {
					const { createNeo4jBackend, testConnection } = await import("../../backends");
					const location = `${config.neo4j.uri} (database ${config.neo4j.database})`;
					const problem = await testConnection(config);
					if (problem) throw new ValidationError(`${problem} Nothing was set up.`);
					// Creates the constraints and indexes that are missing; an existing schema is left as it is.
					const backend = await createNeo4jBackend(config, { retry: { maxElapsedMs: 0 } });
					let existed = false;
					try {
						// Opened before: it holds nodes or a standalone identity.
						existed = !(await initialiseMemory(backend, config));
					} finally {
						await closeBackend(backend);
					}
					view = { created: !existed, backend: "neo4j", location, next_steps: nextSteps(options, config) };
				} else {
					throw new ValidationError(`The ${config.backend} backend keeps nothing: init sets up sqlite (default) or neo4j.`);
				}
				out.result(view, () =>
					[
						view.created ? `Created the memory: ${view.backend} at ${view.location}.` : `A memory is already at ${view.location} (${view.backend}): nothing was changed.`,
						"",
						"Next steps:",
						...view.next_steps.map((s) => `  ${s}`),
					].join("\n"),
				);
			}),
		);
}
