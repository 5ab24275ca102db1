#!/usr/bin/env node
// Vault → graph sync benchmark on synthetic vaults (scripts/bench/generate-vault.mjs), SQLite
// backend, no embeddings. Measures per size: the floor (list + read + parse frontmatter of every
// note), a cold full sync of a vault without ids (writes engrama_id into every note), a rebuild
// (fresh database over the synced vault), an unchanged re-sync, one modified note (p50/p95 of
// syncPaths), and peak RSS.
// syncPaths), peak RSS, and the rebuilt database's bytes (file and per table/index, SQLite dbstat).
// Usage: node scripts/bench/sync-bench.mjs [--sizes 1000,10000] [--edits 40] [--keep] [--standalone]
import { execFileSync } from "node:child_process";
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, arg, generateVault, loadSyncBenchLib } from "./sync-bench-loader.mjs";

const SIZES = arg("sizes", "1000,10000").split(",").map(Number);
const EDITS = Number(arg("edits", "40"));
const KEEP = process.argv.includes("--keep");
// --ids-in-vault: generate notes that already carry engrama_id and measure only the sync of that
// vault into a fresh database (the rebuild), the unchanged re-sync and the one-note edits. For
// large sizes, where the id-writing cold sync plus a rebuild would take too long on 2 cores.
const IDS_IN_VAULT = process.argv.includes("--ids-in-vault");
// --standalone: sync under a real install's scope shape ("standalone", "local-<uuid>") instead of
// "bench"/"bench"; the scope strings are repeated in rows, so the database's size depends on them.
const STANDALONE = process.argv.includes("--standalone");

const outDir = join(ROOT, ".test-out");
mkdirSync(outDir, { recursive: true });
const lib = await loadSyncBenchLib(ROOT, "sync-bench");
const SCOPE = STANDALONE ? lib.STANDALONE_SCOPE : undefined;
const openSync = (vault, db) => lib.openSync(vault, db, {}, SCOPE);

let peak = 0;
const sampler = setInterval(() => {
	peak = Math.max(peak, process.memoryUsage().rss);
}, 20);
const mb = (b) => Math.round(b / 1024 / 1024);
const ms = (t) => Math.round(t);
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];

// Wall time and this process's CPU time (user + system): on a shared, busy machine the CPU time
// is the steadier figure; both are reported.
async function timed(fn) {
	const cpu = process.cpuUsage();
	const start = performance.now();
	const result = await fn();
	const used = process.cpuUsage(cpu);
	return { ms: performance.now() - start, cpuMs: (used.user + used.system) / 1000, result };
}

// Warm-up: JIT-compile the parser, yaml and the SQLite paths on a small vault first, so the
// first measured size is not charged for it.
{
	const work = mkdtempSync(join(tmpdir(), "engrama-sync-bench-warmup-"));
	const vault = join(work, "vault");
	generateVault(300, vault, ["--seed", "7"]);
	for (let i = 0; i < 3; i++) await lib.floor(vault);
	const w = await lib.openSync(vault, join(work, "w.db"));
	await w.sync.fullSync();
	await w.sync.fullSync();
	await w.close();
	rmSync(work, { recursive: true, force: true });
}

/** The floor, best of three (the page cache is warm after the first). */
async function floorBest(vault) {
	let best;
	for (let i = 0; i < 3; i++) {
		const t = await timed(() => lib.floor(vault));
		if (!best || t.cpuMs < best.cpuMs) best = t;
	}
	return best;
}


/** One modified note: append a sentence and a new link; time syncPaths (read, parse, graph update). */
async function editTimes(a, vault, row) {
	const files = (await a.source.list()).filter((f) => f.path.startsWith("Projects/") || f.path.startsWith("Problems/"));
	const times = [];
	const cpuTimes = [];
	for (let i = 0; i < EDITS; i++) {
		const f = files[(i * 7) % files.length];
		const abs = join(vault, f.path);
		appendFileSync(abs, `\nEdit ${i}: see [[${files[(i * 13) % files.length].path.split("/").pop().slice(0, -3)}]]. #edited\n`);
		const t = await timed(() => a.sync.syncPaths([f.path]));
		if (t.result.counts.nodesUpdated !== 1) throw new Error(`edit ${i} did not update one node: ${JSON.stringify(t.result.counts)}`);
		times.push(t.ms);
		cpuTimes.push(t.cpuMs);
	}
	times.sort((x, y) => x - y);
	cpuTimes.sort((x, y) => x - y);
	row.oneNoteCpuP50Ms = Math.round(pct(cpuTimes, 50) * 10) / 10;
	row.oneNoteCpuP95Ms = Math.round(pct(cpuTimes, 95) * 10) / 10;
	row.oneNoteP50Ms = Math.round(pct(times, 50) * 10) / 10;
	row.oneNoteP95Ms = Math.round(pct(times, 95) * 10) / 10;
}

/** The rebuilt database's bytes (after a checkpoint) against the vault's, and per table/index. */
async function databaseBytes(vault, db, row) {
	const { file, objects } = await lib.dbBytes(db);
	const vaultBytes = Number(execFileSync("du", ["-sb", vault]).toString().split("\t")[0]);
	const mb1 = (b) => Math.round(b / 1e5) / 10;
	row.vaultMB = mb1(vaultBytes);
	row.dbMB = mb1(file);
	row.ratioDbToVault = Math.round((file / vaultBytes) * 100) / 100;
	row.dbObjectsMB = Object.fromEntries(Object.entries(objects).filter(([, b]) => b >= 1e5).map(([name, b]) => [name, mb1(b)]));
}

const results = [];
for (const size of SIZES) {
	const work = mkdtempSync(join(tmpdir(), `engrama-sync-bench-${size}-`));
	const vault = join(work, "vault");
	generateVault(size, vault, IDS_IN_VAULT ? ["--with-ids"] : []);
	const row = { notes: size, engine: lib.ENGINE, idsInVault: IDS_IN_VAULT };
	if (IDS_IN_VAULT) {
		const fl = await floorBest(vault);
		row.floorMs = ms(fl.ms);
		row.floorCpuMs = ms(fl.cpuMs);
		peak = process.memoryUsage().rss;
		const b = await openSync(vault, join(work, "b.db"));
		const rebuild = await timed(() => b.sync.fullSync());
		row.rebuildMs = ms(rebuild.ms);
		row.rebuildCpuMs = ms(rebuild.cpuMs);
		row.rebuildNotesPerS = Math.round(size / (rebuild.ms / 1000));
		row.rebuildTimings = rebuild.result.timings;
		row.counts = rebuild.result.counts;
		row.rebuildIdsWritten = rebuild.result.idsWritten.length;
		row.peakRssRebuildMb = mb(peak);
		const again = await timed(() => b.sync.fullSync());
		row.unchangedResyncMs = ms(again.ms);
		row.unchangedResyncCpuMs = ms(again.cpuMs);
		await editTimes(b, vault, row);
		await b.close();
		await databaseBytes(vault, join(work, "b.db"), row);
		const ratio = (x, y) => Math.round((x / y) * 100) / 100;
		row.ratioRebuildToFloor = ratio(rebuild.ms, fl.ms);
		row.ratioRebuildToFloorCpu = ratio(rebuild.cpuMs, fl.cpuMs);
		row.ratioUnchangedToFloor = ratio(again.ms, fl.ms);
		row.ratioUnchangedToFloorCpu = ratio(again.cpuMs, fl.cpuMs);
		row.loadAverage = (await import("node:os")).loadavg().map((x) => Math.round(x * 10) / 10);
		results.push(row);
		process.stdout.write(`${JSON.stringify(row)}\n`);
		if (!KEEP) rmSync(work, { recursive: true, force: true });
		continue;
	}

	const fl = await floorBest(vault);
	row.floorMs = ms(fl.ms);
	row.floorCpuMs = ms(fl.cpuMs);

	peak = process.memoryUsage().rss;
	const a = await openSync(vault, join(work, "a.db"));
	const cold = await timed(() => a.sync.fullSync());
	row.coldWithIdWritesMs = ms(cold.ms);
	row.coldWithIdWritesCpuMs = ms(cold.cpuMs);
	row.coldNotesPerS = Math.round(size / (cold.ms / 1000));
	row.coldTimings = cold.result.timings;
	row.counts = cold.result.counts;
	row.idsWritten = cold.result.idsWritten.length;
	row.problems = cold.result.problems.length;
	row.peakRssColdMb = mb(peak);

	const again = await timed(() => a.sync.fullSync());
	row.unchangedResyncMs = ms(again.ms);
	row.unchangedResyncCpuMs = ms(again.cpuMs);
	row.unchangedResyncTimings = again.result.timings;
	row.unchangedChanged = again.result.counts.nodesUpdated + again.result.counts.nodesCreated;

	await editTimes(a, vault, row);
	await a.close();

	// Rebuild: a fresh database pointed at the synced vault (every note now has its engrama_id).
	const flAfter = await floorBest(vault);
	row.floorAfterIdsMs = ms(flAfter.ms);
	row.floorAfterIdsCpuMs = ms(flAfter.cpuMs);
	peak = process.memoryUsage().rss;
	const b = await openSync(vault, join(work, "b.db"));
	const rebuild = await timed(() => b.sync.fullSync());
	row.rebuildMs = ms(rebuild.ms);
	row.rebuildCpuMs = ms(rebuild.cpuMs);
	row.rebuildNotesPerS = Math.round(size / (rebuild.ms / 1000));
	row.rebuildTimings = rebuild.result.timings;
	row.rebuildIdsWritten = rebuild.result.idsWritten.length;
	row.peakRssRebuildMb = mb(peak);
	const unchanged = await timed(() => b.sync.fullSync());
	row.rebuildThenUnchangedMs = ms(unchanged.ms);
	row.rebuildThenUnchangedCpuMs = ms(unchanged.cpuMs);
	await b.close();
	await databaseBytes(vault, join(work, "b.db"), row);

	const ratio = (a, b) => Math.round((a / b) * 100) / 100;
	row.ratioRebuildToFloor = ratio(rebuild.ms, flAfter.ms);
	row.ratioRebuildToFloorCpu = ratio(rebuild.cpuMs, flAfter.cpuMs);
	row.ratioColdToFloor = ratio(cold.ms, fl.ms);
	row.ratioColdToFloorCpu = ratio(cold.cpuMs, fl.cpuMs);
	row.ratioUnchangedToFloor = ratio(again.ms, fl.ms);
	row.ratioUnchangedToFloorCpu = ratio(again.cpuMs, fl.cpuMs);
	row.loadAverage = (await import("node:os")).loadavg().map((x) => Math.round(x * 10) / 10);
	results.push(row);
	process.stdout.write(`${JSON.stringify(row)}\n`);
	if (!KEEP) rmSync(work, { recursive: true, force: true });
}
clearInterval(sampler);
writeFileSync(join(outDir, "sync-bench-results.json"), JSON.stringify({ node: process.version, cpus: (await import("node:os")).cpus().length, results }, null, 2));
