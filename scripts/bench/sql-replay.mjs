#!/usr/bin/env node
// What the rows of a synced vault cost SQLite by itself, next to the sync and its floor: syncs a
// generated vault (ids present, fresh database), then copies the rows it wrote into a fresh
// database with one prepared statement per row and no engine code, in WASM (the engine's SQLite)
// and, when python3 is installed, in native SQLite (scripts/bench/sql-replay-native.py).
// Usage: node scripts/bench/sql-replay.mjs [--notes 10000] [--vault DIR (reuse a generated vault)]
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { loadSyncBenchLib } from "./sync-bench-loader.mjs";

const ROOT = resolve(fileURLToPath(import.meta.url), "../../..");
const arg = (name, fallback) => {
	const i = process.argv.indexOf(`--${name}`);
	return i >= 0 ? process.argv[i + 1] : fallback;
};
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
	let vault = arg("vault", undefined);
	if (!vault || !existsSync(vault)) {
		vault = vault ?? join(work, "vault");
		execFileSync(process.execPath, [join(ROOT, "scripts/bench/generate-vault.mjs"), "--notes", String(NOTES), "--out", vault, "--with-ids"]);
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
