import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTempDir } from "../helpers/temp-dir";
import { freePort } from "../helpers/free-port";
import { call, connectClient, ok, textOf } from "./mcp-harness";
import { spawnServe, type ServeProcess } from "./serve-process";

describe("a restart of engrama serve is invisible to clients that connect directly", () => {
	let dir: ReturnType<typeof makeTempDir>;
	beforeEach(() => (dir = makeTempDir("engrama-restart-")));
	afterEach(() => dir.cleanup());

	const stop = async (serve: ServeProcess) => {
		serve.child.kill("SIGTERM");
		await serve.exited();
	};

	it("the TypeScript SDK's client keeps its session across a restart; a new token or an ended session is 404", async () => {
		const db = join(dir.path, "memory.db");
		const port = await freePort();
		const serveOn = (flags: string[] = []) => spawnServe(["--db", db], { EMBEDDING_PROVIDER: "none" }, ["--port", String(port), ...flags], { portFlag: false });
		let serve = await serveOn();
		try {
			const client = await connectClient(serve.info.url, serve.token);
			await ok(client, "engrama_remember", { label: "Concept", properties: { name: "Before restart" } });
			await stop(serve);
			serve = await serveOn();
			// The same client object, the same session id: no "Session not found".
			const after = await call(client, "engrama_context", { label: "Concept", name: "Before restart" });
			expect(after.isError, textOf(after)).toBeFalsy();
			const written = await ok<{ node: { props: Record<string, unknown> } }>(client, "engrama_remember", { label: "Concept", properties: { name: "After restart" } });
			expect(written.node.props.source_agent).toBe("engrama-test");
			await client.close();

			// Raw HTTP: an id signed with another token is unknown; a session ended with DELETE stays ended.
			const headers = { authorization: `Bearer ${serve.token}`, "content-type": "application/json", accept: "application/json, text/event-stream" };
			const init = await fetch(serve.info.url, {
				method: "POST",
				headers,
				body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } }),
			});
			await init.text();
			const id = init.headers.get("mcp-session-id") ?? "";
			const list = (session: string, token = serve.token) =>
				fetch(serve.info.url, { method: "POST", headers: { ...headers, authorization: `Bearer ${token}`, "mcp-session-id": session }, body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }) });
			expect((await list(id)).status).toBe(200);
			expect((await list(`${id.slice(0, -2)}xx`)).status).toBe(404);
			expect((await fetch(serve.info.url, { method: "DELETE", headers: { ...headers, "mcp-session-id": id } })).status).toBe(200);
			expect((await list(id)).status).toBe(404);

			await stop(serve);
			serve = await serveOn(["--regenerate-token"]);
			const again = await connectClient(serve.info.url, serve.token);
			expect((await list(id, serve.token)).status).toBe(404);
			await again.close();
		} finally {
			await stop(serve);
		}
	}, 180_000);
});
