// What the command line shows before it loads a command: names, usage terms and descriptions of
// every command, so `--help` and `--version` load no engine, WASM, driver or MCP SDK. Checked
// against the registered commands by tests/cli/lazy-commands.test.ts.
import { Command, Help } from "commander";

declare const ENGRAMA_VERSION: string | undefined;
export const version = typeof ENGRAMA_VERSION === "string" ? ENGRAMA_VERSION : "0.0.0-dev";

export type CommandGroup = "memory" | "search" | "reindex" | "reflect" | "mcp" | "sync" | "migrate" | "verify" | "health" | "init" | "transfer";

export interface CommandSummary {
	readonly name: string;
	/** As commander prints it in the command list, e.g. "remember [options]". */
	readonly term: string;
	readonly description: string;
	/** The module under src/cli/commands that registers it. */
	readonly group: CommandGroup;
}

export const COMMANDS: readonly CommandSummary[] = [
	{ name: "status", term: "status", description: "show the backend, node and edge counts, and labels", group: "memory" },
	{ name: "remember", term: "remember [options]", description: "create or update (MERGE) an entity, with inline relations resolved by the engine", group: "memory" },
	{ name: "relate", term: "relate <fromLabel> <fromName> <relation> <toLabel> <toName>", description: "create a typed relation (idempotent), validated against the profile", group: "memory" },
	{ name: "get", term: "get [options]", description: "show one entity", group: "memory" },
	{ name: "context", term: "context [options]", description: "show an entity's neighbourhood", group: "memory" },
	{ name: "related", term: "related [options] <note>", description: "notes related to a note and not yet linked to it, with the passage they share; linked notes apart", group: "memory" },
	{ name: "forget", term: "forget [options]", description: "archive an entity (--hard removes it), forget by age (--ttl), or erase your whole memory (--gdpr)", group: "memory" },
	{ name: "decay", term: "decay [options]", description: "report what age does to ranking (read-only: stored confidence no longer decays)", group: "memory" },
	{ name: "history", term: "history [options]", description: "every recorded property change of an entity, oldest first", group: "memory" },
	{ name: "at", term: "at [options] <date>", description: "what the memory held as valid at a date (query_at_date), with the properties of then", group: "memory" },
	{ name: "ingest", term: "ingest [options] <source>", description: "read a note, text or conversation (a file, or - for stdin) and print extraction guidance and dedup hints", group: "memory" },
	{ name: "search", term: "search [options] <query>", description: "hybrid search: fulltext + vectors, fused by RRF, reranked by the graph, recency and trust", group: "search" },
	{ name: "reindex", term: "reindex [options]", description: "embed the nodes and note sections that have no vector (or a stale one); a dry run unless --apply", group: "reindex" },
	{ name: "reflect", term: "reflect [options]", description: "look for cross-entity patterns and propose them as pending Insights for you to review", group: "reflect" },
	{ name: "insights", term: "insights [options]", description: "list Insights to review (pending by default), optionally only those related to a query", group: "reflect" },
	{ name: "approve", term: "approve [options] <title>", description: "approve an Insight reflect proposed (reflect never proposes it again either way)", group: "reflect" },
	{ name: "dismiss", term: "dismiss [options] <title>", description: "dismiss an Insight reflect proposed (reflect never proposes it again either way)", group: "reflect" },
	{ name: "write-insight", term: "write-insight [options] <title>", description: "write an approved Insight into the vault: a dated section in --note, or a new note in the Insights folder", group: "reflect" },
	{ name: "serve", term: "serve [options]", description: "run the MCP bridge over HTTP on 127.0.0.1 until interrupted; prints the endpoint and client configurations", group: "mcp" },
	{ name: "mcp", term: "mcp [options]", description: "serve the MCP tools over stdio straight from the database (for stdio-only clients)", group: "mcp" },
	{ name: "mcp-proxy", term: "mcp-proxy [options]", description: "bridge a stdio MCP client to a running HTTP bridge (Obsidian or engrama serve)", group: "mcp" },
	{ name: "sync", term: "sync [options]", description: "sync the vault into the graph (full sync; the graph's new entities are written back as notes)", group: "sync" },
	{ name: "watch", term: "watch [options]", description: "full sync, then keep the graph in step with the vault until interrupted (Ctrl+C)", group: "sync" },
	{ name: "sync-note", term: "sync-note [options] <path>", description: "sync one note now (new, changed, moved or deleted)", group: "sync" },
	{ name: "migrate", term: "migrate [options]", description: "copy the whole memory to another backend (nodes, edges, props, vectors, history, Insights) and verify counts and content", group: "migrate" },
	{ name: "verify", term: "verify [options]", description: "check the memory's integrity (database, fulltext, vectors, relations) and say what to do; read-only unless --fix", group: "verify" },
	{ name: "compact", term: "compact", description: "rewrite the SQLite memory file without its free space (VACUUM); nothing stored changes", group: "verify" },
	{ name: "health", term: "health [options]", description: "report the backend, embedder and MCP bridge (read-only); exit 1 when something is down", group: "health" },
	{ name: "init", term: "init", description: "set up a memory (the SQLite file, or the Neo4j schema) and print the next steps; changes nothing if it exists", group: "init" },
	{ name: "export", term: "export [options] [file]", description: "write the whole memory (nodes with provenance, relations, history, Insights, settings; vectors with --vectors) as portable NDJSON that engrama import reads back", group: "transfer" },
	{ name: "import", term: "import [options] <file>", description: "read an export into this memory; the whole file is checked first and bad input changes nothing", group: "transfer" },
];

/** Global options whose value is the next argument (to find the command name in argv). */
export const GLOBAL_OPTIONS_WITH_VALUE = new Set(["--db", "--vault", "--profile", "--modules", "--backend", "--sqlite-engine"]);

/** The program with its global options and no command. */
export function baseProgram(): Command {
	return new Command()
		.name("engrama")
		.description("Engrama: a graph memory for you and your AI agents, on an Obsidian vault or on its own.")
		.version(version)
		.option("--db <path>", "SQLite memory file (env ENGRAMA_DB_PATH, default ~/.engrama/engrama.db)")
		.option("--vault <path>", "Obsidian vault folder (env VAULT_PATH)")
		.option("--profile <name|file>", "profile: base, developer or a .yaml path (env ENGRAMA_PROFILE)")
		.option("--modules <list>", "comma-separated modules, e.g. teaching,hacking (env ENGRAMA_MODULES)")
		.option("--backend <name>", "sqlite, neo4j or null (env GRAPH_BACKEND)")
		.option("--sqlite-engine <engine>", "auto (native SQLite if it loads, else WASM), native or wasm (env ENGRAMA_SQLITE_ENGINE)")
		.option("--json", "machine-readable output on stdout; errors as JSON on stderr")
		.showHelpAfterError();
}

/** Registers a group's commands on the program. */
export type Register = (program: Command) => void;

/** The operands of argv (after node and the script): the command first, or none. */
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
 * The program for these arguments: the named command's group registered for real (`load`), every
 * other command as a summary (name, usage, description) that loads nothing, for help and errors.
 */
export async function programFor(args: readonly string[], load: (group: CommandGroup) => Promise<Register>): Promise<Command> {
	const program = baseProgram();
	const [first, second] = commandOperands(args);
	const wanted = COMMANDS.find((c) => c.name === (first === "help" ? second : first));
	const register = wanted ? await load(wanted.group) : undefined;
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

/** How either entry reports a failure nothing else caught. */
export function reportFailure(error: unknown): void {
	process.stderr.write(`engrama: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
	process.exitCode = 1;
}
