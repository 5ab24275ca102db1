import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { ValidationError } from "../engine/errors";
import { setSqliteWarmUp } from "../backends";
import { SQLITE_ENGINES, configFromEnv, parseConfig, type EngramaConfig, type SqliteEngine } from "../config/engrama-config";
import { openMemory, type OpenedMemory } from "../nodejs/open-memory";
import { defaultDataDir } from "../nodejs/private-dir";
import { type Skills, type WriteContext } from "../engine";
import { createOutput, reportError, type Output } from "./output";

export interface GlobalOptions {
	db?: string;
	vault?: string;
	profile?: string;
	modules?: string;
	backend?: string;
	sqliteEngine?: string;
	json?: boolean;
}

export function defaultDbPath(): string {
	return join(defaultDataDir(), "engrama.db");
}

/** Environment first (the seed's variables), then global flags. */
export function resolveConfig(options: GlobalOptions, env: NodeJS.ProcessEnv = process.env): EngramaConfig {
	const input = configFromEnv(env, { dbPath: defaultDbPath() });
	return parseConfig({
		...input,
		...(options.backend ? { backend: options.backend as EngramaConfig["backend"] } : {}),
		...(options.sqliteEngine ? { sqliteEngine: sqliteEngineFlag(options.sqliteEngine) } : {}),
		...(options.db ? { dbPath: resolve(options.db) } : {}),
		...(options.vault ? { vaultPath: resolve(options.vault) } : {}),
		...(options.profile ? { profile: options.profile } : {}),
		...(options.modules !== undefined ? { modules: options.modules.split(/[,\s]+/).filter(Boolean) } : {}),
	});
}

function sqliteEngineFlag(value: string): SqliteEngine {
	const found = SQLITE_ENGINES.find((engine) => engine === value.trim().toLowerCase());
	if (!found) throw new ValidationError(`--sqlite-engine must be one of ${SQLITE_ENGINES.join(", ")}; got "${value}".`);
	return found;
}

export interface CommandRun {
	readonly opened: OpenedMemory;
	readonly out: Output;
	readonly ctx: WriteContext;
	readonly config: EngramaConfig;
	/** The engine's face over the opened memory: every verb the command runs. */
	readonly skills: Skills;
}

/**
 * Opens the memory for one command, runs it, always closes, and maps errors to exit codes.
 * `replicateToVault`: with --vault, the command's writes are also written into notes (graph → vault)
 * before the memory closes.
 */
export async function runWithMemory(
	command: Command,
	job: (run: CommandRun) => Promise<void>,
	options: { replicateToVault?: boolean; mustExist?: boolean } = {},
): Promise<void> {
	forCommandLine();
	const flags = command.optsWithGlobals<GlobalOptions>();
	const out = createOutput(!!flags.json);
	let opened: OpenedMemory | undefined;
	let finishVaultWrites: (() => Promise<void>) | null = null;
	try {
		const config = resolveConfig(flags);
		// Checks that read a memory must not create an empty one where the user mistyped a path.
		if (options.mustExist && config.backend === "sqlite" && config.dbPath !== ":memory:" && !existsSync(config.dbPath)) {
			throw new ValidationError(`No memory at ${config.dbPath}. Run engrama init to create it, or point --db (or ENGRAMA_DB_PATH) at an existing file.`);
		}
		opened = await openMemory(config);
		if (options.replicateToVault && config.vaultPath) {
			// Loaded only by commands that write into a vault, when one is configured.
			const { attachVaultWriter } = await import("./vault-writer");
			finishVaultWrites = await attachVaultWriter(opened, config);
		}
		await job({ opened, out, ctx: { scope: opened.scope, source: "cli" }, config, skills: opened.skills });
		if (finishVaultWrites) await finishVaultWrites();
	} catch (error) {
		process.exitCode = reportError(error, out.json);
	} finally {
		if (opened) {
			try {
				await opened.close();
			} catch (error) {
				process.exitCode = reportError(error, out.json);
			}
		}
	}
}

/**
 * Every command runs through runWithMemory or runPlain. SQLite's warm-up keeps Obsidian's UI
 * thread responsive while the engine opens; a command line has no UI thread, so it skips it.
 */
function forCommandLine(): void {
	setSqliteWarmUp(false);
}

/** Runs a command that needs no memory, mapping errors the same way. */
export async function runPlain(command: Command, job: (out: Output, options: GlobalOptions) => Promise<void>): Promise<void> {
	forCommandLine();
	const options = command.optsWithGlobals<GlobalOptions>();
	const out = createOutput(!!options.json);
	try {
		await job(out, options);
	} catch (error) {
		process.exitCode = reportError(error, out.json);
	}
}
