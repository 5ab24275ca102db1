// A native SQLite reader (Python's sqlite3 module, as the sqlite3 shell or DB Browser would open
// the file) for tests: python3 must be installed (.ci/run installs it).
import { spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { requireTool } from "../../../helpers/system-tools";

const READER = fileURLToPath(new URL("./fixtures/native-reader.py", import.meta.url));

/** Opens, reads and closes, as a one-off query in the sqlite3 shell would (`readonly`: as `sqlite3 -readonly`). */
export function peek(db: string, options: { readonly?: boolean } = {}): void {
	const run = spawnSync(requireTool("python3"), [READER, options.readonly ? "peek-readonly" : "peek", db], { encoding: "utf8" });
	if (run.status !== 0 || !run.stdout.includes("CLOSED")) throw new Error(`python3 native reader failed (python3 must be installed): ${run.error?.message ?? run.stderr}`);
}

/** Opens and stays open (a DB Browser window) until `close()`. */
export async function hold(db: string): Promise<{ close: () => Promise<void> }> {
	const child = spawn(requireTool("python3"), [READER, "hold", db], { stdio: ["pipe", "pipe", "pipe"] });
	let out = "";
	let err = "";
	child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
	const closed = new Promise<void>((resolve, reject) => {
		child.on("error", reject);
		child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`native reader exited ${code}: ${err}`))));
	});
	await new Promise<void>((resolve, reject) => {
		child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
			out += chunk;
			if (out.includes("OPEN")) resolve();
		});
		closed.then(() => reject(new Error(`native reader closed before opening: ${err}`)), reject);
	});
	return {
		close: () => {
			child.stdin.end();
			return closed;
		},
	};
}

/** Peeks in a loop (open, read, close every few ms) until `stop()`, which resolves with the number of peeks. */
export function peekLoop(db: string): { peeks: () => number; stop: () => Promise<number> } {
	const child = spawn(requireTool("python3"), [READER, "loop", db], { stdio: ["pipe", "pipe", "pipe"] });
	let out = "";
	let err = "";
	child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
	child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
	const exited = new Promise<number | null>((resolve, reject) => {
		child.on("error", reject);
		child.on("exit", resolve);
	});
	return {
		peeks: () => out.split("PEEKED").length - 1,
		stop: async () => {
			child.stdin.end();
			const code = await exited;
			const peeks = /PEEKS (\d+)/.exec(out);
			if (code !== 0 || !peeks) throw new Error(`python3 reader loop failed (${code}): ${err}`);
			return Number(peeks[1]);
		},
	};
}

/** A native writer that commits rows from..to-1 into `ack` and exits without closing, as if killed. */
export function writeNativeAndDie(db: string, from: number, to: number): void {
	const run = spawnSync(requireTool("python3"), [READER, "write-and-die", db, String(from), String(to)], { encoding: "utf8" });
	if (run.status !== 0 || !run.stdout.includes("WRITTEN")) throw new Error(`python3 native writer failed: ${run.error?.message ?? run.stderr}`);
}
