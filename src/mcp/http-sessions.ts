import type { IncomingHttpHeaders } from "node:http";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { InitializeRequest, JSONRPCMessage, JSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";
import { errorMessage } from "../engine/errors";
import { createEngramaMcpServer, toolArgumentsOf } from "./create-mcp-server";
import { JsonHttpTransport } from "./json-http-transport";
import { guardToolCalls } from "./request-guard";
import type { SessionIds, SessionSeed } from "./session-ids";
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
	readonly transport: JsonHttpTransport;
	readonly server: McpServer;
	lastSeen: number;
	busy: number;
}

/** Ids ended by the client (DELETE) are remembered this many, so they are not taken back. */
const ENDED_KEPT = 1024;

/**
 * The bridge's MCP sessions, one per client: at most `maxSessions` (the least recently used idle
 * one makes room), closed after `idleMs` unused; a busy session is never dropped. A dropped
 * session, or one from before a restart, is rebuilt from its signed id on its next request.
 */
export class McpSessionPool {
	private readonly sessions = new Map<string, Session>();
	private readonly ended = new Set<string>();

	constructor(
		private readonly env: ToolEnv,
		private readonly ids: SessionIds,
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

	/** A new session answers `request`; its id is in the result. */
	async initialize(request: InitializeRequest & JSONRPCRequest, headers: IncomingHttpHeaders): Promise<{ sessionId: string; answers: JSONRPCMessage[] }> {
		const { protocolVersion, clientInfo } = request.params;
		const sessionId = this.ids.mint({ protocolVersion, clientName: clientInfo.name.slice(0, 100), clientVersion: clientInfo.version.slice(0, 100) });
		const session = await this.create(sessionId);
		return { sessionId, answers: await this.run(session, () => session.transport.deliver([request], { requestInfo: { headers } })) };
	}

	/** The messages of one POST to session `id`, answered; 404 when the id is not one this bridge's token signed. */
	async handle(id: string, messages: readonly JSONRPCMessage[], headers: IncomingHttpHeaders): Promise<JSONRPCMessage[]> {
		const session = this.sessions.get(id) ?? (await this.adopt(id));
		return this.run(session, () => session.transport.deliver(messages, { requestInfo: { headers } }));
	}

	/** DELETE: the client ends its session; its id is not taken back afterwards. */
	end(id: string): void {
		if (!this.sessions.has(id) && !this.ids.read(id)) throw notFound();
		this.drop(id);
		this.ended.add(id);
		if (this.ended.size > ENDED_KEPT) this.ended.delete(this.ended.values().next().value as string);
	}

	/** A session this bridge (or its previous run) signed, rebuilt by replaying its initialize. */
	private async adopt(id: string): Promise<Session> {
		const seed = this.ended.has(id) ? undefined : this.ids.read(id);
		if (!seed) throw notFound();
		const session = await this.create(id);
		await session.transport.deliver([replayedInitialize(seed), { jsonrpc: "2.0", method: "notifications/initialized" }], {});
		return session;
	}

	private async create(id: string): Promise<Session> {
		this.evictIdle(Date.now());
		if (this.sessions.size >= this.maxSessions) {
			const oldest = [...this.sessions.entries()].filter(([, s]) => s.busy === 0).sort((a, b) => a[1].lastSeen - b[1].lastSeen)[0];
			if (!oldest) throw new HttpFailure(503, `Too many MCP sessions (${this.maxSessions}) are busy; retry shortly.`);
			this.drop(oldest[0]);
		}
		const server = createEngramaMcpServer(this.env);
		const transport = new JsonHttpTransport(id);
		transport.onerror = (error) => this.log(`engrama mcp: transport: ${errorMessage(error)}`);
		await server.connect(transport);
		guardToolCalls(transport, this.log, toolArgumentsOf(server));
		const session: Session = { transport, server, lastSeen: Date.now(), busy: 0 };
		this.sessions.set(id, session);
		return session;
	}

	private async run<T>(session: Session, job: () => Promise<T>): Promise<T> {
		session.busy++;
		session.lastSeen = Date.now();
		try {
			return await job();
		} finally {
			session.busy--;
			session.lastSeen = Date.now();
		}
	}
}

function notFound(): HttpFailure {
	return new HttpFailure(404, "Session not found (it was ended, or the bridge's token changed): initialize a new session.", -32001);
}

function replayedInitialize(seed: SessionSeed): JSONRPCMessage {
	return {
		jsonrpc: "2.0",
		id: "engrama-session-replay",
		method: "initialize",
		params: { protocolVersion: seed.protocolVersion, capabilities: {}, clientInfo: { name: seed.clientName, version: seed.clientVersion } },
	};
}
