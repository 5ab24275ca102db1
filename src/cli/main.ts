import type { Command } from "commander";
import { programFor, version, type CommandGroup, type Register } from "./command-table";

// One dynamic import per group: a command loads its own module (and what that imports) only.
const GROUPS: Record<CommandGroup, () => Promise<Register>> = {
	memory: async () => {
		const m = await import("./commands/memory-commands");
		return (p) => m.registerMemoryCommands(p, version);
	},
	search: async () => (await import("./commands/search-command")).registerSearchCommand,
	reindex: async () => (await import("./commands/reindex-command")).registerReindexCommand,
	reflect: async () => (await import("./commands/reflect-commands")).registerReflectCommands,
	mcp: async () => {
		const m = await import("./commands/mcp-commands");
		return (p) => m.registerMcpCommands(p, version);
	},
	sync: async () => (await import("./commands/sync-commands")).registerSyncCommands,
	migrate: async () => (await import("./commands/migrate-command")).registerMigrateCommand,
	verify: async () => {
		const m = await import("./commands/verify-command");
		return (p) => {
			m.registerVerifyCommand(p);
			m.registerCompactCommand(p);
		};
	},
	health: async () => (await import("./commands/health-command")).registerHealthCommand,
	init: async () => (await import("./commands/init-command")).registerInitCommand,
	transfer: async () => {
		const m = await import("./commands/transfer-commands");
		return (p) => m.registerTransferCommands(p, version);
	},
};

/** The program for these arguments, with the named command's group loaded (command-table.ts). */
export function loadProgram(args: readonly string[]): Promise<Command> {
	return programFor(args, (group) => GROUPS[group]());
}

export async function main(argv: readonly string[]): Promise<void> {
	const program = await loadProgram(argv.slice(2));
	await program.parseAsync([...argv]);
}
