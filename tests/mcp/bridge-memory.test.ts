import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTempDir } from "../helpers/temp-dir";
import { connectClient, ok } from "./mcp-harness";
import { spawnServe } from "./serve-process";

/** Resident memory of a process in MB (Linux). */
function rssMb(pid: number): number {
	const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
	return Number(kb) / 1024;
}

describe("the bridge keeps nothing of the messages it answered", () => {
	let dir: ReturnType<typeof makeTempDir>;
	beforeEach(() => (dir = makeTempDir("engrama-bridge-memory-")));
	afterEach(() => dir.cleanup());

	it("with a 256 MB heap, survives 150 requests of 3.5 MB each (refused searches and large pings) and still answers", async () => {
		const serve = await spawnServe(["--db", join(dir.path, "memory.db")], { EMBEDDING_PROVIDER: "none" }, [], { nodeArgs: ["--max-old-space-size=256"] });
		try {
			const headers = { authorization: `Bearer ${serve.token}`, "content-type": "application/json", accept: "application/json, text/event-stream" };
			const init = await fetch(serve.info.url, {
				method: "POST",
				headers,
				body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "big", version: "1" } } }),
			});
			await init.text();
			const session = { ...headers, "mcp-session-id": init.headers.get("mcp-session-id") ?? "", "mcp-protocol-version": "2025-06-18" };
			const big = "x".repeat(3.5 * 1024 * 1024);
			const before = rssMb(serve.child.pid ?? 0);
			for (let i = 0; i < 150; i++) {
				const message =
					i % 2 === 0
						? { jsonrpc: "2.0", id: i + 2, method: "tools/call", params: { name: "engrama_search", arguments: { query: big } } }
						: { jsonrpc: "2.0", id: i + 2, method: "ping", params: { _meta: { pad: big } } };
				const res = await fetch(serve.info.url, { method: "POST", headers: session, body: JSON.stringify(message) });
				const answer = (await res.json()) as { id: number; result?: { isError?: boolean } };
				expect(answer.id).toBe(i + 2);
				if (i % 2 === 0) expect(answer.result?.isError).toBe(true);
			}
			const after = rssMb(serve.child.pid ?? 0);
			console.info(`engrama serve RSS: ${before.toFixed(0)} MB before, ${after.toFixed(0)} MB after 150 requests of 3.5 MB`);
			expect(serve.child.exitCode).toBeNull();
			const client = await connectClient(serve.info.url, serve.token);
			expect((await ok<{ backend: { name: string } }>(client, "engrama_status")).backend.name).toBe("sqlite");
			await client.close();
			expect(after).toBeLessThan(before + 200);
		} finally {
			serve.child.kill("SIGTERM");
			await serve.exited();
		}
	}, 240_000);
});
