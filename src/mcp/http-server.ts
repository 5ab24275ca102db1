// The bridge is desktop-only: Node's http in Electron (plugin) or in the command line. No express.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { randomUUID } from "node:crypto";
import type { Socket } from "node:net";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { ValidationError, errorMessage } from "../engine/errors";
import { createEngramaMcpServer, createToolEnv, toolArgumentsOf } from "./create-mcp-server";
import { checkRequest } from "./http-guard";
import { guardToolCalls } from "./request-guard";
import { foreignTenantRefusal, scopeFromHeaders } from "./scope-headers";
import type { McpServerInput } from "./mcp-services";
import { hostClearInterval, hostSetInterval } from "../backends/host-timers";

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

interface Session {
	readonly transport: StreamableHTTPServerTransport;
	readonly server: McpServer;
	lastSeen: number;
	busy: number;
}

const LOOPBACK_BIND = new Set(["127.0.0.1", "::1", "localhost"]);

class HttpFailure extends Error {
	constructor(
		readonly status: number,
		message: string,
		readonly rpcCode = -32000,
	) {
		super(message);
	}
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
	if (res.headersSent) {
		res.end();
		return;
	}
	res.writeHead(status, { "content-type": "application/json", ...headers });
	res.end(JSON.stringify(body));
}

function rpcError(code: number, message: string): unknown {
	return { jsonrpc: "2.0", error: { code, message }, id: null };
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
	const maxSessions = options.maxSessions ?? 64;
	const idleMs = options.sessionIdleMs ?? 30 * 60_000;
	const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
	const log = options.services.log ?? (() => undefined);
	const env = createToolEnv(options);
	const sessions = new Map<string, Session>();
	let closing = false;

	const dropSession = (id: string): void => {
		const session = sessions.get(id);
		if (!session) return;
		sessions.delete(id);
		void session.server.close().catch((error: unknown) => log(`engrama mcp: closing session ${id}: ${errorMessage(error)}`));
	};

	const evictIdle = (now: number): void => {
		for (const [id, s] of sessions) if (s.busy === 0 && now - s.lastSeen > idleMs) dropSession(id);
	};

	const newSession = async (): Promise<Session> => {
		evictIdle(Date.now());
		if (sessions.size >= maxSessions) {
			const oldest = [...sessions.entries()].filter(([, s]) => s.busy === 0).sort((a, b) => a[1].lastSeen - b[1].lastSeen)[0];
			if (!oldest) throw new HttpFailure(503, `Too many MCP sessions (${maxSessions}) are busy; retry shortly.`);
			dropSession(oldest[0]);
		}
		const server = createEngramaMcpServer(env);
		let session: Session | undefined = undefined;
		const transport = new StreamableHTTPServerTransport({
			sessionIdGenerator: () => randomUUID(),
			enableJsonResponse: true,
			onsessioninitialized: (id) => {
				if (session) sessions.set(id, session);
			},
			onsessionclosed: (id) => dropSession(id),
		});
		session = { transport, server, lastSeen: Date.now(), busy: 0 };
		transport.onerror = (error) => log(`engrama mcp: transport: ${errorMessage(error)}`);
		await server.connect(transport);
		guardToolCalls(transport, log, toolArgumentsOf(server));
		return session;
	};

	const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
		const url = new URL(req.url ?? "/", "http://127.0.0.1");
		if (url.pathname !== MCP_PATH) {
			sendJson(res, 404, rpcError(-32000, `Not found: the MCP endpoint is ${MCP_PATH}.`));
			return;
		}
		const refused = checkRequest(req.headers, options.token, options.allowedOrigins);
		if (refused) {
			sendJson(res, refused.status, rpcError(-32001, refused.message), refused.status === 401 ? { "www-authenticate": 'Bearer realm="engrama"' } : {});
			return;
		}
		if (options.requireIdentity && scopeFromHeaders(req.headers, options.services.identity).standalone) {
			sendJson(res, 403, rpcError(-32001, "Refused: ENGRAMA_REQUIRE_IDENTITY is set, so every request must send X-Engrama-Org-Id and X-Engrama-User-Id."));
			return;
		}
		if (!options.allowTenantHeaders) {
			const foreign = foreignTenantRefusal(req.headers, options.services.identity);
			if (foreign) {
				sendJson(res, 403, rpcError(-32001, foreign));
				return;
			}
		}
		if (closing) throw new HttpFailure(503, "The MCP bridge is shutting down.");
		const sessionId = header(req, "mcp-session-id");
		const method = req.method ?? "GET";
		if (method === "POST") {
			const text = await readBody(req, maxBody);
			let body: unknown;
			try {
				body = JSON.parse(text);
			} catch (error) {
				throw new HttpFailure(400, `Parse error: the body is not JSON (${errorMessage(error)}).`, -32700);
			}
			if (sessionId) return serveIn(sessionId, req, res, body);
			const initialize = Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body);
			if (!initialize) throw new HttpFailure(400, "Bad request: no Mcp-Session-Id header. Start with an initialize request.");
			const session = await newSession();
			return run(session, () => session.transport.handleRequest(req, res, body));
		}
		if (method === "GET" || method === "DELETE") {
			if (!sessionId) throw new HttpFailure(400, "Bad request: Mcp-Session-Id header required.");
			return serveIn(sessionId, req, res, undefined);
		}
		sendJson(res, 405, rpcError(-32000, `Method ${method} not allowed: use POST, GET or DELETE.`), { allow: "GET, POST, DELETE" });
	};

	const serveIn = (id: string, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> => {
		const session = sessions.get(id);
		if (!session) throw new HttpFailure(404, "Session not found (it expired or the bridge restarted): initialize a new session.", -32001);
		return run(session, () => session.transport.handleRequest(req, res, body));
	};

	const run = async (session: Session, job: () => Promise<void>): Promise<void> => {
		session.busy++;
		session.lastSeen = Date.now();
		try {
			await job();
		} finally {
			session.busy--;
			session.lastSeen = Date.now();
		}
	};

	const http: Server = createServer((req, res) => {
		handle(req, res).catch((error: unknown) => {
			if (error instanceof HttpFailure) {
				sendJson(res, error.status, rpcError(error.rpcCode, error.message));
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

	await new Promise<void>((resolve, reject) => {
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
	const address = http.address();
	const boundPort = typeof address === "object" && address ? address.port : port;
	const urlHost = host === "::1" ? "[::1]" : host;
	const sweep = hostSetInterval(() => evictIdle(Date.now()), Math.min(idleMs, 60_000), { unref: true });

	return {
		url: `http://${urlHost}:${boundPort}${MCP_PATH}`,
		port: boundPort,
		sessionCount: () => sessions.size,
		async close() {
			if (closing) return;
			closing = true;
			hostClearInterval(sweep);
			for (const id of [...sessions.keys()]) dropSession(id);
			await new Promise<void>((resolve) => {
				http.close(() => resolve());
				http.closeAllConnections();
			});
		},
	};
}
