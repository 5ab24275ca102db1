/**
 * What a session costs the bridge: `engrama serve` in its own process, and clients that each open
 * a session (initialize + initialized), make one call (engrama_status) and end it (DELETE), over
 * raw HTTP on 127.0.0.1, `--concurrency` at a time. Prints sessions per second and the server's CPU
 * per session (from /proc), the cost a client pays that connects per task (a proxy restarting, a
 * one-shot agent).
 *
 *   npm run bench -- mcp-sessions [--sessions 300] [--concurrency 4]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { arg as flag } from "./args";
import { loadAverage, startServe } from "./serve-process";
import { processCpuMs } from "./proc-cpu";

const SESSIONS = Number(flag("sessions", "300"));
const CONCURRENCY = Number(flag("concurrency", "4"));


async function oneSession(url: string, token: string, n: number): Promise<void> {
	const headers = { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" };
	const post = async (body: unknown, session?: string) => {
		const res = await fetch(url, { method: "POST", headers: { ...headers, ...(session ? { "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" } : {}) }, body: JSON.stringify(body) });
		const text = await res.text();
		if (res.status >= 400) throw new Error(`HTTP ${res.status}: ${text.slice(0, 200)}`);
		return { session: res.headers.get("mcp-session-id") ?? undefined, text };
	};
	const init = await post({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: `s${n}`, version: "1" } } });
	await post({ jsonrpc: "2.0", method: "notifications/initialized" }, init.session);
	const status = await post({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "engrama_status", arguments: {} } }, init.session);
	if (!status.text.includes('"result"') || status.text.includes('"isError":true')) throw new Error(`engrama_status failed: ${status.text.slice(0, 200)}`);
	await fetch(url, { method: "DELETE", headers: { ...headers, "mcp-session-id": init.session ?? "" } });
}

async function main(): Promise<void> {
	const dir = mkdtempSync(join(tmpdir(), "engrama-mcp-sessions-"));
	const serve = await startServe(["--db", join(dir, "memory.db")], { EMBEDDING_PROVIDER: "none" });
	try {
		await oneSession(serve.url, serve.token, -1);
		let next = 0;
		const cpuStart = processCpuMs(serve.child.pid);
		const started = performance.now();
		await Promise.all(
			Array.from({ length: CONCURRENCY }, async () => {
				while (next < SESSIONS) await oneSession(serve.url, serve.token, next++);
			}),
		);
		const wallMs = performance.now() - started;
		const cpu = processCpuMs(serve.child.pid) - cpuStart;
		console.log(`MCP sessions: ${SESSIONS} sessions (initialize, initialized, engrama_status, DELETE), ${CONCURRENCY} at a time; Node ${process.version}`);
		console.log(`throughput: ${(SESSIONS / (wallMs / 1000)).toFixed(0)} sessions/s; server CPU per session ${(cpu / SESSIONS).toFixed(2)} ms (load average during the run: ${loadAverage()})`);
	} finally {
		serve.child.kill("SIGTERM");
		await serve.exited;
		rmSync(dir, { recursive: true, force: true });
	}
}

await main();
