import { Help, type Command } from "commander";
import { COMMANDS, GLOBAL_OPTIONS_WITH_VALUE, baseProgram, version, type CommandGroup } from "./command-table";

type Register = (program: Command) => void;

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

/** The first operand of argv (after node and the script): the command, or undefined. */
export function commandOperands(args: readonly string[]): string[] {
	const operands: string[] = [];
	for (let i = 0; i < args.length; i++) {
		const arg = args[i];
		if (GLOBAL_OPTIONS_WITH_VALUE.has(arg)) i++;
		else if (!arg.startsWith("-")) operands.push(arg);
	}
	return operands;
}

/**
 * The program for these arguments: the named command's group registered for real, every other
 * command as a summary (name, usage, description) that loads nothing, for help and errors.
 */
export async function loadProgram(args: readonly string[]): Promise<Command> {
	const program = baseProgram();
	const [first, second] = commandOperands(args);
	const wanted = COMMANDS.find((c) => c.name === (first === "help" ? second : first));
	const register = wanted ? await GROUPS[wanted.group]() : undefined;
	const terms = new Map<Command, string>();
	// In the listed order of the full program (each group's commands are consecutive).
	for (const summary of COMMANDS) {
		if (summary.group !== wanted?.group) terms.set(program.command(summary.name).description(summary.description), summary.term);
		else if (!program.commands.some((c) => c.name() === summary.name)) register?.(program);
	}
	const help = new Help();
	program.configureHelp({ subcommandTerm: (cmd) => terms.get(cmd) ?? help.subcommandTerm(cmd) });
	return program;
}

export async function main(argv: readonly string[]): Promise<void> {
	const program = await loadProgram(argv.slice(2));
	await program.parseAsync([...argv]);
}
