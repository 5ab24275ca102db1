import process from "node:process";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { isInitializeRequest, isJSONRPCRequest, type JSONRPCMessage, type JSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";
import { ValidationError, errorMessage } from "../engine/errors";
import { isLoopbackHost } from "./http-guard";
import type { StdioHandle, StdioStreams } from "./stdio-server";
import { CheckedStdioTransport, oneLine } from "./stdio-lines";
import { hostClearTimeout, hostSetTimeout, type TimerHandle } from "../platform/host-timers";

export interface StdioProxyOptions {
	/** The running bridge, e.g. http://127.0.0.1:27182/mcp. */
	readonly url: string;
	readonly token: string;
	readonly streams?: StdioStreams;
	readonly log?: (line: string) => void;
}

/** The bridge endpoint, checked: a URL on this machine (the token must not leave it). */
function proxyUrl(raw: string): URL {
	let url: URL;
	try {
		url = new URL(raw);
	} catch {
		throw new ValidationError(`--url "${raw}" is not a URL. Use the endpoint engrama serve prints, e.g. http://127.0.0.1:27182/mcp.`);
	}
	if ((url.protocol !== "http:" && url.protocol !== "https:") || !isLoopbackHost(url.host)) {
		throw new ValidationError(`--url must point at this machine (http://127.0.0.1:<port>/mcp): the bridge only listens locally, and the token must not leave it.`);
	}
	return url;
}

function protocolVersionOf(message: JSONRPCMessage): string | undefined {
	const version = "result" in message ? (message.result as { protocolVersion?: unknown }).protocolVersion : undefined;
	return typeof version === "string" ? version : undefined;
}

/** The JSON-RPC error the bridge answered with, read from the SDK's error text (it keeps only the status as a field). */
function bridgeError(error: StreamableHTTPError): { code: number; message: string } | undefined {
	const body = /Error POSTing to endpoint: (\{.*\})$/s.exec(error.message)?.[1];
	if (!body) return undefined;
	try {
		const parsed = JSON.parse(body) as { error?: { code?: unknown; message?: unknown } };
		const { code, message } = parsed.error ?? {};
		return typeof code === "number" && typeof message === "string" ? { code, message } : undefined;
	} catch {
		return undefined;
	}
}

/**
 * The answer to a request the bridge did not take: when the bridge answered, its own error (a
 * request before initialize, a refused token) rather than a guess that it is not running.
 */
function failureAnswer(url: URL, error: unknown): { code: number; message: string } {
	const answered = error instanceof StreamableHTTPError ? bridgeError(error) : undefined;
	if (answered && error instanceof StreamableHTTPError) {
		const hint = error.code === 401 ? " Check the proxy's --token-file (or ENGRAMA_MCP_TOKEN) against the bridge's current token." : "";
		return { code: answered.code, message: `The Engrama bridge at ${url.href} did not accept the call (HTTP ${error.code}): ${answered.message}${hint}` };
	}
	return { code: -32000, message: `The Engrama bridge at ${url.href} did not accept the call: ${errorMessage(error)}. Is Obsidian (or engrama serve) running, and is the token current?` };
}

/**
 * The HTTP side of the proxy: one session with the bridge, opened again (by replaying the client's
 * initialize) when the bridge restarted and forgot it.
 */
class BridgeSession {
	private readonly initializeIds = new Set<string | number>();
	/** Internal requests of a reconnect, answered by the bridge but never shown to the client. */
	private readonly internal = new Map<string | number, (message: JSONRPCMessage) => void>();
	private initialize: JSONRPCRequest | undefined;
	private reconnecting: Promise<void> | null = null;
	private closing = false;
	/** The remote has no session: a reconnect was cut short. */
	private sessionless = false;
	private reconnects = 0;
	private remote: StreamableHTTPClientTransport;

	constructor(
		private readonly url: URL,
		private readonly token: string,
		private readonly toClient: (message: JSONRPCMessage) => void,
		private readonly log: (line: string) => void,
	) {
		this.remote = this.connect();
	}

	start(): Promise<void> {
		return this.remote.start();
	}

	/** Notes the client's initialize (replayed on reconnect) before it goes out. */
	noteInitialize(message: JSONRPCRequest): void {
		this.initializeIds.add(message.id);
		this.initialize = message;
	}

	async forward(message: JSONRPCMessage): Promise<void> {
		if (this.reconnecting) await this.reconnecting.catch(() => undefined);
		// The last reconnect failed (the bridge went away or refused it): try again before this call
		// rather than send it without a session, which the bridge would refuse every time.
		if (this.sessionless && this.initialize && !isInitializeRequest(message)) await this.reopen();
		try {
			await this.remote.send(message);
		} catch (error) {
			if (!(error instanceof StreamableHTTPError && error.code === 404) || !this.initialize || isInitializeRequest(message)) throw error;
			await this.reopen();
			await this.remote.send(message);
		}
	}

	/** One reconnect at a time, shared by the calls that found the session gone. */
	private reopen(): Promise<void> {
		this.reconnecting ??= this.reconnect()
			.then(
				() => {
					this.sessionless = false;
				},
				(error: unknown) => {
					this.sessionless = true;
					throw error;
				},
			)
			.finally(() => {
				this.reconnecting = null;
			});
		return this.reconnecting;
	}

	async close(): Promise<void> {
		// Closing aborts the transport's open requests; their "aborted" errors are the close, not news.
		this.closing = true;
		await this.remote.terminateSession().catch(() => undefined);
		await this.remote.close().catch(() => undefined);
	}

	private connect(): StreamableHTTPClientTransport {
		const transport = new StreamableHTTPClientTransport(this.url, { requestInit: { headers: { Authorization: `Bearer ${this.token}` } } });
		transport.onmessage = (message: JSONRPCMessage) => {
			if ("id" in message && message.id !== undefined && this.internal.has(message.id)) {
				this.internal.get(message.id)?.(message);
				this.internal.delete(message.id);
				return;
			}
			if ("id" in message && "result" in message && this.initializeIds.delete(message.id)) {
				const version = protocolVersionOf(message);
				if (version !== undefined) transport.setProtocolVersion(version);
			}
			this.toClient(message);
		};
		transport.onerror = (error) => {
			if (!this.closing) this.log(`engrama mcp-proxy: ${oneLine(error.message)}`);
		};
		return transport;
	}

	/**
	 * The bridge restarted (Obsidian reopened, serve restarted): its sessions are gone. Open a new
	 * one by replaying the client's initialize, so the client never notices.
	 */
	private async reconnect(): Promise<void> {
		if (!this.initialize) throw new Error("the bridge lost the session before it was initialized");
		const old = this.remote;
		this.remote = this.connect();
		void old.close().catch(() => undefined);
		await this.remote.start();
		const id = `engrama-proxy-reconnect-${++this.reconnects}`;
		let timer: TimerHandle | undefined;
		const answered = new Promise<JSONRPCMessage>((resolve, reject) => {
			this.internal.set(id, resolve);
			timer = hostSetTimeout(() => reject(new Error("the bridge did not answer the new initialize")), 15_000, { unref: true });
		});
		let answer: JSONRPCMessage;
		try {
			await this.remote.send({ ...this.initialize, id });
			answer = await answered;
		} finally {
			// When the send failed, nothing awaits `answered` any more: its timer going off later
			// would be an unhandled rejection, which ends the process.
			hostClearTimeout(timer);
			this.internal.delete(id);
		}
		if (!("result" in answer)) throw new Error("the bridge refused the new initialize");
		const version = protocolVersionOf(answer);
		if (version !== undefined) this.remote.setProtocolVersion(version);
		await this.remote.send({ jsonrpc: "2.0", method: "notifications/initialized" });
		this.log("engrama mcp-proxy: the bridge restarted; reconnected with a new session");
	}
}

/**
 * Bridges a stdio-only MCP client to a running HTTP bridge (the live plugin, or engrama serve):
 * every message is forwarded as is, with the bearer token added. When the bridge restarted, the
 * proxy opens a new session by itself; when it cannot be reached, each request gets a JSON-RPC
 * error that says so, instead of hanging.
 */
export async function runMcpStdioProxy(options: StdioProxyOptions): Promise<StdioHandle> {
	const url = proxyUrl(options.url);
	const log = options.log ?? (() => undefined);
	const streams = options.streams ?? { stdin: process.stdin, stdout: process.stdout };
	const local = new CheckedStdioTransport(streams.stdin, streams.stdout, (line) => log(`engrama mcp-proxy: stdio: ${line}`));
	const bridge = new BridgeSession(url, options.token, (message) => void local.send(message), log);
	let finish: () => void = () => undefined;
	const done = new Promise<void>((resolve) => {
		finish = resolve;
	});

	local.onmessage = (message: JSONRPCMessage) => {
		if (isInitializeRequest(message) && isJSONRPCRequest(message)) bridge.noteInitialize(message);
		bridge.forward(message).catch((error: unknown) => {
			log(`engrama mcp-proxy: ${oneLine(errorMessage(error))}`);
			if (isJSONRPCRequest(message)) {
				void local.send({ jsonrpc: "2.0", id: message.id, error: failureAnswer(url, error) });
			}
		});
	};
	local.onerror = (error) => log(`engrama mcp-proxy: stdio: ${oneLine(error.message)}`);

	const close = async () => {
		await bridge.close();
		await local.close().catch(() => undefined);
		finish();
	};
	await bridge.start();
	await local.start();
	const onEnd = () => void close();
	streams.stdin.once("end", onEnd);
	streams.stdin.once("close", onEnd);
	return { done, close };
}
