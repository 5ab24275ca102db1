// Builds fixtures/child-main.ts with esbuild + our plugin and runs it as a separate Node process.
import * as esbuild from "esbuild";
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { sqliteWasmPlugin } from "../../../../src/backends/sqlite/wasm/esbuild-wasm-plugin.mjs";

const CHILD_ENTRY = fileURLToPath(new URL("./fixtures/child-main.ts", import.meta.url));

export async function bundleChild(outDir: string, format: "cjs" | "esm" = "cjs"): Promise<string> {
	const outfile = join(outDir, format === "cjs" ? "child.cjs" : "child.mjs");
	await esbuild.build({
		entryPoints: [CHILD_ENTRY],
		bundle: true,
		format,
		platform: "node",
		target: "node20",
		outfile,
		plugins: [sqliteWasmPlugin()],
		logLevel: "error",
	});
	return outfile;
}

export interface RunningChild {
	readonly process: ChildProcess;
	readonly lines: string[];
	/** Resolves with the first output line matching `pattern`. */
	waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
	/** Resolves when the process has exited (after any kill). */
	exited: Promise<number | null>;
	/** Writes one line to its stdin (only with `{ stdin: true }`). */
	send(line: string): void;
}

export function startChild(bundle: string, args: readonly string[], cwd: string, options: { stdin?: boolean } = {}): RunningChild {
	const child = spawn(process.execPath, [bundle, ...args], { cwd, stdio: [options.stdin ? "pipe" : "ignore", "pipe", "pipe"] });
	const lines: string[] = [];
	const waiters: { pattern: RegExp; resolve: (line: string) => void }[] = [];
	let buffered = "";
	let stderr = "";
	child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
	child.stdout?.on("data", (chunk: Buffer) => {
		buffered += chunk.toString();
		let newline: number;
		while ((newline = buffered.indexOf("\n")) >= 0) {
			const line = buffered.slice(0, newline);
			buffered = buffered.slice(newline + 1);
			lines.push(line);
			for (const waiter of waiters.filter((w) => w.pattern.test(line))) {
				waiters.splice(waiters.indexOf(waiter), 1);
				waiter.resolve(line);
			}
		}
	});
	const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
	return {
		process: child,
		lines,
		exited,
		send(line) {
			if (!child.stdin) throw new Error("startChild() was called without { stdin: true }");
			child.stdin.write(`${line}\n`);
		},
		waitFor(pattern, timeoutMs = 20_000) {
			const seen = lines.find((line) => pattern.test(line));
			if (seen) return Promise.resolve(seen);
			return new Promise((resolve, reject) => {
				const timer = setTimeout(
					() => reject(new Error(`child never printed ${pattern}; stdout: ${lines.join(" | ")}; stderr: ${stderr}`)),
					timeoutMs,
				);
				waiters.push({ pattern, resolve: (line) => (clearTimeout(timer), resolve(line)) });
				void exited.then(() => {
					setTimeout(() => reject(new Error(`child exited before printing ${pattern}; stdout: ${lines.join(" | ")}; stderr: ${stderr}`)), 50);
				});
			});
		},
	};
}

export async function runChild(bundle: string, args: readonly string[], cwd: string): Promise<string[]> {
	const child = startChild(bundle, args, cwd);
	await child.exited;
	return child.lines;
}
