/**
 * A lone writer through the engine (no concurrency): N sequential `Memory.remember` calls on a
 * fresh SQLite file, each its own acknowledged (fsynced) commit. Prints wall and CPU per write:
 * group commit must not slow this path down.
 *
 *   npm run bench -- lone-writer [--writes 300]
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseConfig } from "../../src/config/engrama-config";
import { openMemory } from "../../src/nodejs/open-memory";
import { arg } from "./args";

const N = Number(arg("writes", "300"));
const dir = mkdtempSync(join(tmpdir(), "engrama-lone-writer-"));
try {
	const opened = await openMemory(parseConfig({ backend: "sqlite", dbPath: join(dir, "memory.db"), profile: "base" }), { embedder: null });
	const ctx = { scope: opened.scope, source: "cli" as const };
	for (let i = 0; i < 50; i++) await opened.memory.remember(ctx, { label: "Concept", key: `Warm ${i}`, props: { summary: "warm up" } });
	const cpu = process.cpuUsage();
	const started = performance.now();
	for (let i = 0; i < N; i++) await opened.memory.remember(ctx, { label: "Concept", key: `Lone ${i}`, props: { summary: `lone writer ${i}` } });
	const used = process.cpuUsage(cpu);
	const wall = performance.now() - started;
	await opened.close();
	const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
	console.log(`lone writer: ${N} remembers, ${(wall / N).toFixed(2)} ms wall and ${((used.user + used.system) / 1000 / N).toFixed(2)} ms CPU per write (load ${load})`);
} finally {
	rmSync(dir, { recursive: true, force: true });
}
