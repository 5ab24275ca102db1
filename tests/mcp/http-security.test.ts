import { request } from "node:http";
import { networkInterfaces } from "node:os";
import { join } from "node:path";
import { statSync, writeFileSync } from "node:fs";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultTokenFile, loadOrCreateToken, readToken, serveMcpStdio, startMcpHttpServer } from "../../src/mcp";
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

	it("sends every JSON answer with its length, not chunked, and checks the token on every request", async () => {
		const opened = await raw(bridge.url, { headers: auth(), body: INIT });
		const session = String(opened.headers["mcp-session-id"]);
		const list = await raw(bridge.url, { headers: { ...auth(), "mcp-session-id": session }, body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }) });
		const refused = await raw(bridge.url, { headers: { authorization: "Bearer not-the-token-at-all" }, body: INIT });
		for (const answer of [opened, list, refused]) {
			expect(answer.headers["transfer-encoding"]).toBeUndefined();
			expect(answer.headers["content-length"]).toBe(String(Buffer.byteLength(answer.body)));
		}
		expect(list.status).toBe(200);
		expect(refused.status).toBe(401);
		// The token is checked again after another value was compared (a session id's signature).
		expect((await raw(bridge.url, { method: "DELETE", headers: { ...auth(), "mcp-session-id": `${session}x` } })).status).toBe(404);
		expect((await raw(bridge.url, { headers: auth(), body: INIT })).status).toBe(200);
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
			// Far more than the socket buffers hold, declared or streamed: the client still reads its
			// 413 (the server drains the body instead of resetting the connection under the upload).
			const big = JSON.stringify({ jsonrpc: "2.0", id: 4, method: "initialize", params: { pad: "x".repeat(8 * 1024 * 1024) } });
			for (const headers of [{ ...auth(), "content-length": String(Buffer.byteLength(big)) }, auth()]) {
				const res = await raw(small.url, { headers, body: big });
				expect(res.status).toBe(413);
				expect(JSON.parse(res.body)).toMatchObject({ error: { message: expect.stringMatching(/over the 1024-byte limit/) as string } });
			}
			// And the bridge goes on answering on new connections.
			expect((await raw(small.url, { headers: auth(), body: INIT })).status).toBe(200);
		} finally {
			await small.close();
		}
	});

	it("answers tools/call whose arguments or name are not what they should be with -32602 and a sentence", async () => {
		const init = await raw(bridge.url, { headers: auth(), body: INIT });
		const session = { ...auth(), "mcp-session-id": String(init.headers["mcp-session-id"]), "mcp-protocol-version": "2025-06-18" };
		const cases: [unknown, RegExp][] = [
			[{ name: "engrama_search", arguments: null }, /arguments of engrama_search must be a JSON object .*not null/],
			[{ name: "engrama_search", arguments: [] }, /arguments of engrama_search must be a JSON object .*not an array/],
			[{ name: "engrama_search", arguments: "billing" }, /arguments of engrama_search must be a JSON object .*not a string/],
			[{ name: "engrama_status", arguments: 5 }, /Send \{\} for a tool without parameters/],
			[{ name: 7, arguments: {} }, /needs "name", the tool's name as a string/],
			[{ arguments: {} }, /needs "name"/],
		];
		for (const [params, message] of cases) {
			const res = await raw(bridge.url, { headers: session, body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/call", params }) });
			expect(res.status, JSON.stringify(params)).toBeLessThan(500);
			const body = JSON.parse(res.body) as { id: number; error: { code: number; message: string } };
			expect(body.id).toBe(9);
			expect(body.error.code, JSON.stringify(params)).toBe(-32602);
			expect(body.error.message).toMatch(message);
			expect(body.error.message).not.toMatch(/invalid_type|"path"/);
		}
		// Other requests with params of the wrong shape: the same code, a sentence naming the field.
		for (const [method, params, message] of [
			["tools/list", { cursor: null }, /in tools\/list, "params.cursor" must be a string, not null/],
			["initialize", { capabilities: [] }, /in initialize, "params\.\w+" must be/],
		] as const) {
			const res = await raw(bridge.url, { headers: session, body: JSON.stringify({ jsonrpc: "2.0", id: 12, method, params }) });
			const body = JSON.parse(res.body) as { error: { code: number; message: string } };
			expect(body.error.code, method).toBe(-32602);
			expect(body.error.message).toMatch(message);
		}
		// The session still answers, and a batch mixing a bad and a good call gets both answers.
		const batch = await raw(bridge.url, {
			headers: session,
			body: JSON.stringify([
				{ jsonrpc: "2.0", id: 10, method: "tools/call", params: { name: "engrama_status", arguments: null } },
				{ jsonrpc: "2.0", id: 11, method: "tools/call", params: { name: "engrama_status", arguments: {} } },
			]),
		});
		const answers = JSON.parse(batch.body) as { id: number; error?: { code: number }; result?: { isError?: boolean } }[];
		expect(answers.find((a) => a.id === 10)?.error?.code).toBe(-32602);
		expect(answers.find((a) => a.id === 11)?.result?.isError).toBeFalsy();
	});

	it("answers the same malformed tools/call over stdio with -32602", async () => {
		const stdin = new PassThrough();
		const stdout = new PassThrough();
		let out = "";
		stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
		const stdio = await serveMcpStdio({ memory: bridge.opened.memory, services: bridge.node.services }, { stdin, stdout });
		try {
			stdin.write(`${INIT}\n`);
			stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
			stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "engrama_search", arguments: [] } })}\n`);
			const started = Date.now();
			while (!out.includes('"id":2') && Date.now() - started < 30_000) await new Promise((r) => setTimeout(r, 20));
			const answer = out
				.split("\n")
				.filter((l) => l.trim())
				.map((l) => JSON.parse(l) as { id?: number; error?: { code: number; message: string } })
				.find((m) => m.id === 2);
			expect(answer?.error?.code).toBe(-32602);
			expect(answer?.error?.message).toMatch(/must be a JSON object .*not an array/);
		} finally {
			await stdio.close();
		}
	});

	it("serves one scope by default: tenant headers naming another get 403, its own scope is fine", async () => {
		const own = bridge.opened.scope;
		const refusedHeaders: Record<string, string>[] = [
			{ "x-engrama-org-id": "acme", "x-engrama-user-id": "bob" },
			{ "x-engrama-org-id": own.orgId, "x-engrama-user-id": "bob" },
			{ "x-engrama-user-id": own.userId },
			{ "x-engrama-org-id": "bad value with spaces", "x-engrama-user-id": own.userId },
		];
		for (const tenant of refusedHeaders) {
			const res = await raw(bridge.url, { headers: { ...auth(), ...tenant }, body: INIT });
			expect(res.status, JSON.stringify(tenant)).toBe(403);
			expect(JSON.parse(res.body)).toMatchObject({
				jsonrpc: "2.0",
				error: { code: -32001, message: expect.stringMatching(/serves one memory identity.*--allow-tenant-headers/) as string },
			});
		}
		// A session opened without headers cannot switch tenant on a later request either.
		const init = await raw(bridge.url, { headers: auth(), body: INIT });
		const session = { ...auth(), "mcp-session-id": String(init.headers["mcp-session-id"]), "mcp-protocol-version": "2025-06-18" };
		const later = await raw(bridge.url, {
			headers: { ...session, "x-engrama-org-id": "acme", "x-engrama-user-id": "bob" },
			body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "engrama_remember", arguments: { label: "Project", properties: { name: "Sneaky" } } } }),
		});
		expect(later.status).toBe(403);

		// The bridge's own scope named explicitly works like no headers at all.
		const self = await connectClient(bridge.url, bridge.token, { "X-Engrama-Org-Id": own.orgId, "X-Engrama-User-Id": own.userId });
		try {
			expect((await call(self, "engrama_remember", { label: "Concept", properties: { name: "Own scope header" } })).isError).toBeFalsy();
		} finally {
			await self.close();
		}
		const stored = await bridge.opened.memory.graph.listNodes({ orgId: "acme", userId: "bob" }, { includeArchived: true, limit: 10 });
		expect(stored).toEqual([]);
	});

	it("honours tenant headers in gateway mode (allowTenantHeaders)", async () => {
		const gateway = await startMcpHttpServer({ memory: bridge.opened.memory, services: bridge.node.services, port: 0, token: bridge.token, allowTenantHeaders: true });
		const tenant = await connectClient(gateway.url, bridge.token, { "X-Engrama-Org-Id": "gw-org", "X-Engrama-User-Id": "gw-user" });
		try {
			expect((await call(tenant, "engrama_remember", { label: "Concept", properties: { name: "Gateway tenant note" } })).isError).toBeFalsy();
			const theirs = await bridge.opened.memory.graph.listNodes({ orgId: "gw-org", userId: "gw-user" }, { limit: 10 });
			expect(theirs.map((n) => n.key)).toEqual(["Gateway tenant note"]);
			const mine = await bridge.opened.memory.graph.listNodes(bridge.opened.scope, { limit: 1000 });
			expect(mine.map((n) => n.key)).not.toContain("Gateway tenant note");
		} finally {
			await tenant.close();
			await gateway.close();
		}
	});

	it("ENGRAMA_ALLOWED_ORIGINS admits listed web origins; ENGRAMA_REQUIRE_IDENTITY refuses requests without tenant headers", async () => {
		const listed = await startMcpHttpServer({
			memory: bridge.opened.memory,
			services: bridge.node.services,
			port: 0,
			token: bridge.token,
			allowTenantHeaders: true,
			allowedOrigins: ["https://app.example.com", "http://tools.example:*"],
			requireIdentity: true,
		});
		const tenant = { "X-Engrama-Org-Id": "o1", "X-Engrama-User-Id": "u1" };
		try {
			const post = (headers: Record<string, string>) => raw(listed.url, { headers: { ...auth(), ...headers }, body: INIT });
			expect((await post({ ...tenant, origin: "https://app.example.com" })).status).toBe(200);
			expect((await post({ ...tenant, origin: "http://tools.example:8080" })).status).toBe(200);
			expect((await post({ ...tenant, origin: "https://evil.example" })).status).toBe(403);
			expect((await post({ ...tenant, origin: "http://tools.example.evil:8080" })).status).toBe(403);
			const anonymous = await post({});
			expect(anonymous.status).toBe(403);
			expect(JSON.parse(anonymous.body)).toMatchObject({ error: { message: expect.stringMatching(/ENGRAMA_REQUIRE_IDENTITY/) as string } });
		} finally {
			await listed.close();
		}
		// Without the options nothing changes: a web origin is refused, a header-less request served.
		expect((await raw(bridge.url, { headers: { ...auth(), origin: "https://app.example.com" }, body: INIT })).status).toBe(403);
		expect((await raw(bridge.url, { headers: auth(), body: INIT })).status).toBe(200);
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
