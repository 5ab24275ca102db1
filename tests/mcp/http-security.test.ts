import { request } from "node:http";
import { networkInterfaces } from "node:os";
import { join } from "node:path";
import { statSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultTokenFile, loadOrCreateToken, readToken, startMcpHttpServer } from "../../src/mcp";
import { makeTempDir } from "../helpers/temp-dir";
import { call, connectClient, startBridge, textOf, type Bridge } from "./mcp-harness";

interface RawResponse {
	readonly status: number;
	readonly headers: Record<string, string | string[] | undefined>;
	readonly body: string;
}

function raw(url: string, options: { method?: string; headers?: Record<string, string>; body?: string; host?: string }): Promise<RawResponse> {
	const target = new URL(url);
	return new Promise((resolve, reject) => {
		const req = request(
			{
				host: options.host ?? target.hostname,
				port: target.port,
				path: target.pathname,
				method: options.method ?? "POST",
				headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...options.headers },
			},
			(res) => {
				let body = "";
				res.setEncoding("utf8");
				res.on("data", (chunk: string) => (body += chunk));
				res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
			},
		);
		req.on("error", reject);
		if (options.body !== undefined) req.write(options.body);
		req.end();
	});
}

const INIT = JSON.stringify({
	jsonrpc: "2.0",
	id: 1,
	method: "initialize",
	params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});

describe("MCP bridge security", () => {
	let dir: ReturnType<typeof makeTempDir>;
	let bridge: Bridge;

	beforeAll(async () => {
		dir = makeTempDir("engrama-mcp-sec-");
		bridge = await startBridge({ dir: dir.path, embedder: null });
	});
	afterAll(async () => {
		await bridge?.close();
		dir?.cleanup();
	});

	const auth = () => ({ authorization: `Bearer ${bridge.token}` });

	it("binds to 127.0.0.1 only and refuses other interfaces", async () => {
		expect(new URL(bridge.url).hostname).toBe("127.0.0.1");
		await expect(startMcpHttpServer({ memory: bridge.opened.memory, services: bridge.node.services, host: "0.0.0.0", port: 0, token: bridge.token })).rejects.toThrow(
			/only listens on this machine/,
		);
		const external = Object.values(networkInterfaces())
			.flat()
			.find((i) => i && i.family === "IPv4" && !i.internal);
		if (external) {
			await expect(raw(bridge.url, { host: external.address, headers: { ...auth(), host: "127.0.0.1" }, body: INIT })).rejects.toThrow(/ECONNREFUSED/);
		}
	});

	it("answers 401 without a token and with a wrong one", async () => {
		const none = await raw(bridge.url, { body: INIT });
		expect(none.status).toBe(401);
		expect(none.headers["www-authenticate"]).toMatch(/^Bearer/);
		expect(JSON.parse(none.body)).toMatchObject({ jsonrpc: "2.0", error: { message: expect.stringMatching(/Authorization: Bearer/) as string } });

		const wrong = await raw(bridge.url, { headers: { authorization: `Bearer ${bridge.token.slice(0, -2)}xx` }, body: INIT });
		expect(wrong.status).toBe(401);
		expect(JSON.parse(wrong.body)).toMatchObject({ error: { message: expect.stringMatching(/token is wrong/) as string } });

		const basic = await raw(bridge.url, { headers: { authorization: `Basic ${bridge.token}` }, body: INIT });
		expect(basic.status).toBe(401);

		const good = await raw(bridge.url, { headers: auth(), body: INIT });
		expect(good.status).toBe(200);
		expect(good.headers["mcp-session-id"]).toBeTruthy();
	});

	it("answers 403 to a foreign Host or Origin (DNS rebinding), even with the right token", async () => {
		const rebinding = await raw(bridge.url, { headers: { ...auth(), host: `evil.example:${new URL(bridge.url).port}` }, body: INIT });
		expect(rebinding.status).toBe(403);
		expect(JSON.parse(rebinding.body)).toMatchObject({ error: { message: expect.stringMatching(/Host/) as string } });

		for (const origin of ["https://evil.example", "http://127.0.0.1.evil.example", "null", "file://"]) {
			const res = await raw(bridge.url, { headers: { ...auth(), origin }, body: INIT });
			expect(res.status, origin).toBe(403);
		}
		const local = await raw(bridge.url, { headers: { ...auth(), origin: "http://localhost:3000", host: "localhost" }, body: INIT });
		expect(local.status).toBe(200);
	});

	it("answers malformed HTTP and JSON-RPC with well-formed errors", async () => {
		const path = await raw(bridge.url.replace("/mcp", "/other"), { headers: auth(), body: INIT });
		expect(path.status).toBe(404);
		const notJson = await raw(bridge.url, { headers: auth(), body: "{not json" });
		expect(notJson.status).toBe(400);
		expect(JSON.parse(notJson.body)).toMatchObject({ jsonrpc: "2.0", error: { code: -32700 }, id: null });
		const noSession = await raw(bridge.url, { headers: auth(), body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }) });
		expect(noSession.status).toBe(400);
		const unknownSession = await raw(bridge.url, { headers: { ...auth(), "mcp-session-id": "nope" }, body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }) });
		expect(unknownSession.status).toBe(404);
		const put = await raw(bridge.url, { method: "PUT", headers: auth(), body: INIT });
		expect(put.status).toBe(405);
		const small = await startMcpHttpServer({ memory: bridge.opened.memory, services: bridge.node.services, port: 0, token: bridge.token, maxBodyBytes: 1024 });
		try {
			const huge = await raw(small.url, { headers: auth(), body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "initialize", params: { pad: "x".repeat(4000) } }) });
			expect(huge.status).toBe(413);
			expect(JSON.parse(huge.body)).toMatchObject({ error: { message: expect.stringMatching(/1024-byte limit/) as string } });
		} finally {
			await small.close();
		}
	});

	it("keeps serving many clients at once", async () => {
		const clients = await Promise.all(Array.from({ length: 8 }, () => connectClient(bridge.url, bridge.token)));
		try {
			const results = await Promise.all(
				clients.map((c, i) => call(c, "engrama_remember", { label: "Concept", properties: { name: `Concurrency ${i}`, summary: `Client ${i}` } })),
			);
			expect(results.every((r) => !r.isError)).toBe(true);
			expect(bridge.http.sessionCount()).toBeGreaterThanOrEqual(8);
			const seen = await call(clients[0], "engrama_search", { query: "Concurrency", limit: 20 });
			expect(textOf(seen)).toMatch(/8 results/);
		} finally {
			await Promise.all(clients.map((c) => c.close()));
		}
	});
});

describe("MCP token file", () => {
	it("is created with 32 random bytes and mode 0600, reused, tightened and regenerable", async () => {
		const dir = makeTempDir("engrama-mcp-token-");
		try {
			const file = defaultTokenFile(join(dir.path, "memory.db"));
			expect(file).toBe(join(dir.path, "memory.db.mcp-token"));
			const first = await loadOrCreateToken(file);
			expect(first.created).toBe(true);
			expect(Buffer.from(first.token, "base64url")).toHaveLength(32);
			expect(statSync(file).mode & 0o777).toBe(0o600);
			const again = await loadOrCreateToken(file);
			expect(again).toMatchObject({ created: false, token: first.token });
			writeFileSync(file, `${first.token}\n`, { mode: 0o644 });
			await loadOrCreateToken(file);
			expect(statSync(file).mode & 0o777).toBe(0o600);
			const fresh = await loadOrCreateToken(file, { regenerate: true });
			expect(fresh.token).not.toBe(first.token);
			expect(await readToken(file)).toBe(fresh.token);
			writeFileSync(file, "short\n");
			await expect(readToken(file)).rejects.toThrow(/does not hold a valid token/);
		} finally {
			dir.cleanup();
		}
	});
});
