import { spawnSync } from "node:child_process";
import { join } from "node:path";

const BIN = join(__dirname, "..", "..", "bin", "engrama.mjs");

export interface CliResult {
	readonly status: number;
	readonly stdout: string;
	readonly stderr: string;
	json<T = Record<string, unknown>>(): T;
}

/** Runs the real built command line in a child process. */
export function runCli(args: readonly string[], options: { env?: NodeJS.ProcessEnv; input?: string; cwd?: string } = {}): CliResult {
	const result = spawnSync(process.execPath, [BIN, ...args], {
		encoding: "utf8",
		env: { ...process.env, ENGRAMA_DB_PATH: "", GRAPH_BACKEND: "", ...options.env },
		input: options.input,
		cwd: options.cwd,
		timeout: 60_000,
	});
	return {
		status: result.status ?? -1,
		stdout: result.stdout,
		stderr: result.stderr,
		json<T>() {
			return JSON.parse(result.stdout) as T;
		},
	};
}
