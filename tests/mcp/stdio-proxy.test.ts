import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult, JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { generateMcpToken, startMcpHttpServer, type McpHttpHandle } from "../../src/mcp";
import { runCli } from "../helpers/run-cli";
import { makeTempDir } from "../helpers/temp-dir";
import { startBridge } from "./mcp-harness";
import { freePort } from "../helpers/free-port";
import { spawnServe, type ServeProcess } from "./serve-process";

const BIN = join(__dirname, "..", "..", "bin", "engrama.mjs");

describe("engrama mcp-proxy", () => {
	it("answers each request with a JSON-RPC error that says the bridge is not reachable", async () => {
		const dir = makeTempDir("engrama-proxy-");
		try {
			const tokenFile = join(dir.path, "token");
			writeFileSync(tokenFile, `${generateMcpToken()}\n`);
			const url = `http://127.0.0.1:${await freePort()}/mcp`;
			const child = spawn(process.execPath, [BIN, "mcp-proxy", "--url", url, "--token-file", tokenFile], { stdio: ["pipe", "pipe", "pipe"] });
			let out = "";
			child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
			const reply = new Promise<Record<string, unknown>>((resolve, reject) => {
				const timer = setTimeout(() => reject(new Error(`no reply: ${out}`)), 30_000);
				child.stdout.on("data", () => {
					const line = out.split("\n").find((l) => l.trim().startsWith("{"));
					if (line) {
						clearTimeout(timer);
						resolve(JSON.parse(line) as Record<string, unknown>);
					}
				});
			});
			child.stdin.write(
				`${JSON.stringify({ jsonrpc: "2.0", id: 7, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } })}\n`,
			);
			const answer = await reply;
			expect(answer).toMatchObject({ jsonrpc: "2.0", id: 7, error: { code: -32000 } });
			expect((answer.error as { message: string }).message).toMatch(/did not accept the call.*Is Obsidian \(or engrama serve\) running/);
			child.stdin.end();
			const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
			expect(code).toBe(0);
		} finally {
			dir.cleanup();
		}
	}, 90_000);

	it("refuses a URL that is not on this machine, and a missing token", () => {
		const dir = makeTempDir("engrama-proxy-");
		try {
			const tokenFile = join(dir.path, "token");
			writeFileSync(tokenFile, `${generateMcpToken()}\n`);
			const remote = runCli(["mcp-proxy", "--url", "http://example.com:27182/mcp", "--token-file", tokenFile]);
			expect(remote.status).toBe(2);
			expect(remote.stderr).toMatch(/must point at this machine/);
			const none = runCli(["mcp-proxy", "--url", "http://127.0.0.1:27182/mcp"], { env: { ENGRAMA_MCP_TOKEN: "" } });
			expect(none.status).toBe(2);
			expect(none.stderr).toMatch(/needs the bridge token/);
			const stdio = runCli(["--db", join(dir.path, "m.db"), "mcp"]);
			expect(stdio.status).toBe(2);
			expect(stdio.stderr).toMatch(/needs --stdio/);
		} finally {
			dir.cleanup();
		}
	}, 90_000);
});

/** Starts `engrama mcp-proxy`, writes one line, and resolves with the first JSON line it answers. */
async function firstAnswer(url: string, tokenFile: string, line: unknown): Promise<{ id?: unknown; error?: { code: number; message: string } }> {
	const child = spawn(process.execPath, [BIN, "mcp-proxy", "--url", url, "--token-file", tokenFile], { stdio: ["pipe", "pipe", "pipe"] });
	let out = "";
	child.stdout.setEncoding("utf8");
	const answer = new Promise<string>((resolve, reject) => {
		const timer = setTimeout(() => reject(new Error(`no answer: ${out}`)), 30_000);
		child.stdout.on("data", (chunk: string) => {
			out += chunk;
			if (!out.includes("\n")) return;
			clearTimeout(timer);
			resolve(out.slice(0, out.indexOf("\n")));
		});
	});
	child.stdin.write(`${JSON.stringify(line)}\n`);
	try {
		return JSON.parse(await answer) as { id?: unknown; error?: { code: number; message: string } };
	} finally {
		child.stdin.end();
		await new Promise((resolve) => child.once("exit", resolve));
	}
}

describe("engrama mcp-proxy passes on the bridge's own refusal", () => {
	it("a request before initialize and a wrong token get the bridge's words, not 'is it running'", async () => {
		const dir = makeTempDir("engrama-proxy-refusal-");
		const bridge = await startBridge({ dir: dir.path, embedder: null });
		try {
			const good = join(dir.path, "token");
			writeFileSync(good, `${bridge.token}\n`);
			const early = await firstAnswer(bridge.url, good, { jsonrpc: "2.0", id: 1, method: "tools/list" });
			expect(early.id).toBe(1);
			expect(early.error?.message).toMatch(/did not accept the call \(HTTP 400\): .*Start with an initialize request/);
			expect(early.error?.message).not.toMatch(/Is Obsidian/);
			const wrong = join(dir.path, "wrong");
			writeFileSync(wrong, `${generateMcpToken()}\n`);
			const refused = await firstAnswer(bridge.url, wrong, { jsonrpc: "2.0", id: 2, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } });
			expect(refused.error?.code).toBe(-32001);
			expect(refused.error?.message).toMatch(/\(HTTP 401\): Unauthorized.*Check the proxy's --token-file/);
		} finally {
			await bridge.close();
			dir.cleanup();
		}
	}, 90_000);
});

describe("engrama mcp-proxy across a bridge restart", () => {
	it("opens a new session by itself when the bridge restarted on the same port", async () => {
		const dir = makeTempDir("engrama-proxy-restart-");
		const bridge = await startBridge({ dir: dir.path, embedder: null });
		const port = new URL(bridge.url).port;
		let second: McpHttpHandle | undefined;
		const tokenFile = join(dir.path, "token");
		writeFileSync(tokenFile, `${bridge.token}\n`);
		const client = new Client({ name: "proxy-test", version: "1" });
		try {
			await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp-proxy", "--url", bridge.url, "--token-file", tokenFile], stderr: "pipe" }));
			expect((await client.callTool({ name: "engrama_remember", arguments: { label: "Concept", properties: { name: "Before restart" } } })).isError).toBeFalsy();
			await bridge.http.close();
			second = await startMcpHttpServer({ memory: bridge.opened.memory, services: bridge.node.services, port: Number(port), token: bridge.token });
			const after = (await client.callTool({ name: "engrama_context", arguments: { label: "Concept", name: "Before restart" } })) as CallToolResult;
			expect(after.isError, JSON.stringify(after.content)).toBeFalsy();
			expect(second.sessionCount()).toBe(1);
		} finally {
			await client.close().catch(() => undefined);
			await second?.close();
			await bridge.node.stop();
			await bridge.opened.close();
			dir.cleanup();
		}
	}, 90_000);
});


describe("engrama mcp-proxy across engrama serve restarts (real processes)", () => {
	it("keeps one client session through a restart and through a few seconds of downtime", async () => {
		const dir = makeTempDir("engrama-proxy-serve-");
		const db = join(dir.path, "memory.db");
		const port = await freePort();
		const serveOn = () => spawnServe(["--db", db], {}, ["--port", String(port)], { portFlag: false });
		let serve = await serveOn();
		const stop = async (s: ServeProcess) => {
			s.child.kill("SIGTERM");
			await s.exited();
		};
		const client = new Client({ name: "proxy-restart", version: "1" });
		const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp-proxy", "--url", serve.info.url, "--token-file", serve.info.token_file], stderr: "pipe" });
		let proxyErr = "";
		transport.stderr?.on("data", (chunk: Buffer) => (proxyErr += chunk.toString("utf8")));
		// The client initialises once; every later initialize would show here.
		let initializes = 0;
		const send = transport.send.bind(transport);
		transport.send = (message: JSONRPCMessage) => {
			if ("method" in message && message.method === "initialize") initializes++;
			return send(message);
		};
		const context = async (name: string) => (await client.callTool({ name: "engrama_context", arguments: { label: "Concept", name } })) as CallToolResult;
		try {
			await client.connect(transport);
			expect((await client.callTool({ name: "engrama_remember", arguments: { label: "Concept", properties: { name: "Survives restarts" } } })).isError).toBeFalsy();

			// A restart: the new process takes the proxy's session back from its signed id, unnoticed.
			await stop(serve);
			serve = await serveOn();
			const afterRestart = await context("Survives restarts");
			expect(afterRestart.isError, JSON.stringify(afterRestart.content)).toBeFalsy();
			expect(proxyErr).not.toMatch(/reconnected with a new session/);

			// Down for a while: each call gets an error that says so (no hang), then it comes back.
			await stop(serve);
			const down = await client.callTool({ name: "engrama_status", arguments: {} }).then(
				() => "answered",
				(error: unknown) => String(error),
			);
			expect(down).toMatch(/did not accept the call.*Is Obsidian \(or engrama serve\) running/);
			await new Promise((r) => setTimeout(r, 2_000));
			serve = await serveOn();
			const back = await context("Survives restarts");
			expect(back.isError, JSON.stringify(back.content)).toBeFalsy();
			expect(initializes).toBe(1);
			// A clean exit says nothing (the aborted requests of closing are not errors).
			await client.close();
			expect(proxyErr).not.toMatch(/This operation was aborted/);
		} finally {
			await client.close().catch(() => undefined);
			await stop(serve);
			dir.cleanup();
		}
	}, 120_000);
});

describe("engrama mcp-proxy when the reconnect itself fails", () => {
	it("opens a session again on the next call instead of sending calls without one, and lives on", async () => {
		const dir = makeTempDir("engrama-proxy-refused-");
		const db = join(dir.path, "memory.db");
		const port = await freePort();
		const serveOn = () => spawnServe(["--db", db], {}, ["--port", String(port)], { portFlag: false });
		let serve = await serveOn();
		const client = new Client({ name: "proxy-refused", version: "1" });
		// A bridge still starting up on the port: it knows no session (404) and refuses a new one (503).
		const starting = createServer((req, res) => {
			res.writeHead(req.headers["mcp-session-id"] ? 404 : 503, { "content-type": "application/json" });
			res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32001, message: "not yet" } }));
		});
		try {
			await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp-proxy", "--url", serve.info.url, "--token-file", serve.info.token_file], stderr: "pipe" }));
			expect((await client.callTool({ name: "engrama_status", arguments: {} })).isError).toBeFalsy();
			serve.child.kill("SIGTERM");
			await serve.exited();
			await new Promise<void>((resolve) => starting.listen(port, "127.0.0.1", resolve));
			await expect(client.callTool({ name: "engrama_status", arguments: {} })).rejects.toThrow(/did not accept the call/);
			// Past the proxy's 15 s wait for the new initialize's answer, which must not go off by then.
			await new Promise((r) => setTimeout(r, 15_500));
			await new Promise<void>((resolve) => starting.close(() => resolve()));
			serve = await serveOn();
			const back = (await client.callTool({ name: "engrama_status", arguments: {} })) as CallToolResult;
			expect(back.isError, JSON.stringify(back.content)).toBeFalsy();
		} finally {
			await client.close().catch(() => undefined);
			starting.close();
			serve.child.kill("SIGTERM");
			await serve.exited();
			dir.cleanup();
		}
	}, 120_000);
});
