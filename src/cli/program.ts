import type { Command } from "commander";
import { registerMemoryCommands } from "./commands/memory-commands";
import { registerSearchCommand } from "./commands/search-command";
import { registerReindexCommand } from "./commands/reindex-command";
import { registerReflectCommands } from "./commands/reflect-commands";
import { registerMcpCommands } from "./commands/mcp-commands";
import { registerSyncCommands } from "./commands/sync-commands";
import { registerMigrateCommand } from "./commands/migrate-command";
import { registerCompactCommand, registerVerifyCommand } from "./commands/verify-command";
import { registerHealthCommand } from "./commands/health-command";
import { registerInitCommand } from "./commands/init-command";
import { registerTransferCommands } from "./commands/transfer-commands";
import { baseProgram, version } from "./command-table";

/** Every command registered at once (tests; the command line itself loads one group, see main.ts). */
export function buildProgram(): Command {
	const program = baseProgram();
	registerMemoryCommands(program, version);
	registerSearchCommand(program);
	registerReindexCommand(program);
	registerReflectCommands(program);
	registerMcpCommands(program, version);
	registerSyncCommands(program);
	registerMigrateCommand(program);
	registerVerifyCommand(program);
	registerCompactCommand(program);
	registerHealthCommand(program);
	registerInitCommand(program);
	registerTransferCommands(program, version);
	return program;
}
