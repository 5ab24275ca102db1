import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { errorMessage } from "../engine/errors";
import { createEngramaMcpServer, toolArgumentsOf } from "./create-mcp-server";
import { guardToolCalls } from "./request-guard";
import type { ToolEnv } from "./tool-kit";

/** A refusal the bridge answers with this HTTP status and JSON-RPC error code. */
export class HttpFailure extends Error {
	constructor(
		readonly status: number,
		message: string,
		readonly rpcCode = -32000,
		/** The request's id, when the refusal answers one message whose id could be read. */
		readonly rpcId: string | number | null = null,
	) {
		super(message);
	}
}

interface Session {
	readonly transport: StreamableHTTPServerTransport;
	readonly server: McpServer;
	lastSeen: number;
	busy: number;
}

/**
 * The bridge's MCP sessions, one per client: at most `maxSessions` (the least recently used idle
 * one makes room), closed after `idleMs` unused; a busy session is never dropped.
 */
export class McpSessionPool {
	private readonly sessions = new Map<string, Session>();

	constructor(
		private readonly env: ToolEnv,
		private readonly maxSessions: number,
		readonly idleMs: number,
		private readonly log: (line: string) => void,
	) {}

	get size(): number {
		return this.sessions.size;
	}

	drop(id: string): void {
		const session = this.sessions.get(id);
		if (!session) return;
		this.sessions.delete(id);
		void session.server.close().catch((error: unknown) => this.log(`engrama mcp: closing session ${id}: ${errorMessage(error)}`));
	}

	dropAll(): void {
		for (const id of [...this.sessions.keys()]) this.drop(id);
	}

	evictIdle(now: number): void {
		for (const [id, s] of this.sessions) if (s.busy === 0 && now - s.lastSeen > this.idleMs) this.drop(id);
	}

	/** A new session answers the initialize request in `body`; it joins the pool once the SDK names it. */
	async initialize(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
		const session = await this.create();
		return this.run(session, () => session.transport.handleRequest(req, res, body));
	}

	/** A request of an existing session; 404 when it expired or the bridge restarted. */
	serve(id: string, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
		const session = this.sessions.get(id);
		if (!session) throw new HttpFailure(404, "Session not found (it expired or the bridge restarted): initialize a new session.", -32001);
		return this.run(session, () => session.transport.handleRequest(req, res, body));
	}

	private async create(): Promise<Session> {
		this.evictIdle(Date.now());
		if (this.sessions.size >= this.maxSessions) {
			const oldest = [...this.sessions.entries()].filter(([, s]) => s.busy === 0).sort((a, b) => a[1].lastSeen - b[1].lastSeen)[0];
			if (!oldest) throw new HttpFailure(503, `Too many MCP sessions (${this.maxSessions}) are busy; retry shortly.`);
			this.drop(oldest[0]);
		}
		const server = createEngramaMcpServer(this.env);
		let session: Session | undefined = undefined;
		const transport = new StreamableHTTPServerTransport({
			sessionIdGenerator: () => randomUUID(),
			enableJsonResponse: true,
			onsessioninitialized: (id) => {
				if (session) this.sessions.set(id, session);
			},
			onsessionclosed: (id) => this.drop(id),
		});
		session = { transport, server, lastSeen: Date.now(), busy: 0 };
		transport.onerror = (error) => this.log(`engrama mcp: transport: ${errorMessage(error)}`);
		await server.connect(transport);
		guardToolCalls(transport, this.log, toolArgumentsOf(server));
		return session;
	}

	private async run(session: Session, job: () => Promise<void>): Promise<void> {
		session.busy++;
		session.lastSeen = Date.now();
		try {
			await job();
		} finally {
			session.busy--;
			session.lastSeen = Date.now();
		}
	}
}
