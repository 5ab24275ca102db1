import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTempDir } from "../helpers/temp-dir";
import { startBridge, type Bridge } from "./mcp-harness";

const BIN = join(__dirname, "..", "..", "bin", "engrama.mjs");

interface Answer {
	readonly jsonrpc?: string;
	readonly id?: string | number | null;
	readonly result?: { isError?: boolean };
	readonly error?: { code: number; message: string };
}

/** A spawned `engrama` speaking stdio, read line by line as a raw client would (no SDK in between). */
class LineClient {
	readonly lines: unknown[] = [];
	stderr = "";
	private readonly child: ChildProcessWithoutNullStreams;

	constructor(args: readonly string[]) {
		this.child = spawn(process.execPath, [BIN, ...args], { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, ENGRAMA_DB_PATH: "", VAULT_PATH: "" } });
		let rest = "";
		this.child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
			rest += chunk;
			const parts = rest.split("\n");
			rest = parts.pop() ?? "";
			for (const line of parts.filter((l) => l.trim())) {
				try {
					this.lines.push(JSON.parse(line));
				} catch {
					this.lines.push({ notJson: line });
				}
			}
		});
		this.child.stderr.setEncoding("utf8").on("data", (chunk: string) => (this.stderr += chunk));
	}

	/** Writes one line and waits for the first line after it that `match` accepts. */
	async ask<T>(line: string, match: (value: unknown) => value is T): Promise<T> {
		const from = this.lines.length;
		this.child.stdin.write(`${line}\n`);
		const started = Date.now();
		for (;;) {
			const found = this.lines.slice(from).find(match);
			if (found !== undefined) return found;
			if (Date.now() - started > 20_000) throw new Error(`no answer to ${line.slice(0, 80)}; got ${JSON.stringify(this.lines.slice(from))}; stderr: ${this.stderr}`);
			await new Promise((r) => setTimeout(r, 10));
		}
	}

	send(line: string): void {
		this.child.stdin.write(`${line}\n`);
	}

	async stop(): Promise<number | null> {
		const exit = new Promise<number | null>((resolve) => this.child.once("exit", resolve));
		this.child.stdin.end();
		return exit;
	}
}

const isAnswer =
	(id: string | number | null) =>
	(value: unknown): value is Answer =>
		typeof value === "object" && value !== null && !Array.isArray(value) && (value as Answer).id === id;
const isArray = (value: unknown): value is Answer[] => Array.isArray(value);

const INIT = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });
const ping = (id: number | string) => ({ jsonrpc: "2.0", id, method: "ping" });
const status = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "engrama_status", arguments: {} } });

/** The lines a client may send by mistake, and the answer each must get (all with the session going on). */
const BAD_LINES: readonly { line: string; code: number; id: string | number | null; message: RegExp }[] = [
	{ line: "{not json", code: -32700, id: null, message: /^Parse error: the line is not JSON/ },
	{ line: JSON.stringify({ foo: 1 }), code: -32600, id: null, message: /^Invalid Request: "jsonrpc" must be "2.0"/ },
	{ line: JSON.stringify({ jsonrpc: "2.0", id: "b", method: 5 }), code: -32600, id: "b", message: /"method" must be a string/ },
	{ line: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "ping", extra: 1 }), code: -32600, id: 3, message: /unknown member "extra"/ },
	{
		line: JSON.stringify({ jsonrpc: "2.0", id: 4, method: "ping", ...Object.fromEntries(["a", "b", "c", "d", "e", "f"].map((k) => [k.repeat(200), 1])) }),
		code: -32600,
		id: 4,
		message: /unknown members "a{40}", "b{40}", "c{40}", "d{40}", "e{40}" \(a message holds only/,
	},
	{ line: '"hello"', code: -32600, id: null, message: /a JSON-RPC message is a JSON object, not a string/ },
	{ line: "[]", code: -32600, id: null, message: /an empty batch/ },
	{ line: JSON.stringify([ping(8), { x: 1 }]), code: -32600, id: null, message: /message 2 of the batch.*nothing in the batch was run/ },
];

/** Runs the whole bad-input script through one transport. */
async function badInputScript(client: LineClient): Promise<void> {
	const init = await client.ask(INIT, isAnswer(1));
	expect(init.result, JSON.stringify(init)).toBeDefined();
	client.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
	for (const bad of BAD_LINES) {
		const answer = await client.ask(bad.line, (v): v is Answer => isAnswer(bad.id)(v) && v.error !== undefined);
		expect(answer, bad.line).toMatchObject({ jsonrpc: "2.0", id: bad.id, error: { code: bad.code } });
		expect(answer.error?.message, bad.line).toMatch(bad.message);
	}
	// A line over the 10 MB limit is dropped and answered; the SDK alone would close the session.
	const huge = await client.ask(JSON.stringify({ ...ping(77), params: { pad: "x".repeat(11 * 1024 * 1024) } }), isAnswer(null));
	expect(huge.error?.message).toMatch(/a line over the 10485760-byte limit was dropped/);
	// A batch runs as its messages and is answered with one array, in the batch's order; the
	// notification in it gets no answer; a bad call in it gets its own error beside the others.
	const batch = await client.ask(
		JSON.stringify([ping(5), status(6), { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 99 } }, { ...status(7), params: { name: "engrama_status", arguments: [] } }]),
		isArray,
	);
	expect(batch.map((a) => a.id)).toEqual([5, 6, 7]);
	expect(batch[0].result).toEqual({});
	expect(batch[1].result?.isError).toBeFalsy();
	expect(batch[2].error?.code).toBe(-32602);
	// A request the client cancels gets no answer (MCP): its batch is answered without it, not held back.
	const cancelled = await client.ask(JSON.stringify([status(20), { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 20 } }, ping(21)]), isArray);
	expect(cancelled.map((a) => a.id)).toEqual([21]);
	// And the session goes on: the next request is answered, and the refused batch ran nothing.
	const after = await client.ask(JSON.stringify(status(9)), isAnswer(9));
	expect(after.result?.isError, JSON.stringify(after)).toBeFalsy();
	expect(client.lines.some((v) => isAnswer(8)(v) || isAnswer(77)(v))).toBe(false);
	expect(client.lines.filter(isArray)).toHaveLength(2);
}

/** At most one short line on stderr per refused line: no validation dump. */
function expectShortStderr(stderr: string): void {
	expect(stderr).not.toMatch(/invalid_union|invalid_type|"path"|"code"/);
	const refusals = stderr.split("\n").filter((l) => /Parse error|Invalid Request/.test(l));
	expect(refusals).toHaveLength(BAD_LINES.length + 1);
	for (const line of stderr.split("\n")) expect(line.length, line.slice(0, 120)).toBeLessThan(300);
}

describe("bad input over stdio is answered as over HTTP, and the session goes on", () => {
	let dir: ReturnType<typeof makeTempDir>;
	let bridge: Bridge;
	let tokenFile: string;

	beforeAll(async () => {
		dir = makeTempDir("engrama-stdio-bad-");
		bridge = await startBridge({ dir: dir.path, embedder: null });
		tokenFile = join(dir.path, "token");
		writeFileSync(tokenFile, `${bridge.token}\n`);
	});
	afterAll(async () => {
		await bridge?.close();
		dir?.cleanup();
	});

	it("engrama mcp --stdio", async () => {
		const client = new LineClient(["--db", join(dir.path, "stdio.db"), "mcp", "--stdio"]);
		try {
			await badInputScript(client);
			expectShortStderr(client.stderr);
		} finally {
			expect(await client.stop()).toBe(0);
		}
	}, 60_000);

	it("engrama mcp-proxy", async () => {
		const client = new LineClient(["mcp-proxy", "--url", bridge.url, "--token-file", tokenFile]);
		try {
			await badInputScript(client);
			expectShortStderr(client.stderr);
		} finally {
			expect(await client.stop()).toBe(0);
		}
	}, 60_000);

	it("the HTTP bridge answers a non-message and a bad batch with the same -32600 and sentence", async () => {
		const headers = { authorization: `Bearer ${bridge.token}`, "content-type": "application/json", accept: "application/json, text/event-stream" };
		const init = await fetch(bridge.url, { method: "POST", headers, body: INIT });
		const session = { ...headers, "mcp-session-id": init.headers.get("mcp-session-id") ?? "", "mcp-protocol-version": "2025-06-18" };
		await init.text();
		for (const bad of BAD_LINES) {
			const res = await fetch(bridge.url, { method: "POST", headers: session, body: bad.line });
			expect(res.status, bad.line).toBe(400);
			const answer = (await res.json()) as Answer;
			expect(answer, bad.line).toMatchObject({ jsonrpc: "2.0", id: bad.id, error: { code: bad.code } });
			if (bad.code === -32600) expect(answer.error?.message, bad.line).toMatch(bad.message);
		}
		const batch = await fetch(bridge.url, { method: "POST", headers: session, body: JSON.stringify([ping(5), status(6)]) });
		expect(((await batch.json()) as Answer[]).map((a) => a.id)).toEqual([5, 6]);
	}, 60_000);
});
