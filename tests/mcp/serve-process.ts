import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";

const BIN = join(__dirname, "..", "..", "bin", "engrama.mjs");

export interface ServeInfo {
	readonly url: string;
	readonly token_file: string;
	readonly token_created: boolean;
	readonly configs: { readonly http: { mcpServers: { engrama: { headers: { Authorization: string } } } } };
}

export interface ServeProcess {
	readonly child: ChildProcess;
	readonly info: ServeInfo;
	readonly token: string;
	stderr(): string;
	/** Resolves with the exit code and signal once the process is gone. */
	exited(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts the real built `engrama --json <args> serve --port 0 <serveArgs>` and waits for its JSON announcement
 * (`portFlag: false` leaves --port out, for the environment's port; `nodeArgs` go to Node, e.g. a heap limit).
 */
export function spawnServe(
	args: readonly string[],
	env: NodeJS.ProcessEnv = {},
	serveArgs: readonly string[] = [],
	options: { portFlag?: boolean; nodeArgs?: readonly string[] } = {},
): Promise<ServeProcess> {
	const port = options.portFlag === false ? [] : ["--port", "0"];
	const child = spawn(process.execPath, [...(options.nodeArgs ?? []), BIN, "--json", ...args, "serve", ...port, ...serveArgs], {
		env: { ...process.env, ENGRAMA_DB_PATH: "", GRAPH_BACKEND: "", ENGRAMA_HTTP_HOST: "", ENGRAMA_HTTP_PORT: "", VAULT_PATH: "", EMBEDDING_PROVIDER: "", ...env },
		stdio: ["ignore", "pipe", "pipe"],
	});
	let out = "";
	let err = "";
	const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
	child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
	return new Promise((resolve, reject) => {
		const timer = setTimeout(() => reject(new Error(`engrama serve did not start within 60 s: ${err}`)), 60_000);
		child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
			out += chunk;
			let info: ServeInfo;
			try {
				info = JSON.parse(out) as ServeInfo;
			} catch {
				return;
			}
			clearTimeout(timer);
			const token = info.configs.http.mcpServers.engrama.headers.Authorization.replace(/^Bearer /, "");
			resolve({ child, info, token, stderr: () => err, exited: () => exit });
		});
		void exit.then(({ code, signal }) => {
			clearTimeout(timer);
			reject(new Error(`engrama serve exited early (${code ?? signal}): ${err}`));
		});
	});
}
