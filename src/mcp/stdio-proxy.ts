import process from "node:process";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { isInitializeRequest, isJSONRPCRequest, type JSONRPCMessage, type JSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";
import { ValidationError, errorMessage } from "../engine/errors";
import { isLoopbackHost } from "./http-guard";
import type { StdioHandle, StdioStreams } from "./stdio-server";
import { hostSetTimeout } from "../backends/host-timers";

export interface StdioProxyOptions {
	/** The running bridge, e.g. http://127.0.0.1:27182/mcp. */
	readonly url: string;
	readonly token: string;
	readonly streams?: StdioStreams;
	readonly log?: (line: string) => void;
}

/**
 * Bridges a stdio-only MCP client to a running HTTP bridge (the live plugin, or engrama serve):
 * every message is forwarded as is, with the bearer token added. When the bridge restarted, the
 * proxy opens a new session by itself; when it cannot be reached, each request gets a JSON-RPC
 * error that says so, instead of hanging.
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
	const initializeIds = new Set<string | number>();
	/** Internal requests of a reconnect, answered by the bridge but never shown to the client. */
	const internal = new Map<string | number, (message: JSONRPCMessage) => void>();
	let initialize: JSONRPCRequest | undefined;
	let reconnecting: Promise<void> | null = null;
	let reconnects = 0;
	let finish: () => void = () => undefined;
	const done = new Promise<void>((resolve) => {
		finish = resolve;
	});

	const connect = (): StreamableHTTPClientTransport => {
		const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${options.token}` } } });
		transport.onmessage = (message: JSONRPCMessage) => {
			if ("id" in message && message.id !== undefined && internal.has(message.id)) {
				internal.get(message.id)?.(message);
				internal.delete(message.id);
				return;
			}
			if ("id" in message && "result" in message && initializeIds.delete(message.id)) {
				const version = (message.result as { protocolVersion?: unknown }).protocolVersion;
				if (typeof version === "string") transport.setProtocolVersion(version);
			}
			void local.send(message);
		};
		transport.onerror = (error) => log(`engrama mcp-proxy: ${error.message}`);
		return transport;
	};
	let remote = connect();

	/**
	 * The bridge restarted (Obsidian reopened, serve restarted): its sessions are gone. Open a new
	 * one by replaying the client's initialize, so the client never notices.
	 */
	const reconnect = async (): Promise<void> => {
		if (!initialize) throw new Error("the bridge lost the session before it was initialized");
		const old = remote;
		remote = connect();
		void old.close().catch(() => undefined);
		await remote.start();
		const id = `engrama-proxy-reconnect-${++reconnects}`;
		const answered = new Promise<JSONRPCMessage>((resolve, reject) => {
			internal.set(id, resolve);
			hostSetTimeout(() => reject(new Error("the bridge did not answer the new initialize")), 15_000, { unref: true });
		});
		await remote.send({ ...initialize, id });
		const answer = await answered;
		if (!("result" in answer)) throw new Error("the bridge refused the new initialize");
		const version = (answer.result as { protocolVersion?: unknown }).protocolVersion;
		if (typeof version === "string") remote.setProtocolVersion(version);
		await remote.send({ jsonrpc: "2.0", method: "notifications/initialized" });
		log("engrama mcp-proxy: the bridge restarted; reconnected with a new session");
	};

	const forward = async (message: JSONRPCMessage): Promise<void> => {
		if (reconnecting) await reconnecting.catch(() => undefined);
		try {
			await remote.send(message);
		} catch (error) {
			if (!(error instanceof StreamableHTTPError && error.code === 404) || !initialize || isInitializeRequest(message)) throw error;
			reconnecting ??= reconnect().finally(() => {
				reconnecting = null;
			});
			await reconnecting;
			await remote.send(message);
		}
	};

	local.onmessage = (message: JSONRPCMessage) => {
		if (isInitializeRequest(message) && isJSONRPCRequest(message)) {
			initializeIds.add(message.id);
			initialize = message;
		}
		forward(message).catch((error: unknown) => {
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
