import { resolve } from "node:path";
import type { Command } from "commander";
import { ValidationError } from "../../engine/errors";
import { DEFAULT_MCP_PORT, defaultTokenFile, loadOrCreateToken, readToken, runMcpStdioProxy, serveMcpStdio, startMcpHttpServer } from "../../mcp";
import { createNodeMcpServices } from "../../mcp/node-services";
import { runPlain, runWithMemory } from "../run-command";

interface ServeFlags {
	port?: string;
	host?: string;
	tokenFile?: string;
	regenerateToken?: boolean;
	watch?: boolean;
	allowTenantHeaders?: boolean;
}

function parsePort(text: string): number {
	const port = Number(text);
	if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ValidationError(`--port must be a port number (0-65535), got "${text}".`);
	return port;
}

const LOOPBACK_HOSTS = ["127.0.0.1", "::1", "localhost"];

/**
 * --host, else ENGRAMA_HTTP_HOST (engrama-py's name), else 127.0.0.1. Only loopback: a bridge reachable
 * from the network would hand the memory to anyone holding the token, so another host is refused
 * (naming where it came from), never just warned about.
 */
export function serveHost(flag: string | undefined, env: string | undefined): string {
	const [host, from] = flag !== undefined ? [flag, "--host"] : env !== undefined ? [env, "ENGRAMA_HTTP_HOST"] : ["127.0.0.1", ""];
	if (!LOOPBACK_HOSTS.includes(host.toLowerCase())) {
		throw new ValidationError(
			`${from} must be a loopback address (${LOOPBACK_HOSTS.join(", ")}), got "${host}": the MCP bridge only serves this computer. To reach it from another machine, put an SSH tunnel or an authenticating reverse proxy in front of it.`,
		);
	}
	return host.toLowerCase();
}

/** Ready-to-paste client configurations for a running bridge. */
export function clientConfigs(url: string, token: string, tokenFile: string): Record<string, unknown> {
	const bin = resolve(process.argv[1] ?? "engrama");
	return {
		http: { mcpServers: { engrama: { type: "http", url, headers: { Authorization: `Bearer ${token}` } } } },
		stdio_proxy: {
			mcpServers: { engrama: { command: process.execPath, args: [bin, "mcp-proxy", "--url", url, "--token-file", tokenFile] } },
		},
		claude_code: `claude mcp add --transport http engrama ${url} --header "Authorization: Bearer ${token}"`,
	};
}

function untilSignal(): Promise<string> {
	return new Promise((resolveSignal) => {
		const done = (signal: string) => {
			process.off("SIGINT", onInt);
			process.off("SIGTERM", onTerm);
			resolveSignal(signal);
		};
		const onInt = () => done("SIGINT");
		const onTerm = () => done("SIGTERM");
		process.once("SIGINT", onInt);
		process.once("SIGTERM", onTerm);
	});
}

interface ServeInfo {
	readonly url: string;
	readonly token_file: string;
	readonly token_created: boolean;
	readonly database: string;
	readonly vault: string | null;
	readonly allow_tenant_headers: boolean;
	readonly configs: Record<string, unknown>;
}

/** What `engrama serve` prints (without --json): the endpoint, the token file and client configurations. */
function serveBanner(info: ServeInfo, watch: boolean): string {
	return [
		`Engrama MCP bridge on ${info.url}`,
		`Token: ${info.token_file}${info.token_created ? " (new)" : ""}`,
		...(info.allow_tenant_headers ? ["Gateway mode: X-Engrama-Org-Id / X-Engrama-User-Id headers choose the tenant of each request."] : []),
		`Memory: ${info.database}${info.vault ? `; vault ${info.vault}${watch ? " (watched)" : ""}` : ""}`,
		"",
		"HTTP clients (Claude Code, Cursor, VS Code, ...):",
		JSON.stringify(info.configs.http, null, 2),
		"",
		"Claude Code in one line:",
		String(info.configs.claude_code),
		"",
		"stdio-only clients (Claude Desktop) through the proxy:",
		JSON.stringify(info.configs.stdio_proxy, null, 2),
		"",
		"Press Ctrl+C to stop.",
	].join("\n");
}

/** serve (HTTP bridge), mcp --stdio, mcp-proxy. */
export function registerMcpCommands(program: Command, version: string): void {
	registerServeCommand(program, version);
	registerStdioCommands(program, version);
}

function registerServeCommand(program: Command, version: string): void {
	program
		.command("serve")
		.description("run the MCP bridge over HTTP on 127.0.0.1 until interrupted; prints the endpoint and client configurations")
		.option("--port <port>", `TCP port (0 picks a free one; default ENGRAMA_HTTP_PORT, else ${DEFAULT_MCP_PORT})`)
		.option("--host <host>", "loopback address to bind: 127.0.0.1, ::1 or localhost (default ENGRAMA_HTTP_HOST, else 127.0.0.1)")
		.option("--token-file <file>", "bearer token file (default: <database>.mcp-token, created with mode 0600)")
		.option("--regenerate-token", "replace the token (clients configured with the old one stop working)")
		.option("--watch", "also sync vault changes into the graph while serving (run engrama sync once first)")
		.option(
			"--allow-tenant-headers",
			"gateway mode: honour X-Engrama-Org-Id / X-Engrama-User-Id naming any tenant (env ENGRAMA_ALLOW_TENANT_HEADERS); by default they are refused with 403 unless they name this memory's own identity",
		)
		.action(async (options: ServeFlags, command: Command) =>
			runWithMemory(command, async ({ opened, out, config }) => {
				const port = options.port !== undefined ? parsePort(options.port) : (config.mcp.httpPort ?? DEFAULT_MCP_PORT);
				const host = serveHost(options.host, config.mcp.httpHost);
				if (!options.tokenFile && config.dbPath === ":memory:") {
					throw new ValidationError("An in-memory database has no place for the token: pass --token-file.");
				}
				const tokenFile = resolve(options.tokenFile ?? defaultTokenFile(config.dbPath));
				const { token, created } = await loadOrCreateToken(tokenFile, { regenerate: !!options.regenerateToken });
				const node = await createNodeMcpServices(opened.memory, opened.scope, config, { version, watch: !!options.watch });
				// Listening before announcing: a client may stop us the moment it reads the endpoint.
				const stopped = untilSignal();
				try {
					const allowTenantHeaders = !!options.allowTenantHeaders || config.mcp.allowTenantHeaders;
					const bridge = await startMcpHttpServer({
						memory: opened.memory,
						services: node.services,
						host,
						port,
						token,
						allowTenantHeaders,
						allowedOrigins: config.mcp.allowedOrigins,
						requireIdentity: config.mcp.requireIdentity,
					});
					const configs = clientConfigs(bridge.url, token, tokenFile);
					const info: ServeInfo = { url: bridge.url, token_file: tokenFile, token_created: created, database: config.dbPath, vault: config.vaultPath ?? null, allow_tenant_headers: allowTenantHeaders, configs };
					out.result(info, () => serveBanner(info, !!options.watch));
					const signal = await stopped;
					const writes = opened.memory.writeStats;
					out.info(`engrama serve: ${signal}, closing (${writes.jobs} writes in ${writes.groups} commits, at most ${writes.largestGroup} in one)`);
					await bridge.close();
				} finally {
					await node.stop();
				}
			}),
		);

}

function registerStdioCommands(program: Command, version: string): void {
	program
		.command("mcp")
		.description("serve the MCP tools over stdio straight from the database (for stdio-only clients)")
		.option("--stdio", "use stdio (the only transport of this command; engrama serve runs HTTP)")
		.action(async (options: { stdio?: boolean }, command: Command) =>
			runWithMemory(command, async ({ opened, config }) => {
				if (!options.stdio) throw new ValidationError("engrama mcp needs --stdio. For HTTP, run engrama serve.");
				const node = await createNodeMcpServices(opened.memory, opened.scope, config, { version });
				const stopped = untilSignal();
				try {
					const handle = await serveMcpStdio({ memory: opened.memory, services: node.services });
					await Promise.race([handle.done, stopped]);
					await handle.close();
				} finally {
					await node.stop();
				}
			}),
		);

	program
		.command("mcp-proxy")
		.description("bridge a stdio MCP client to a running HTTP bridge (Obsidian or engrama serve)")
		.requiredOption("--url <url>", "the bridge endpoint, e.g. http://127.0.0.1:27182/mcp")
		.option("--token-file <file>", "file holding the bearer token (or set ENGRAMA_MCP_TOKEN)")
		.action(async (options: { url: string; tokenFile?: string }, command: Command) =>
			runPlain(command, async () => {
				const token = options.tokenFile ? await readToken(resolve(options.tokenFile)) : process.env.ENGRAMA_MCP_TOKEN?.trim();
				if (!token) throw new ValidationError("mcp-proxy needs the bridge token: --token-file FILE, or ENGRAMA_MCP_TOKEN.");
				const handle = await runMcpStdioProxy({ url: options.url, token, log: (line) => process.stderr.write(`${line}\n`) });
				await Promise.race([handle.done, untilSignal()]);
				await handle.close();
			}),
		);
}
