#!/usr/bin/env node
// Measures the SQLite WASM file layer: journal modes, single-row commit latency vs database size,
// open time, and what a whole-database export (snapshot mode) would cost instead.
// Usage: node scripts/bench-sqlite-wasm.mjs [--quick] [--journal=TRUNCATE]
import * as esbuild from "esbuild";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL, fileURLToPath } from "node:url";
import { sqliteWasmPlugin } from "../src/backends/sqlite/wasm/esbuild-wasm-plugin.mjs";

const ROOT = resolve(fileURLToPath(import.meta.url), "../..");
const QUICK = process.argv.includes("--quick");
const COMMITS = QUICK ? 60 : 500;
const WARMUP = 50;
const SIZES = QUICK ? [1_000, 10_000] : [1_000, 10_000, 50_000];
const DIM = 384;
// --journal=TRUNCATE re-runs the size table with another journal mode (exclusive locking, FULL sync).
const JOURNAL_FLAG = process.argv.find((a) => a.startsWith("--journal="))?.split("=")[1];

const work = mkdtempSync(join(tmpdir(), "engrama-bench-sqlite-"));

async function bundleLibrary(dir) {
	const wasm = join(ROOT, "src/backends/sqlite/wasm");
	const entry = join(dir, "entry.ts");
	writeFileSync(
		entry,
		[
			`export { loadSqlite } from ${JSON.stringify(join(wasm, "load-sqlite"))};`,
			`export { loadNodeModules } from ${JSON.stringify(join(wasm, "node-modules"))};`,
			`export { openFileDatabase, DEFAULT_JOURNAL } from ${JSON.stringify(join(wasm, "file-database"))};`,
		].join("\n"),
	);
	const outfile = join(dir, "lib.mjs");
	await esbuild.build({ entryPoints: [entry], bundle: true, format: "esm", platform: "node", target: "node20", outfile, plugins: [sqliteWasmPlugin()], logLevel: "error" });
	return import(pathToFileURL(outfile).href);
}

async function openWith(lib, path, journal) {
	const sqlite3 = await lib.loadSqlite();
	const node = await lib.loadNodeModules();
	return lib.openFileDatabase(sqlite3, node, { path }, journal);
}

function percentile(sorted, p) {
	return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
}

function timeCommits(db, insertOne, count) {
	// Warm the page cache first so the figures are steady-state commits, not cold reads.
	for (let i = 0; i < WARMUP; i++) db.transaction(() => insertOne(count + i));
	const times = [];
	for (let i = 0; i < count; i++) {
		const start = performance.now();
		db.transaction(() => insertOne(i));
		times.push(performance.now() - start);
	}
	times.sort((a, b) => a - b);
	return { p50: percentile(times, 50), p95: percentile(times, 95) };
}

const ms = (x) => `${x.toFixed(2)} ms`;
const text = (i) => `note ${i} about graph memory, retrieval, and the vault; ${"lorem ipsum dolor sit amet ".repeat(6)}`;

async function compareJournalModes(lib) {
	const modes = [
		{ journalMode: "DELETE", lockingMode: "NORMAL", synchronous: "FULL" },
		{ journalMode: "DELETE", lockingMode: "EXCLUSIVE", synchronous: "FULL" },
		{ journalMode: "TRUNCATE", lockingMode: "NORMAL", synchronous: "FULL" },
		{ journalMode: "TRUNCATE", lockingMode: "EXCLUSIVE", synchronous: "FULL" },
		{ journalMode: "PERSIST", lockingMode: "EXCLUSIVE", synchronous: "FULL" },
		{ journalMode: "WAL", lockingMode: "EXCLUSIVE", synchronous: "FULL" },
		{ journalMode: "WAL", lockingMode: "EXCLUSIVE", synchronous: "NORMAL" },
	];
	console.log("## Journal modes: single-row INSERT transaction, 1,000-row table\n");
	console.log("| journal_mode | locking_mode | synchronous | p50 | p95 |");
	console.log("|---|---|---|---|---|");
	for (const journal of modes) {
		const path = join(work, `modes-${journal.journalMode}-${journal.lockingMode}-${journal.synchronous}.db`);
		const db = await openWith(lib, path, journal);
		db.exec("CREATE TABLE note (id INTEGER PRIMARY KEY, body TEXT NOT NULL)");
		db.transaction(() => {
			for (let i = 0; i < 1000; i++) db.run("INSERT INTO note (body) VALUES (?)", [text(i)]);
		});
		const { p50, p95 } = timeCommits(db, (i) => db.run("INSERT INTO note (body) VALUES (?)", [text(i)]), COMMITS);
		db.close();
		console.log(`| ${journal.journalMode} | ${journal.lockingMode} | ${journal.synchronous} | ${ms(p50)} | ${ms(p95)} |`);
	}
	console.log("");
}

async function latencyVersusSize(lib) {
	const sqlite3 = await lib.loadSqlite();
	const journal = JOURNAL_FLAG ? { ...lib.DEFAULT_JOURNAL, journalMode: JOURNAL_FLAG } : lib.DEFAULT_JOURNAL;
	console.log(`## ${JOURNAL_FLAG ? "Override" : "Default settings"} (${JSON.stringify(journal)}) vs database size\n`);
	console.log(`Rows: a note (≈200 B text) + FTS5 row + vec0 ${DIM}-d float vector. One commit = one note in all three.\n`);
	console.log("| rows | file size | commit p50 | commit p95 | open (of which quick_check) | whole-db export (snapshot mode) |");
	console.log("|---|---|---|---|---|---|");
	const vector = (i) => {
		const v = new Float32Array(DIM);
		for (let d = 0; d < DIM; d++) v[d] = Math.sin(i * 0.37 + d);
		return new Uint8Array(v.buffer);
	};
	for (const rows of SIZES) {
		const path = join(work, `size-${rows}.db`);
		let db = await openWith(lib, path, journal);
		db.exec(`
			CREATE TABLE note (id INTEGER PRIMARY KEY, body TEXT NOT NULL);
			CREATE VIRTUAL TABLE note_fts USING fts5(body, content='note', content_rowid='id');
			CREATE VIRTUAL TABLE note_vec USING vec0(embedding float[${DIM}] distance_metric=cosine);
		`);
		const insert = (i) => {
			const { lastInsertRowid } = db.run("INSERT INTO note (body) VALUES (?)", [text(i)]);
			db.run("INSERT INTO note_fts (rowid, body) VALUES (?, ?)", [lastInsertRowid, text(i)]);
			db.run("INSERT INTO note_vec (rowid, embedding) VALUES (?, ?)", [lastInsertRowid, vector(i)]);
		};
		for (let start = 0; start < rows; start += 5000) {
			db.transaction(() => {
				for (let i = start; i < Math.min(rows, start + 5000); i++) insert(i);
			});
		}
		db.close();
		const openStart = performance.now();
		db = await openWith(lib, path, journal);
		const openMs = performance.now() - openStart;
		const checkStart = performance.now();
		db.all("PRAGMA quick_check(1)");
		const checkMs = performance.now() - checkStart;
		const { p50, p95 } = timeCommits(db, (i) => insert(rows + i), COMMITS);
		db.close();
		const exportMs = timeExport(sqlite3, path);
		const mb = (statSync(path).size / 1e6).toFixed(1);
		console.log(`| ${rows.toLocaleString("en")} | ${mb} MB | ${ms(p50)} | ${ms(p95)} | ${ms(openMs)} (${ms(checkMs)}) | ${ms(exportMs)} |`);
	}
	console.log("");
}

/** Snapshot mode's cost per export at this size: load a copy into memory, then time the export. */
function timeExport(sqlite3, path) {
	const { capi, wasm } = sqlite3;
	const bytes = readFileSync(path);
	// A cleanly closed WAL database is fully checkpointed; marking its header as rollback-journal
	// (what `PRAGMA journal_mode=DELETE` writes) lets the in-memory VFS load it.
	bytes[18] = 1;
	bytes[19] = 1;
	const db = new sqlite3.oo1.DB(":memory:", "c");
	const pointer = capi.sqlite3_malloc(bytes.length);
	wasm.heap8u().set(bytes, pointer);
	const flags = capi.SQLITE_DESERIALIZE_FREEONCLOSE | capi.SQLITE_DESERIALIZE_RESIZEABLE;
	const rc = capi.sqlite3_deserialize(db, "main", pointer, bytes.length, bytes.length, flags);
	if (rc) throw new Error(`deserialize failed: ${rc}`);
	db.exec("INSERT INTO note (body) VALUES ('x')");
	const start = performance.now();
	capi.sqlite3_js_db_export(db);
	const elapsed = performance.now() - start;
	db.close();
	return elapsed;
}

try {
	const lib = await bundleLibrary(work);
	console.log(`# SQLite WASM file layer benchmark (node ${process.version}, ${COMMITS} commits per case)\n`);
	const initStart = performance.now();
	await lib.loadSqlite();
	console.log(`loadSqlite() (WASM compile + API init, bytes inlined by the esbuild plugin): ${ms(performance.now() - initStart)}\n`);
	await compareJournalModes(lib);
	await latencyVersusSize(lib);
} finally {
	rmSync(work, { recursive: true, force: true });
}
