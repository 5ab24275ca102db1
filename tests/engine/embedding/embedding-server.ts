import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { HashEmbeddingProvider } from "../../../src/engine/embedding/hash-embedding-provider";

/** What the next requests get; tests flip it between calls. */
export interface ServerBehaviour {
	/** Answer with this status and error body instead of vectors. */
	status?: number;
	/** Wait this long before answering (to trigger client timeouts). */
	delayMs?: number;
	/** Vectors of this size instead of the server's own (a wrong-dimension server). */
	dimensions?: number;
	/** Answer data[] in reverse order (indexes still right). */
	shuffle?: boolean;
	/** Fail this many requests with 503 first, then answer. */
	failFirst?: number;
}

export interface SeenRequest {
	readonly path: string;
	readonly headers: IncomingMessage["headers"];
	readonly body: Record<string, unknown>;
}

/**
 * A real OpenAI-compatible (/v1/embeddings) and Ollama-native (/api/embeddings) server on
 * 127.0.0.1 and a random port. Vectors come from the hash embedder, so they mean something.
 */
export class EmbeddingServer {
	readonly requests: SeenRequest[] = [];
	behaviour: ServerBehaviour = {};
	private server: Server | undefined;
	private port = 0;

	constructor(private readonly dimensions = 64) {}

	get baseUrl(): string {
		return `http://127.0.0.1:${this.port}`;
	}

	async start(): Promise<this> {
		this.server = createServer((req, res) => void this.handle(req, res));
		await new Promise<void>((resolve) => this.server?.listen(0, "127.0.0.1", resolve));
		this.port = (this.server.address() as AddressInfo).port;
		return this;
	}

	async stop(): Promise<void> {
		const server = this.server;
		this.server = undefined;
		if (!server) return;
		server.closeAllConnections();
		await new Promise<void>((resolve) => server.close(() => resolve()));
	}

	private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		let raw = "";
		for await (const chunk of req) raw += String(chunk);
		const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
		this.requests.push({ path: req.url ?? "", headers: req.headers, body });
		const b = this.behaviour;
		if (b.delayMs) await new Promise((r) => setTimeout(r, b.delayMs));
		if (res.destroyed) return;
		if (b.failFirst && b.failFirst > 0) {
			b.failFirst--;
			return this.send(res, 503, { error: { message: "overloaded, try later" } });
		}
		if (b.status) return this.send(res, b.status, { error: { message: `simulated ${b.status}` } });
		const embedder = new HashEmbeddingProvider(b.dimensions ?? this.dimensions);
		if (req.url === "/v1/embeddings") {
			const input = Array.isArray(body.input) ? (body.input as string[]) : [String(body.input)];
			const data = input.map((text, index) => ({ object: "embedding", index, embedding: Array.from(embedder.embedSync(text)) }));
			return this.send(res, 200, { object: "list", model: body.model, data: b.shuffle ? data.reverse() : data });
		}
		if (req.url === "/api/embeddings") {
			if (body.model === "missing-model") return this.send(res, 404, { error: `model "missing-model" not found, try pulling it first` });
			return this.send(res, 200, { embedding: Array.from(embedder.embedSync(String(body.prompt))) });
		}
		return this.send(res, 404, { error: "not found" });
	}

	private send(res: ServerResponse, status: number, json: unknown): void {
		res.writeHead(status, { "Content-Type": "application/json" });
		res.end(JSON.stringify(json));
	}
}

/** A port on which nothing listens. */
export { freePort as closedPort } from "../../helpers/free-port";
