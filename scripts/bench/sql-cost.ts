/**
 * CPU time per SQL statement on each SQLite engine for one workload (remember + search + context),
 * same memory file: which statements a native/WASM difference comes from.
 *
 *   npm run bench -- sql-cost [--nodes 3000] [--searches 100]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SqliteGraphStore } from "../../src/backends/sqlite/sqlite-graph-store";
import type { SqliteConnection } from "../../src/backends/sqlite/sqlite-connection";
import { parseConfig, type SqliteEngine } from "../../src/config/engrama-config";
import { HashEmbeddingProvider } from "../../src/engine/embedding/hash-embedding-provider";
import { openMemory } from "../../src/nodejs/open-memory";
import { arg } from "./args";

const NODES = Number(arg("nodes", "3000"));
const SEARCHES = Number(arg("searches", "100"));
const WORDS = ["billing", "invoice", "queue", "consumer", "lag", "retry", "payment", "token", "refresh", "cache", "index", "search", "graph", "memory", "vault", "note"];
const pick = (i: number, n: number) => Array.from({ length: n }, (_, k) => WORDS[(i * 7 + k * 13) % WORDS.length]).join(" ");

function instrument(conn: SqliteConnection, costs: Map<string, { ms: number; n: number }>): void {
	for (const method of ["run", "all", "get", "exec"] as const) {
		const original = (conn[method] as (...a: unknown[]) => unknown).bind(conn);
		(conn as unknown as Record<string, unknown>)[method] = (sql: string, ...rest: unknown[]) => {
			const c0 = process.cpuUsage();
			try {
				return original(sql, ...rest);
			} finally {
				const d = process.cpuUsage(c0);
				const key = sql.replace(/\s+/g, " ").slice(0, 110);
				const entry = costs.get(key) ?? { ms: 0, n: 0 };
				entry.ms += (d.user + d.system) / 1000;
				entry.n++;
				costs.set(key, entry);
			}
		};
	}
}

const dir = mkdtempSync(join(tmpdir(), "engrama-sql-cost-"));
const db = join(dir, "m.db");
for (const engine of ["native", "wasm", "native", "wasm"] as SqliteEngine[]) {
	const opened = await openMemory(parseConfig({ backend: "sqlite", sqliteEngine: engine, dbPath: db, orgId: "b", userId: "b" }), { embedder: new HashEmbeddingProvider(256) });
	const { memory, scope } = opened;
	const ctx = { scope, source: "cli" as const };
	const existing = Number(((memory.graph as SqliteGraphStore).connection().get<{ n: number }>("SELECT count(*) AS n FROM nodes")?.n) ?? 0);
	if (existing === 0) {
		for (let start = 0; start < NODES; start += 500) {
			await memory.pipeline.transaction(async () => {
				for (let i = start; i < Math.min(NODES, start + 500); i++) await memory.remember(ctx, { label: "Concept", key: `Concept ${i} ${pick(i, 2)}`, props: { description: pick(i, 12) } });
			});
		}
	}
	const costs = new Map<string, { ms: number; n: number }>();
	instrument((memory.graph as SqliteGraphStore).connection(), costs);
	const c0 = process.cpuUsage();
	for (let i = 0; i < SEARCHES; i++) {
		await memory.search(scope, pick(i + 1000, 3), { limit: 10 });
		await memory.remember(ctx, { label: "Concept", key: `Extra ${engine} ${i} ${Date.now()}`, props: { description: pick(i, 8) } });
	}
	const d = process.cpuUsage(c0);
	const total = (d.user + d.system) / 1000;
	const sql = [...costs.values()].reduce((a, b) => a + b.ms, 0);
	console.log(`\n${engine}: ${SEARCHES} searches + remembers, ${total.toFixed(0)} ms CPU, SQL ${sql.toFixed(0)} ms`);
	for (const [k, v] of [...costs.entries()].sort((a, b) => b[1].ms - a[1].ms).slice(0, 8)) console.log(`  ${v.ms.toFixed(1).padStart(8)} ms ${String(v.n).padStart(5)}x  ${k}`);
	await opened.close();
}
rmSync(dir, { recursive: true, force: true });
