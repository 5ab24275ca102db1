/**
 * MCP bridge under load: `engrama serve` in its own process, N concurrent SDK clients over real
 * HTTP doing a fixed number of mixed remember / search / context calls. Prints throughput and
 * p50/p95/p99 latency per operation, the error count (must be 0), and then checks, with the
 * server stopped, that every acknowledged remember is in the database.
 *
 *   npm run bench -- mcp-load [--clients 8] [--calls 2000] [--seed 200] [--embedder none|hash] [--cpu-prof <dir>]
 *
 * --kill9 <fraction>: SIGKILL the server once that fraction of the calls was issued (e.g. 0.5); the
 * calls in flight then fail (counted apart, never acknowledged) and the check below must still
 * find every acknowledged remember.
 * --cpu-prof writes the server's V8 CPU profile (seed included) into <dir>, for docs/benchmarks-mcp.md.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { parseConfig, type SqliteEngine } from "../../src/config/engrama-config";
import { openMemory } from "../../src/nodejs/open-memory";
import { arg as flag } from "./args";
import { connectClient, loadAverage, startServe } from "./serve-process";
import { fmt, percentile, seededRandom, WORDS } from "./stats";
import { processCpuMs } from "./proc-cpu";

const CLIENTS = Number(flag("clients", "8"));
const CALLS = Number(flag("calls", "2000"));
const SEED = Number(flag("seed", "200"));
const EMBEDDER = flag("embedder", "none");
const CPU_PROF = flag("cpu-prof", "");
const KILL9 = Number(flag("kill9", "0"));
const LABELS = ["Project", "Concept", "Technology"] as const;

interface Started {
	url: string;
	token: string;
	/** CPU time the server process used so far (Linux /proc; NaN elsewhere). */
	cpuMs(): number;
	stop(): Promise<void>;
	/** SIGKILL, resolved once the process is gone. */
	kill9(): Promise<void>;
	/** The server's own count of writes and commits (group commit), printed as it stops. */
	commits(): string;
}


async function startLoadServer(db: string): Promise<Started> {
	const serve = await startServe(["--db", db], { EMBEDDING_PROVIDER: EMBEDDER === "hash" ? "hash" : "none", EMBEDDING_DIMENSIONS: "256" }, CPU_PROF ? ["--cpu-prof", "--cpu-prof-dir", CPU_PROF] : []);
	return {
		url: serve.url,
		token: serve.token,
		cpuMs: () => processCpuMs(serve.child.pid),
		stop: async () => {
			serve.child.kill("SIGTERM");
			await serve.exited;
		},
		kill9: async () => {
			serve.child.kill("SIGKILL");
			await serve.exited;
		},
		commits: () => /\((\d+ writes in \d+ commits[^)]*)\)/.exec(serve.stderr())?.[1] ?? "n/a",
	};
}


type Op = "remember" | "search" | "context";


async function main(): Promise<void> {
	const dir = mkdtempSync(join(tmpdir(), "engrama-mcp-load-"));
	const db = join(dir, "memory.db");
	const rand = seededRandom(42);
	const word = () => WORDS[Math.floor(rand() * WORDS.length)];
	const acknowledged = new Map<string, { label: string; summary: string }>();
	const names: { label: string; name: string }[] = [];
	const samples: Record<Op, number[]> = { remember: [], search: [], context: [] };
	let errors = 0;
	let killed = false;
	let failedAfterKill = 0;
	let serverCpuAtKill = Number.NaN;
	const errorSamples: string[] = [];

	const serve = await startLoadServer(db);
	try {
		const clients = await Promise.all(Array.from({ length: CLIENTS }, (_, i) => connectClient(serve.url, serve.token, `load-${i}`)));
		let counter = 0;
		const nextName = () => `${word()} ${word()} ${counter++}`;
		const remember = async (client: Client) => {
			const label = LABELS[Math.floor(rand() * LABELS.length)];
			const name = nextName();
			const summary = `${word()} ${word()} ${word()} ${word()} for ${name}`;
			const result = (await client.callTool({ name: "engrama_remember", arguments: { label, properties: { name, summary, tags: [word()] } } })) as CallToolResult;
			if (!result.isError) {
				acknowledged.set(`${label}|${name}`, { label, summary });
				names.push({ label, name });
			}
			return result;
		};

		// Seed: a graph to search in (not timed).
		const seedStart = performance.now();
		for (let i = 0; i < SEED; i++) await remember(clients[i % CLIENTS]);
		const seedMs = performance.now() - seedStart;

		let issued = 0;
		const serverCpuStart = serve.cpuMs();
		const clientCpuStart = process.cpuUsage();
		const started = performance.now();
		await Promise.all(
			clients.map(async (client) => {
				while (issued < CALLS && !killed) {
					issued++;
					if (KILL9 > 0 && !killed && issued >= CALLS * KILL9) {
						killed = true;
						serverCpuAtKill = serve.cpuMs();
						void serve.kill9();
					}
					const roll = rand();
					const op: Op = roll < 0.4 ? "remember" : roll < 0.8 ? "search" : "context";
					const t0 = performance.now();
					let result: CallToolResult;
					try {
						if (op === "remember") result = await remember(client);
						else if (op === "search") result = (await client.callTool({ name: "engrama_search", arguments: { query: `${word()} ${word()}`, limit: 10 } })) as CallToolResult;
						else {
							const target = names[Math.floor(rand() * names.length)];
							result = (await client.callTool({ name: "engrama_context", arguments: { label: target.label, name: target.name, hops: 2 } })) as CallToolResult;
						}
					} catch (error) {
						result = { isError: true, content: [{ type: "text", text: String(error) }] };
					}
					if (killed && result.isError) {
						failedAfterKill++;
						continue;
					}
					samples[op].push(performance.now() - t0);
					if (result.isError) {
						errors++;
						if (errorSamples.length < 5) errorSamples.push(`${op}: ${result.content.map((c) => (c.type === "text" ? c.text : "")).join(" ").slice(0, 200)}`);
					}
				}
			}),
		);
		const wallMs = performance.now() - started;
		// After a kill the process is gone: its CPU as read just before the kill.
		const serverCpu = (killed ? serverCpuAtKill : serve.cpuMs()) - serverCpuStart;
		const clientUsage = process.cpuUsage(clientCpuStart);
		const clientCpu = (clientUsage.user + clientUsage.system) / 1000;
		await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
		if (killed) await serve.kill9();
		else await serve.stop();

		// Every acknowledged write must be in the file, read back with the server gone.
		const opened = await openMemory(parseConfig({ backend: "sqlite", sqliteEngine: (process.env.ENGRAMA_SQLITE_ENGINE || "auto") as SqliteEngine, dbPath: db }), { embedder: null });
		let missing = 0;
		try {
			for (const [key, expected] of acknowledged) {
				const name = key.slice(key.indexOf("|") + 1);
				const node = await opened.memory.get(opened.scope, expected.label, name);
				if (!node || node.props.summary !== expected.summary) missing++;
			}
		} finally {
			await opened.close();
		}

		const all = [...samples.remember, ...samples.search, ...samples.context];
		const row = (label: string, xs: number[]) => `| ${label} | ${xs.length} | ${fmt(percentile(xs, 50))} | ${fmt(percentile(xs, 95))} | ${fmt(percentile(xs, 99))} |`;
		console.log(`MCP load (serve on SQLite engine ${process.env.ENGRAMA_SQLITE_ENGINE || "auto"}): ${CLIENTS} clients, ${CALLS} calls (40% remember, 40% search, 20% context), embedder ${EMBEDDER}, ${SEED} seeded nodes (${(seedMs / 1000).toFixed(1)} s)`);
		console.log(`Node ${process.version}, ${process.platform}/${process.arch}`);
		console.log("");
		console.log("| operation | calls | p50 | p95 | p99 |");
		console.log("|---|---:|---:|---:|---:|");
		console.log(row("remember", samples.remember));
		console.log(row("search", samples.search));
		console.log(row("context", samples.context));
		console.log(row("all", all));
		console.log("");
		console.log(`throughput: ${(all.length / (wallMs / 1000)).toFixed(0)} calls/s over ${(wallMs / 1000).toFixed(2)} s`);
		console.log(`CPU per call: server ${fmt(serverCpu / all.length)}, clients ${fmt(clientCpu / all.length)} (load average during the run: ${loadAverage()})`);
		console.log(killed ? `killed with SIGKILL after ${issued} calls issued; ${failedAfterKill} calls in flight failed (never acknowledged)` : `group commit (server, seed included): ${serve.commits()}`);
		console.log(`errors: ${errors}${errorSamples.length ? ` (${errorSamples.join(" | ")})` : ""}`);
		console.log(`acknowledged writes: ${acknowledged.size}, missing after ${killed ? "kill -9 and " : ""}restart: ${missing}`);
		if (errors > 0 || missing > 0) process.exitCode = 1;
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

await main();
