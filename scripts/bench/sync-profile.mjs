#!/usr/bin/env node
// Profiles one vault → graph sync on a synthetic vault: bundles scripts/bench/sync-bench-lib.ts
// (like sync-bench.mjs), warms up on 300 notes, then runs the measured sync. Run it under
// `node --cpu-prof --cpu-prof-dir=DIR` to get a V8 CPU profile of the whole process; the script
// prints CPU and wall time of the measured phase.
// Usage: node [--cpu-prof --cpu-prof-dir=DIR] scripts/bench/sync-profile.mjs --notes 10000
//          [--mode rebuild|cold|parse] [--vault DIR (reuse a generated vault)] [--batch N (sync batchSize)]
//   rebuild: vault generated with ids, fresh database (nothing written to the vault)
//   cold:    vault without ids, fresh database (engrama_id written into every note)
//   parse:   only read and fully parse every note (parseNote), no graph
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, arg, generateVault, loadSyncBenchLib } from "./sync-bench-loader.mjs";

const NOTES = Number(arg("notes", "10000"));
const MODE = arg("mode", "rebuild");
const lib = await loadSyncBenchLib(ROOT, "sync-profile");

const work = mkdtempSync(join(tmpdir(), "engrama-sync-profile-"));
const gen = generateVault;
{
	const warm = join(work, "warm");
	gen(300, warm, ["--seed", "7"]);
	for (let i = 0; i < 3; i++) await lib.floor(warm);
	await lib.parseAll(warm);
	const w = await lib.openSync(warm, join(work, "w.db"));
	await w.sync.fullSync();
	await w.sync.fullSync();
	await w.close();
}
let vault = arg("vault", undefined);
if (!vault || !existsSync(vault)) {
	const target = vault ?? join(work, "vault");
	gen(NOTES, target, MODE === "rebuild" || MODE === "parse" ? ["--with-ids"] : []);
	vault = target;
}
const cpu0 = process.cpuUsage();
const t0 = performance.now();
let result;
if (MODE === "parse") result = await lib.parseAll(vault);
else {
	const s = await lib.openSync(vault, join(work, "p.db"), arg("batch") ? { batchSize: Number(arg("batch")) } : {});
	const report = await s.sync.fullSync();
	result = { counts: report.counts, timings: report.timings, problems: report.problems.length };
	await s.close();
}
const used = process.cpuUsage(cpu0);
const floorCpu = process.cpuUsage();
await lib.floor(vault);
const floorUsed = process.cpuUsage(floorCpu);
const os = await import("node:os");
process.stdout.write(
	`${JSON.stringify({ mode: MODE, notes: NOTES, cpuMs: Math.round((used.user + used.system) / 1000), userMs: Math.round(used.user / 1000), systemMs: Math.round(used.system / 1000), wallMs: Math.round(performance.now() - t0), floorCpuMs: Math.round((floorUsed.user + floorUsed.system) / 1000), result, load: os.loadavg().map((x) => Math.round(x * 10) / 10) })}\n`,
);
rmSync(work, { recursive: true, force: true });
