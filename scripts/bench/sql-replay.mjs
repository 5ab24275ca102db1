#!/usr/bin/env node
// What the rows of a synced vault cost SQLite by itself, next to the sync and its floor: syncs a
// generated vault (ids present, fresh database), then copies the rows it wrote into a fresh
// database with INSERT … SELECT from the attached file, batched like sync, no engine code: in WASM
// (the engine's SQLite) and, when python3 is installed, in native SQLite (sql-replay-native.py).
// Usage: node scripts/bench/sql-replay.mjs [--notes 10000] [--vault DIR (reuse a generated vault)]
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, arg, generateVault, loadSyncBenchLib } from "./sync-bench-loader.mjs";

const NOTES = Number(arg("notes", "10000"));
const lib = await loadSyncBenchLib(ROOT, "sql-replay");
const work = mkdtempSync(join(tmpdir(), "engrama-sql-replay-"));
const cpu = (f) => async () => {
	const c = process.cpuUsage();
	const r = await f();
	const u = process.cpuUsage(c);
	return { ...r, cpuMs: r?.cpuMs ?? Math.round((u.user + u.system) / 1000) };
};
try {
	// Warm-up on 300 notes, as the other sync benchmarks do: WASM compile and JIT out of the figures.
	const warm = join(work, "warm");
	generateVault(300, warm, ["--seed", "7", "--with-ids"]);
	for (let i = 0; i < 3; i++) await lib.floor(warm);
	const w = await lib.openSync(warm, join(work, "warm.db"));
	await w.sync.fullSync();
	await w.close();
	await lib.replayRows(join(work, "warm.db"), join(work, "warm-copy.db"));

	let vault = arg("vault", undefined);
	if (!vault || !existsSync(vault)) {
		vault = vault ?? join(work, "vault");
		generateVault(NOTES, vault, ["--with-ids"]);
	}
	const synced = join(work, "synced.db");
	const floor = await cpu(() => lib.floor(vault))();
	const sync = await cpu(async () => {
		const s = await lib.openSync(vault, synced);
		const report = await s.sync.fullSync();
		await s.close();
		return { graphMs: report.timings.graphMs, readMs: report.timings.readMs };
	})();
	const wasm = await lib.replayRows(synced, join(work, "wasm.db"));
	let native = null;
	try {
		native = JSON.parse(execFileSync("python3", [join(ROOT, "scripts/bench/sql-replay-native.py"), synced, join(work, "native.db")], { encoding: "utf8" }));
	} catch (error) {
		native = { skipped: `python3 replay did not run: ${error.message.split("\n")[0]}` };
	}
	process.stdout.write(`${JSON.stringify({ notes: NOTES, floorCpuMs: floor.cpuMs, syncCpuMs: sync.cpuMs, sync, wasmReplay: wasm, nativeReplay: native })}\n`);
} finally {
	rmSync(work, { recursive: true, force: true });
}
