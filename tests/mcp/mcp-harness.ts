import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { parseConfig, type SqliteEngine } from "../../src/config/engrama-config";
import { HashEmbeddingProvider } from "../../src/engine/embedding/hash-embedding-provider";
import type { EmbeddingProvider } from "../../src/engine/protocols";
import { generateMcpToken, startMcpHttpServer, type McpHttpHandle } from "../../src/mcp";
import { createNodeMcpServices, type NodeMcpServices } from "../../src/mcp/node-services";
import { openMemory, type OpenedMemory } from "../../src/nodejs/open-memory";

export interface Bridge {
	readonly opened: OpenedMemory;
	readonly http: McpHttpHandle;
	readonly node: NodeMcpServices;
	readonly token: string;
	readonly url: string;
	close(): Promise<void>;
}

/** A real bridge: a SQLite file, the skills, optionally a vault folder, HTTP on 127.0.0.1:<free port>. */
export async function startBridge(options: {
	dir: string;
	vault?: string;
	embedder?: EmbeddingProvider | null;
	modules?: string[];
	/** Gateway mode: tenant headers choose each call's scope (off: only the bridge's own scope). */
	allowTenantHeaders?: boolean;
	/** Default: the configuration's default (native where it loads). */
	sqliteEngine?: SqliteEngine;
}): Promise<Bridge> {
	const config = parseConfig({
		backend: "sqlite",
		sqliteEngine: options.sqliteEngine,
		dbPath: join(options.dir, "memory.db"),
		vaultPath: options.vault,
		profile: "base",
		modules: options.modules ?? [],
	});
	const opened = await openMemory(config, { embedder: options.embedder === undefined ? new HashEmbeddingProvider(64) : options.embedder });
	const node = await createNodeMcpServices(opened.memory, opened.scope, config, { version: "test", log: () => undefined });
	const token = generateMcpToken();
	const http = await startMcpHttpServer({ memory: opened.memory, services: node.services, port: 0, token, allowTenantHeaders: options.allowTenantHeaders });
	return {
		opened,
		http,
		node,
		token,
		url: http.url,
		async close() {
			await http.close();
			await node.stop();
			await opened.close();
		},
	};
}

/** The SDK's real client over real HTTP. */
export async function connectClient(url: string, token: string, headers: Record<string, string> = {}): Promise<Client> {
	const client = new Client({ name: "engrama-test", version: "1.0.0" });
	const transport = new StreamableHTTPClientTransport(new URL(url), {
		requestInit: { headers: { Authorization: `Bearer ${token}`, ...headers } },
	});
	await client.connect(transport);
	return client;
}

export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
	return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** structuredContent of a success; fails loudly with the error text otherwise. */
export async function ok<T = Record<string, unknown>>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<T> {
	const result = await call(client, name, args);
	if (result.isError) throw new Error(`${name} failed: ${textOf(result)}`);
	return result.structuredContent as T;
}

export function textOf(result: CallToolResult): string {
	return result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
}

export function writeNote(vault: string, path: string, text: string): void {
	const file = join(vault, path);
	mkdirSync(dirname(file), { recursive: true });
	writeFileSync(file, text);
}
