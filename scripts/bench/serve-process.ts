// What the MCP benchmarks share: a real `engrama serve` child on a free port, a client for it, the load.
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

export interface ServeProcess {
	readonly child: ChildProcess;
	readonly url: string;
	readonly token: string;
	readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
	/** What the server wrote to stderr so far. */
	stderr(): string;
}

/**
 * Starts `engrama <globalArgs> --json serve --port 0` and resolves once it printed its address and
 * token. `env` is added to a clean one (no database, vault or tenant variables of the caller's).
 */
export function startServe(globalArgs: readonly string[], env: NodeJS.ProcessEnv, nodeArgs: readonly string[] = []): Promise<ServeProcess> {
	const child = spawn(process.execPath, [...nodeArgs, join("bin", "engrama.mjs"), ...globalArgs, "--json", "serve", "--port", "0"], {
		env: { ...process.env, ENGRAMA_DB_PATH: "", VAULT_PATH: "", ENGRAMA_ALLOW_TENANT_HEADERS: "", ...env },
		stdio: ["ignore", "pipe", "pipe"],
	});
	let err = "";
	child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
	const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
	let out = "";
	return new Promise((resolve, reject) => {
		child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
			out += chunk;
			try {
				const info = JSON.parse(out) as { url: string; configs: { http: { mcpServers: { engrama: { headers: { Authorization: string } } } } } };
				const token = info.configs.http.mcpServers.engrama.headers.Authorization.replace(/^Bearer /, "");
				resolve({ child, url: info.url, token, exited, stderr: () => err });
			} catch {
				// Not the whole JSON yet.
			}
		});
		void exited.then(() => reject(new Error(`engrama serve exited before it was ready: ${err}`)));
	});
}

/** A real MCP client over Streamable HTTP with the bearer token. */
export async function connectClient(url: string, token: string, name: string): Promise<Client> {
	const client = new Client({ name, version: "1.0.0" });
	await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
	return client;
}

/** The machine's 1/5/15-minute load, printed beside figures that depend on it. */
export function loadAverage(): string {
	try {
		return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
	} catch {
		return "n/a";
	}
}
