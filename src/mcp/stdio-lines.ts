import { Transform, type TransformCallback } from "node:stream";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { ErrorCode, isJSONRPCRequest, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { readRpcBody, rpcErrorBody } from "./jsonrpc-check";

/** The longest line read (the SDK's own stdio limit, which would close the session instead). */
const MAX_LINE_BYTES = 10 * 1024 * 1024;

type Id = string | number;

/**
 * Splits stdin into lines and lets only JSON-RPC messages through, one per line, to the SDK's
 * reader. A line that is not JSON or not a message is answered here (-32700 / -32600) and the
 * session goes on; a batch goes on as its messages, one line each.
 */
class LineFilter extends Transform {
	private pending: Buffer[] = [];
	private pendingBytes = 0;
	private skipping = false;

	/** Answers a line that is not a message. */
	refuse: (code: number, message: string, id: Id | null) => void = () => undefined;
	/** A batch holding these requests goes through, one line per message. */
	batchOpened: (requestIds: readonly Id[]) => void = () => undefined;
	/** The client cancelled this request: the server will not answer it. */
	cancelled: (requestId: Id) => void = () => undefined;

	override _transform(chunk: Buffer | string, _encoding: BufferEncoding, done: TransformCallback): void {
		let data = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
		for (let nl = data.indexOf(0x0a); nl !== -1; nl = data.indexOf(0x0a)) {
			const head = data.subarray(0, nl);
			data = data.subarray(nl + 1);
			if (this.skipping) {
				this.skipping = false;
				this.pending = [];
				this.pendingBytes = 0;
				continue;
			}
			const size = this.pendingBytes + head.length;
			const line = size > MAX_LINE_BYTES ? undefined : Buffer.concat([...this.pending, head]).toString("utf8");
			this.pending = [];
			this.pendingBytes = 0;
			if (line === undefined) this.tooLong();
			else this.line(line);
		}
		if (data.length > 0 && !this.skipping) {
			this.pending.push(data);
			this.pendingBytes += data.length;
			if (this.pendingBytes > MAX_LINE_BYTES) {
				this.pending = [];
				this.pendingBytes = 0;
				this.skipping = true;
				this.tooLong();
			}
		}
		done();
	}

	private tooLong(): void {
		this.refuse(ErrorCode.InvalidRequest, `Invalid Request: a line over the ${MAX_LINE_BYTES}-byte limit was dropped.`, null);
	}

	private line(raw: string): void {
		const text = raw.replace(/\r$/, "");
		if (text.trim() === "") return;
		let value: unknown;
		try {
			value = JSON.parse(text);
		} catch (error) {
			this.refuse(ErrorCode.ParseError, `Parse error: the line is not JSON (${error instanceof Error ? error.message : String(error)}).`, null);
			return;
		}
		const body = readRpcBody(value);
		if ("refusal" in body) {
			this.refuse(body.refusal.code, body.refusal.message, body.refusal.id);
			return;
		}
		if ("single" in body) {
			this.noteCancel(body.single);
			this.push(`${text}\n`);
			return;
		}
		const ids = body.batch.filter(isJSONRPCRequest).map((m) => m.id);
		if (ids.length > 0) this.batchOpened(ids);
		for (const message of body.batch) {
			this.noteCancel(message);
			this.push(`${JSON.stringify(message)}\n`);
		}
	}

	private noteCancel(message: JSONRPCMessage): void {
		if (!("method" in message) || message.method !== "notifications/cancelled" || "id" in message) return;
		const requestId = (message.params as { requestId?: unknown } | undefined)?.requestId;
		if (typeof requestId === "string" || typeof requestId === "number") this.cancelled(requestId);
	}
}

/** A log line kept to one short line: a client's mistake must not flood stderr with a dump. */
export function oneLine(text: string, max = 240): string {
	const flat = text.replace(/\s+/g, " ").trim();
	return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** The answers of one batch, sent together as one JSON array (in the batch's order) once all are in. */
interface OpenBatch {
	/** The requests still owed an answer or answered; a cancelled one leaves (the server never answers it). */
	readonly ids: Id[];
	readonly answers: Map<Id, JSONRPCMessage>;
}

/**
 * The SDK's stdio server transport with the HTTP bridge's rules for bad input: a line that is not
 * JSON is answered with -32700, one that is not a JSON-RPC message with -32600 (id null unless the
 * line had a usable id), each noted as one short line in `log`; a batch runs as its messages and is
 * answered with one array; the session goes on either way. Used by `mcp --stdio` and `mcp-proxy`.
 */
export class CheckedStdioTransport extends StdioServerTransport {
	private readonly filter: LineFilter;
	private readonly batches: OpenBatch[] = [];

	constructor(
		private readonly input: NodeJS.ReadableStream,
		private readonly output: NodeJS.WritableStream,
		log: (line: string) => void,
	) {
		const filter = new LineFilter();
		// A margin over the filter's limit: the SDK's reader only ever sees lines the filter let through.
		super(filter, output as never, { maxBufferSize: MAX_LINE_BYTES + 64 * 1024 });
		this.filter = filter;
		filter.refuse = (code, message, id) => {
			log(`${oneLine(message)} (answered ${code})`);
			output.write(`${JSON.stringify(rpcErrorBody(code, message, id))}\n`);
		};
		filter.batchOpened = (ids) => this.batches.push({ ids: [...ids], answers: new Map() });
		filter.cancelled = (id) => {
			const batch = this.openBatchOf(id);
			if (!batch) return;
			batch.ids.splice(batch.ids.indexOf(id), 1);
			void this.flushIfDone(batch);
		};
		input.on("error", (error: Error) => this.onerror?.(error));
	}

	override async start(): Promise<void> {
		await super.start();
		this.input.pipe(this.filter);
	}

	override async close(): Promise<void> {
		this.input.unpipe(this.filter);
		await super.close();
	}

	override send(message: JSONRPCMessage): Promise<void> {
		const id = "id" in message && !("method" in message) ? message.id : undefined;
		const batch = id === undefined ? undefined : this.openBatchOf(id);
		if (!batch || id === undefined) return super.send(message);
		batch.answers.set(id, message);
		return this.flushIfDone(batch);
	}

	private openBatchOf(id: Id): OpenBatch | undefined {
		return this.batches.find((b) => b.ids.includes(id) && !b.answers.has(id));
	}

	/** Writes the batch's answers as one array once each of its requests is answered (none when all were cancelled). */
	private flushIfDone(batch: OpenBatch): Promise<void> {
		if (batch.answers.size < batch.ids.length) return Promise.resolve();
		this.batches.splice(this.batches.indexOf(batch), 1);
		if (batch.ids.length === 0) return Promise.resolve();
		const line = `${JSON.stringify(batch.ids.map((i) => batch.answers.get(i)))}\n`;
		return new Promise((resolve) => {
			if (this.output.write(line)) resolve();
			else this.output.once("drain", resolve);
		});
	}
}
