import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, type JSONRPCMessage, type JSONRPCRequest, type MessageExtraInfo, type RequestId } from "@modelcontextprotocol/sdk/types.js";

/*
 * Messages here are already JSON-RPC: the POST's were checked against the SDK's schemas
 * (jsonrpc-check.ts), whose request and notification shapes are strict, and the SDK builds its
 * own. So the members tell them apart, without parsing each message against the schemas again.
 */
const isRequest = (message: JSONRPCMessage): message is JSONRPCRequest => "method" in message && "id" in message;
const isAnswer = (message: JSONRPCMessage): message is JSONRPCMessage & { id: RequestId } => !("method" in message) && "id" in message;

/**
 * One session's MCP transport over HTTP POSTs answered with plain JSON (no SSE stream). It holds a
 * request only until its answer is sent: the SDK's Streamable HTTP transport in JSON mode kept
 * every POST's body reachable from its stream table for the session's life (3.5 MB requests grew
 * `engrama serve` by ~4 MB each until the heap ran out). Keeps the SDK's protocol and server.
 */
export class JsonHttpTransport implements Transport {
	onclose?: () => void;
	onerror?: (error: Error) => void;
	onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
	private readonly pending = new Map<RequestId, (answer: JSONRPCMessage) => void>();
	private closed = false;

	constructor(readonly sessionId: string) {}

	async start(): Promise<void> {}

	/** Answers go to the POST that asked; a notification or request of the server has no stream here and is dropped. */
	async send(message: JSONRPCMessage): Promise<void> {
		if (!isAnswer(message) || message.id === undefined) return;
		const answer = this.pending.get(message.id);
		if (!answer) return;
		this.pending.delete(message.id);
		answer(message);
	}

	async close(): Promise<void> {
		if (this.closed) return;
		this.closed = true;
		for (const [id, answer] of this.pending) answer(refusal(id, "The session was closed before this request was answered."));
		this.pending.clear();
		this.onclose?.();
	}

	/**
	 * The messages of one POST, delivered in order; resolves with the answers to its requests in the
	 * same order (none when it held only notifications or responses).
	 */
	deliver(messages: readonly JSONRPCMessage[], extra: MessageExtraInfo): Promise<JSONRPCMessage[]> {
		const answers: Promise<JSONRPCMessage>[] = [];
		const delivered: JSONRPCMessage[] = [];
		for (const message of messages) {
			if (!isRequest(message)) {
				delivered.push(message);
				continue;
			}
			if (this.closed) answers.push(Promise.resolve(refusal(message.id, "The session is closed.")));
			else if (this.pending.has(message.id)) {
				answers.push(Promise.resolve(refusal(message.id, `Another request of this session with the id ${JSON.stringify(message.id)} is still running; use a new id.`)));
			} else {
				answers.push(new Promise((resolve) => this.pending.set(message.id, resolve)));
				delivered.push(message);
			}
		}
		for (const message of delivered) this.onmessage?.(message, extra);
		return Promise.all(answers);
	}
}

function refusal(id: RequestId, message: string): JSONRPCMessage {
	return { jsonrpc: "2.0", id, error: { code: ErrorCode.InvalidRequest, message } };
}
