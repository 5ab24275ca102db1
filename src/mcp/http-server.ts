// The bridge is desktop-only: Node's http in Electron (plugin) or in the command line. No express.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { SUPPORTED_PROTOCOL_VERSIONS, isInitializeRequest, type InitializeRequest, type JSONRPCMessage, type JSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";
import { ValidationError, errorMessage } from "../engine/errors";
import { createToolEnv } from "./create-mcp-server";
import { checkRequest } from "./http-guard";
import { readRpcBody } from "./jsonrpc-check";
import { HttpFailure, McpSessionPool } from "./http-sessions";
import { SessionIds } from "./session-ids";
import { foreignTenantRefusal, scopeFromHeaders } from "./scope-headers";
import type { McpServerInput } from "./mcp-services";
import { hostClearInterval, hostSetInterval } from "../platform/host-timers";

export const DEFAULT_MCP_PORT = 27182;
export const MCP_PATH = "/mcp";

export interface McpHttpOptions extends McpServerInput {
	/** Loopback only: 127.0.0.1 (default), ::1 or localhost. Anything else is refused. */
	readonly host?: string;
	/** Default 27182; 0 picks a free port (tests). */
	readonly port?: number;
	/** The bearer token clients must send. */
	readonly token: string;
	/** Concurrent client sessions kept (the least recently used idle one is dropped beyond it). */
	readonly maxSessions?: number;
	/** A session unused for this long is closed. */
	readonly sessionIdleMs?: number;
	/** Largest request body accepted. */
	readonly maxBodyBytes?: number;
	/**
	 * Gateway mode: honour X-Engrama-Org-Id / X-Engrama-User-Id naming any tenant. Off by default:
	 * the bridge serves its own identity and answers 403 to headers naming another.
	 */
	readonly allowTenantHeaders?: boolean;
	/** Web origins accepted besides loopback (ENGRAMA_ALLOWED_ORIGINS). */
	readonly allowedOrigins?: readonly string[];
	/** Refuse requests that carry no X-Engrama-Org-Id / X-Engrama-User-Id (ENGRAMA_REQUIRE_IDENTITY): no silent fallback to the standalone identity. */
	readonly requireIdentity?: boolean;
}

export interface McpHttpHandle {
	readonly url: string;
	readonly port: number;
	/** Open client sessions right now. */
	sessionCount(): number;
	close(): Promise<void>;
}

const LOOPBACK_BIND = new Set(["127.0.0.1", "::1", "localhost"]);

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
	if (res.headersSent) {
		res.end();
		return;
	}
	const text = JSON.stringify(body);
	// With its length the answer goes out as headers plus body, without chunked framing around it.
	res.writeHead(status, { "content-type": "application/json", "content-length": String(Buffer.byteLength(text)), ...headers });
	res.end(text);
}

function rpcError(code: number, message: string, id: string | number | null = null): unknown {
	return { jsonrpc: "2.0", error: { code, message }, id };
}

/** An over-limit body is read and dropped up to this much before the 413, so the client gets it. */
const DRAIN_LIMIT = 64 * 1024 * 1024;

function readBody(req: IncomingMessage, max: number): Promise<string> {
	return new Promise((resolve, reject) => {
		// Answered once the rest is read and dropped: a socket closed with unread data is reset, and
		// the client would lose the 413 (EPIPE / ECONNRESET instead of the message). Beyond
		// DRAIN_LIMIT it is answered at once, whatever becomes of the upload.
		const refuse = (message: string) => {
			let dropped = 0;
			let answered = false;
			const answer = () => {
				if (answered) return;
				answered = true;
				reject(new HttpFailure(413, message));
			};
			req.on("data", (chunk: Buffer) => {
				dropped += chunk.length;
				if (dropped > DRAIN_LIMIT) answer();
			});
			req.on("end", answer);
			req.on("close", answer);
			req.resume();
		};
		const declared = Number(req.headers["content-length"]);
		if (Number.isFinite(declared) && declared > max) {
			if (declared > DRAIN_LIMIT) reject(new HttpFailure(413, `Request body of ${declared} bytes is over the ${max}-byte limit.`));
			else refuse(`Request body of ${declared} bytes is over the ${max}-byte limit.`);
			return;
		}
		const chunks: Buffer[] = [];
		let size = 0;
		const onData = (chunk: Buffer) => {
			size += chunk.length;
			if (size > max) {
				req.off("data", onData);
				chunks.length = 0;
				refuse(`Request body is over the ${max}-byte limit.`);
				return;
			}
			chunks.push(chunk);
		};
		req.on("data", onData);
		req.on("end", () => {
			if (size <= max) resolve(Buffer.concat(chunks).toString("utf8"));
		});
		req.on("error", reject);
	});
}

function header(req: IncomingMessage, name: string): string | undefined {
	const value = req.headers[name];
	return Array.isArray(value) ? value[0] : value;
}

/** Why a request is refused before it reaches a session (status, message, extra headers), or undefined. */
function refusalOf(req: IncomingMessage, options: McpHttpOptions): { status: number; message: string; headers?: Record<string, string> } | undefined {
	const refused = checkRequest(req.headers, options.token, options.allowedOrigins);
	if (refused) return { ...refused, headers: refused.status === 401 ? { "www-authenticate": 'Bearer realm="engrama"' } : {} };
	if (options.requireIdentity && scopeFromHeaders(req.headers, options.services.identity).standalone) {
		return { status: 403, message: "Refused: ENGRAMA_REQUIRE_IDENTITY is set, so every request must send X-Engrama-Org-Id and X-Engrama-User-Id." };
	}
	if (!options.allowTenantHeaders) {
		const foreign = foreignTenantRefusal(req.headers, options.services.identity);
		if (foreign) return { status: 403, message: foreign };
	}
	return undefined;
}

interface Bridge {
	readonly options: McpHttpOptions;
	readonly sessions: McpSessionPool;
	readonly maxBody: number;
	readonly closing: () => boolean;
}

/** The body of a POST as JSON-RPC messages (one, or a batch), or the refusal that says why not. */
async function readMessages(req: IncomingMessage, maxBody: number): Promise<{ messages: JSONRPCMessage[]; batch: boolean }> {
	const type = header(req, "content-type") ?? "";
	if (!type.toLowerCase().includes("application/json")) throw new HttpFailure(415, "Unsupported Media Type: send the body as Content-Type: application/json.");
	const text = await readBody(req, maxBody);
	let body: unknown;
	try {
		body = JSON.parse(text);
	} catch (error) {
		throw new HttpFailure(400, `Parse error: the body is not JSON (${errorMessage(error)}).`, -32700);
	}
	// The same -32600 and sentence as `mcp --stdio` and `mcp-proxy` (src/mcp/jsonrpc-check.ts).
	const read = readRpcBody(body);
	if ("refusal" in read) throw new HttpFailure(400, read.refusal.message, read.refusal.code, read.refusal.id);
	return "single" in read ? { messages: [read.single], batch: false } : { messages: [...read.batch], batch: true };
}

/** The answers of one POST: none (202), one object, or the batch's array. */
function sendAnswers(res: ServerResponse, answers: readonly JSONRPCMessage[], batch: boolean, sessionId: string): void {
	if (answers.length === 0) {
		res.writeHead(202, { "mcp-session-id": sessionId });
		res.end();
		return;
	}
	sendJson(res, 200, batch ? answers : answers[0], { "mcp-session-id": sessionId });
}

/** A POST: an initialize opens a session; anything else goes to the session its header names. */
async function handlePost(bridge: Bridge, req: IncomingMessage, res: ServerResponse, sessionId: string | undefined): Promise<void> {
	const { messages, batch } = await readMessages(req, bridge.maxBody);
	const first = messages[0];
	// The method first: the schema check is for initialize only, not every call of a session.
	if (!batch && "method" in first && first.method === "initialize" && isInitializeRequest(first)) {
		const opened = await bridge.sessions.initialize(first as InitializeRequest & JSONRPCRequest, req.headers);
		sendAnswers(res, opened.answers, false, opened.sessionId);
		return;
	}
	if (!sessionId) throw new HttpFailure(400, "Bad request: no Mcp-Session-Id header. Start with an initialize request.");
	const version = header(req, "mcp-protocol-version");
	if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
		throw new HttpFailure(400, `Bad request: MCP protocol version "${version.slice(0, 40)}" is not supported (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")}).`);
	}
	sendAnswers(res, await bridge.sessions.handle(sessionId, messages, req.headers), batch, sessionId);
}

/** One HTTP request: checks, then a POST (initialize or a session's messages) or a DELETE that ends a session. */
async function handleRequest(bridge: Bridge, req: IncomingMessage, res: ServerResponse): Promise<void> {
	const url = new URL(req.url ?? "/", "http://127.0.0.1");
	if (url.pathname !== MCP_PATH) {
		sendJson(res, 404, rpcError(-32000, `Not found: the MCP endpoint is ${MCP_PATH}.`));
		return;
	}
	const refused = refusalOf(req, bridge.options);
	if (refused) {
		sendJson(res, refused.status, rpcError(-32001, refused.message), refused.headers);
		return;
	}
	if (bridge.closing()) throw new HttpFailure(503, "The MCP bridge is shutting down.");
	const sessionId = header(req, "mcp-session-id");
	const method = req.method ?? "GET";
	if (method === "POST") return handlePost(bridge, req, res, sessionId);
	if (method === "DELETE") {
		if (!sessionId) throw new HttpFailure(400, "Bad request: Mcp-Session-Id header required.");
		bridge.sessions.end(sessionId);
		res.writeHead(200).end();
		return;
	}
	// Answers come back on their POST; the bridge sends nothing unasked, so it offers no SSE stream at GET.
	const allowed = method === "GET" ? "POST and DELETE (this bridge offers no event stream at GET)" : "POST or DELETE";
	sendJson(res, 405, rpcError(-32000, `Method ${method} not allowed: use ${allowed}.`), { allow: "POST, DELETE" });
}

function createHttpServer(bridge: Bridge, log: (line: string) => void): Server {
	const http: Server = createServer((req, res) => {
		handleRequest(bridge, req, res).catch((error: unknown) => {
			if (error instanceof HttpFailure) {
				sendJson(res, error.status, rpcError(error.rpcCode, error.message, error.rpcId));
				return;
			}
			log(`engrama mcp: request failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
			sendJson(res, 500, rpcError(-32603, `Internal error: ${errorMessage(error)}`));
		});
	});
	// Small JSON answers must not wait for delayed ACKs (Nagle): ~40 ms per call otherwise.
	http.on("connection", (socket: Socket) => socket.setNoDelay(true));
	http.on("clientError", (_error, socket) => {
		if (socket.writable) socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n");
		else socket.destroy();
	});
	return http;
}

/** Listens, or fails with a clear error when the port is taken. */
function listen(http: Server, port: number, host: string): Promise<void> {
	return new Promise<void>((resolve, reject) => {
		const onError = (error: NodeJS.ErrnoException) => {
			http.off("listening", onListening);
			reject(
				error.code === "EADDRINUSE"
					? new ValidationError(`Port ${port} on ${host} is already in use (another Engrama bridge?). Choose another port.`)
					: error,
			);
		};
		const onListening = () => {
			http.off("error", onError);
			resolve();
		};
		http.once("error", onError);
		http.once("listening", onListening);
		http.listen(port, host);
	});
}

/**
 * The Streamable HTTP bridge on 127.0.0.1 (never another interface), path /mcp, bearer token,
 * Host/Origin checks, one MCP session per client (many at once; the engine serialises writes).
 * The plugin starts it inside Obsidian (desktop) and `engrama serve` on the command line.
 */
export async function startMcpHttpServer(options: McpHttpOptions): Promise<McpHttpHandle> {
	const host = options.host ?? "127.0.0.1";
	if (!LOOPBACK_BIND.has(host)) {
		throw new ValidationError(`The MCP bridge only listens on this machine (127.0.0.1, ::1 or localhost), not on "${host}".`);
	}
	if (!options.token || options.token.length < 16) {
		throw new ValidationError("The MCP bridge needs a bearer token of at least 16 characters.");
	}
	const port = options.port ?? DEFAULT_MCP_PORT;
	const log = options.services.log ?? (() => undefined);
	const sessions = new McpSessionPool(createToolEnv(options), new SessionIds(options.token), options.maxSessions ?? 64, options.sessionIdleMs ?? 30 * 60_000, log);
	let closing = false;
	const http = createHttpServer({ options, sessions, maxBody: options.maxBodyBytes ?? 4 * 1024 * 1024, closing: () => closing }, log);
	await listen(http, port, host);
	const address = http.address();
	const boundPort = typeof address === "object" && address ? address.port : port;
	const urlHost = host === "::1" ? "[::1]" : host;
	const sweep = hostSetInterval(() => sessions.evictIdle(Date.now()), Math.min(sessions.idleMs, 60_000), { unref: true });

	return {
		url: `http://${urlHost}:${boundPort}${MCP_PATH}`,
		port: boundPort,
		sessionCount: () => sessions.size,
		async close() {
			if (closing) return;
			closing = true;
			hostClearInterval(sweep);
			sessions.dropAll();
			await new Promise<void>((resolve) => {
				http.close(() => resolve());
				http.closeAllConnections();
			});
		},
	};
}
