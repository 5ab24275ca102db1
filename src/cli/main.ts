import { Command } from "commander";
import { registerMemoryCommands } from "./commands/memory-commands";
import { registerSearchCommand } from "./commands/search-command";
import { registerReindexCommand } from "./commands/reindex-command";
import { registerReflectCommands } from "./commands/reflect-commands";
import { registerMcpCommands } from "./commands/mcp-commands";
import { registerSyncCommands } from "./commands/sync-commands";
import { registerMigrateCommand } from "./commands/migrate-command";
import { registerVerifyCommand } from "./commands/verify-command";
import { registerHealthCommand } from "./commands/health-command";
import { registerInitCommand } from "./commands/init-command";
import { registerTransferCommands } from "./commands/transfer-commands";

declare const ENGRAMA_VERSION: string | undefined;
const version = typeof ENGRAMA_VERSION === "string" ? ENGRAMA_VERSION : "0.0.0-dev";

export function buildProgram(): Command {
	const program = new Command()
		.name("engrama")
		.description("Engrama: a graph memory for you and your AI agents, on an Obsidian vault or on its own.")
		.version(version)
		.option("--db <path>", "SQLite memory file (env ENGRAMA_DB_PATH, default ~/.engrama/engrama.db)")
		.option("--vault <path>", "Obsidian vault folder (env VAULT_PATH)")
		.option("--profile <name|file>", "profile: base, developer or a .yaml path (env ENGRAMA_PROFILE)")
		.option("--modules <list>", "comma-separated modules, e.g. teaching,hacking (env ENGRAMA_MODULES)")
		.option("--backend <name>", "sqlite, neo4j or null (env GRAPH_BACKEND)")
		.option("--json", "machine-readable output on stdout; errors as JSON on stderr")
		.showHelpAfterError();
	registerMemoryCommands(program, version);
	registerSearchCommand(program);
	registerReindexCommand(program);
	registerReflectCommands(program);
	registerMcpCommands(program, version);
	registerSyncCommands(program);
	registerMigrateCommand(program);
	registerVerifyCommand(program);
	registerHealthCommand(program);
	registerInitCommand(program);
	registerTransferCommands(program, version);
	return program;
}

export async function main(argv: readonly string[]): Promise<void> {
	await buildProgram().parseAsync([...argv]);
}
