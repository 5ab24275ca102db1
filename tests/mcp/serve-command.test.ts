import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openMemory } from "../../src/nodejs/open-memory";
import { parseConfig } from "../../src/config/engrama-config";
import { makeTempDir } from "../helpers/temp-dir";
import { call, connectClient, ok, textOf } from "./mcp-harness";
import { spawnServe } from "./serve-process";
import { runCli } from "../helpers/run-cli";
import { freePort } from "../helpers/free-port";

describe("engrama serve", () => {
	let dir: ReturnType<typeof makeTempDir>;
	let db: string;

	beforeEach(() => {
		dir = makeTempDir("engrama-serve-");
		db = join(dir.path, "memory.db");
	});
	afterEach(() => dir.cleanup());

	it("prints the endpoint and ready-to-paste configurations, keeps the token beside the database, stops on SIGTERM", async () => {
		const serve = await spawnServe(["--db", db]);
		try {
			expect(serve.info.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
			expect(serve.info.token_file).toBe(`${db}.mcp-token`);
			expect(serve.info.token_created).toBe(true);
			expect(readFileSync(serve.info.token_file, "utf8").trim()).toBe(serve.token);
			expect(statSync(serve.info.token_file).mode & 0o777).toBe(0o600);
			const configs = serve.info.configs as unknown as Record<string, unknown>;
			expect(configs.stdio_proxy).toMatchObject({ mcpServers: { engrama: { args: expect.arrayContaining(["mcp-proxy", "--url", serve.info.url, "--token-file", serve.info.token_file]) as unknown } } });
			expect(String(configs.claude_code)).toContain(`--header "Authorization: Bearer ${serve.token}"`);

			const client = await connectClient(serve.info.url, serve.token);
			const status = await ok<{ backend: { name: string } }>(client, "engrama_status");
			expect(status.backend.name).toBe("sqlite");
			await client.close();
		} finally {
			serve.child.kill("SIGTERM");
		}
		expect(await serve.exited()).toEqual({ code: 0, signal: null });
		expect(serve.stderr()).toMatch(/SIGTERM, closing/);

		const again = await spawnServe(["--db", db]);
		try {
			expect(again.info.token_created).toBe(false);
			expect(again.token).toBe(readFileSync(`${db}.mcp-token`, "utf8").trim());
		} finally {
			again.child.kill("SIGINT");
		}
		expect((await again.exited()).code).toBe(0);

		// --token-file elsewhere with --regenerate-token: the token there is replaced; old tokens are refused.
		const custom = join(dir.path, "tokens", "bridge-token");
		mkdirSync(dirname(custom));
		writeFileSync(custom, `${serve.token}\n`);
		const fresh = await spawnServe(["--db", db], {}, ["--token-file", custom, "--regenerate-token"]);
		try {
			expect(fresh.info).toMatchObject({ token_file: custom, token_created: true });
			expect(readFileSync(custom, "utf8").trim()).toBe(fresh.token);
			expect(statSync(custom).mode & 0o777).toBe(0o600);
			expect(fresh.token).not.toBe(serve.token);
			const init = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } };
			const post = (token: string) =>
				fetch(fresh.info.url, {
					method: "POST",
					headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
					body: JSON.stringify(init),
				});
			expect((await post(serve.token)).status).toBe(401);
			expect((await post(fresh.token)).status).toBe(200);
		} finally {
			fresh.child.kill("SIGTERM");
		}
		expect((await fresh.exited()).code).toBe(0);
	}, 180_000);

	it("keeps every acknowledged engrama_remember after a SIGKILL", async () => {
		const serve = await spawnServe(["--db", db]);
		const names = Array.from({ length: 25 }, (_, i) => `Durable ${i}`);
		const client = await connectClient(serve.info.url, serve.token);
		for (const name of names) {
			const result = await call(client, "engrama_remember", { label: "Concept", properties: { name, summary: `acknowledged ${name}` } });
			expect(result.isError, textOf(result)).toBeFalsy();
		}
		// Killed right after the last acknowledgement: no graceful close, no checkpoint.
		serve.child.kill("SIGKILL");
		expect((await serve.exited()).signal).toBe("SIGKILL");
		await client.close().catch(() => undefined);

		const opened = await openMemory(parseConfig({ backend: "sqlite", dbPath: db }), { embedder: null });
		try {
			for (const name of names) {
				const node = await opened.memory.get(opened.scope, "Concept", name);
				expect(node?.props.summary, name).toBe(`acknowledged ${name}`);
			}
		} finally {
			await opened.close();
		}

		// And the bridge itself starts again on the same file (stale lock taken over).
		const restarted = await spawnServe(["--db", db]);
		try {
			const c2 = await connectClient(restarted.info.url, restarted.token);
			for (const name of names) {
				const context = await ok<{ node: { props: { summary: string } } }>(c2, "engrama_context", { label: "Concept", name });
				expect(context.node.props.summary).toBe(`acknowledged ${name}`);
			}
			await c2.close();
		} finally {
			restarted.child.kill("SIGTERM");
			await restarted.exited();
		}
	}, 120_000);

	it("answers an upload over the body limit with a 413 the client receives, every time", async () => {
		const serve = await spawnServe(["--db", db]);
		try {
			const url = new URL(serve.info.url);
			const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { pad: "x".repeat(6 * 1024 * 1024) } });
			const upload = (declared: boolean) =>
				new Promise<number | string>((resolve) => {
					const req = request(
						{
							host: url.hostname,
							port: url.port,
							path: url.pathname,
							method: "POST",
							agent: false,
							headers: {
								authorization: `Bearer ${serve.token}`,
								"content-type": "application/json",
								accept: "application/json, text/event-stream",
								...(declared ? { "content-length": String(Buffer.byteLength(body)) } : {}),
							},
						},
						(res) => {
							res.resume();
							res.on("end", () => resolve(res.statusCode ?? 0));
						},
					);
					// A reset under the upload (the server closing with the body unread) loses the answer.
					req.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
					req.end(body);
				});
			const answers: (number | string)[] = [];
			for (let i = 0; i < 8; i++) answers.push(await upload(i % 2 === 0));
			expect(answers).toEqual(Array.from({ length: 8 }, () => 413));
		} finally {
			serve.child.kill("SIGTERM");
		}
		expect((await serve.exited()).code).toBe(0);
	}, 120_000);

	it("refuses tenant headers naming another identity with 403 unless started as a gateway (--allow-tenant-headers or ENGRAMA_ALLOW_TENANT_HEADERS)", async () => {
		const init = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } });
		const asTenant = (url: string, token: string) =>
			fetch(url, {
				method: "POST",
				headers: {
					authorization: `Bearer ${token}`,
					"content-type": "application/json",
					accept: "application/json, text/event-stream",
					"x-engrama-org-id": "acme",
					"x-engrama-user-id": "bob",
				},
				body: init,
			});
		const modes: [string, string[], NodeJS.ProcessEnv, number][] = [
			["default", [], {}, 403],
			["flag", ["--allow-tenant-headers"], {}, 200],
			["env", [], { ENGRAMA_ALLOW_TENANT_HEADERS: "true" }, 200],
		];
		for (const [mode, flags, env, status] of modes) {
			const serve = await spawnServe(["--db", db], env, flags);
			try {
				expect((serve.info as unknown as { allow_tenant_headers: boolean }).allow_tenant_headers, mode).toBe(status === 200);
				const res = await asTenant(serve.info.url, serve.token);
				expect(res.status, mode).toBe(status);
				if (status === 403) expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/--allow-tenant-headers/);
				else await res.text();
			} finally {
				serve.child.kill("SIGTERM");
			}
			expect((await serve.exited()).code).toBe(0);
		}
	}, 180_000);

	it("listens where ENGRAMA_HTTP_HOST / ENGRAMA_HTTP_PORT say (engrama-py's names), the flags winning; refuses a bad value or a non-loopback host naming the variable", async () => {
		const free = await freePort();
		const serve = await spawnServe(["--db", db], { ENGRAMA_HTTP_HOST: "localhost", ENGRAMA_HTTP_PORT: String(free) }, [], { portFlag: false });
		try {
			expect(serve.info.url).toBe(`http://localhost:${free}/mcp`);
		} finally {
			serve.child.kill("SIGTERM");
		}
		expect((await serve.exited()).code).toBe(0);
		// The flags override the environment.
		const flagged = await spawnServe(["--db", db], { ENGRAMA_HTTP_HOST: "localhost", ENGRAMA_HTTP_PORT: String(free) }, ["--host", "127.0.0.1"]);
		try {
			expect(flagged.info.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
			expect(flagged.info.url).not.toBe(`http://127.0.0.1:${free}/mcp`);
		} finally {
			flagged.child.kill("SIGTERM");
		}
		expect((await flagged.exited()).code).toBe(0);

		const cases: [NodeJS.ProcessEnv, string[], RegExp][] = [
			[{ ENGRAMA_HTTP_PORT: "http" }, [], /ENGRAMA_HTTP_PORT must be an integer at least 0 and at most 65535; got "http"/],
			[{ ENGRAMA_HTTP_HOST: "0.0.0.0" }, [], /ENGRAMA_HTTP_HOST must be a loopback address \(127\.0\.0\.1, ::1, localhost\), got "0\.0\.0\.0"/],
			[{}, ["--host", "192.168.1.5"], /--host must be a loopback address/],
		];
		for (const [env, flags, message] of cases) {
			const result = runCli(["--db", db, "serve", "--port", "0", ...flags], { env: { ENGRAMA_HTTP_HOST: "", ENGRAMA_HTTP_PORT: "", ...env } });
			expect(result.status, JSON.stringify(env)).not.toBe(0);
			expect(result.stderr).toMatch(message);
		}
	}, 180_000);
});

