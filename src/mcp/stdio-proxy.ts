import process from "node:process";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { isInitializeRequest, isJSONRPCRequest, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { ValidationError, errorMessage } from "../engine/errors";
import { isLoopbackHost } from "./http-guard";
import type { StdioHandle, StdioStreams } from "./stdio-server";

export interface StdioProxyOptions {
	/** The running bridge, e.g. http://127.0.0.1:27182/mcp. */
	readonly url: string;
	readonly token: string;
	readonly streams?: StdioStreams;
	readonly log?: (line: string) => void;
}

/**
 * Bridges a stdio-only MCP client to a running HTTP bridge (the live plugin, or engrama serve):
 * every message is forwarded as is, with the bearer token added. When the bridge cannot be
 * reached, each request gets a JSON-RPC error that says so, instead of hanging.
 */
export async function runMcpStdioProxy(options: StdioProxyOptions): Promise<StdioHandle> {
	let url: URL;
	try {
		url = new URL(options.url);
	} catch {
		throw new ValidationError(`--url "${options.url}" is not a URL. Use the endpoint engrama serve prints, e.g. http://127.0.0.1:27182/mcp.`);
	}
	if ((url.protocol !== "http:" && url.protocol !== "https:") || !isLoopbackHost(url.host)) {
		throw new ValidationError(`--url must point at this machine (http://127.0.0.1:<port>/mcp): the bridge only listens locally, and the token must not leave it.`);
	}
	const log = options.log ?? (() => undefined);
	const streams = options.streams ?? { stdin: process.stdin, stdout: process.stdout };
	const local = new StdioServerTransport(streams.stdin as never, streams.stdout as never);
	const remote = new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${options.token}` } } });
	const initializeIds = new Set<string | number>();
	let finish: () => void = () => undefined;
	const done = new Promise<void>((resolve) => {
		finish = resolve;
	});

	local.onmessage = (message: JSONRPCMessage) => {
		if (isInitializeRequest(message) && isJSONRPCRequest(message)) initializeIds.add(message.id);
		remote.send(message).catch((error: unknown) => {
			log(`engrama mcp-proxy: ${errorMessage(error)}`);
			if (isJSONRPCRequest(message)) {
				void local.send({
					jsonrpc: "2.0",
					id: message.id,
					error: { code: -32000, message: `The Engrama bridge at ${url.href} did not accept the call: ${errorMessage(error)}. Is Obsidian (or engrama serve) running, and is the token current?` },
				});
			}
		});
	};
	remote.onmessage = (message: JSONRPCMessage) => {
		if ("id" in message && "result" in message && initializeIds.delete(message.id)) {
			const version = (message.result as { protocolVersion?: unknown }).protocolVersion;
			if (typeof version === "string") remote.setProtocolVersion(version);
		}
		void local.send(message);
	};
	remote.onerror = (error) => log(`engrama mcp-proxy: ${error.message}`);
	local.onerror = (error) => log(`engrama mcp-proxy: stdio: ${error.message}`);

	const close = async () => {
		await remote.terminateSession().catch(() => undefined);
		await remote.close().catch(() => undefined);
		await local.close().catch(() => undefined);
		finish();
	};
	await remote.start();
	await local.start();
	const onEnd = () => void close();
	streams.stdin.once("end", onEnd);
	streams.stdin.once("close", onEnd);
	return { done, close };
}
