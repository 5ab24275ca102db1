// What an open of a big memory costs with and without `PRAGMA quick_check`: the file is built once
// (a note, its FTS5 row and a 384-d vec0 vector per row, the shape of scripts/bench-sqlite-wasm.mjs),
// then opened on each engine `--runs` times in each mode, interleaved (full, stamped, stamped, full…):
// "full" removes `<db>.engrama-checked` first, so the open runs quick_check as every open did before
// the stamp; "stamped" opens the file as the last clean close left it. Process CPU (user + system)
// of the open, of a first search after it (the pages quick_check would have brought into SQLite's
// cache), and of the close (which now stats the file and reads two pages for the stamp).
// `snapshot` is the mobile path (the whole file in memory through SnapshotStorage): "full" removes the
// snapshot's stamp, "stamped" keeps the one its last export wrote; its CPU includes the SHA-256, which
// WebCrypto computes off the main thread.
// With `snapshot`, also what a snapshot's export after one write costs with the stamp (removed,
// then the bytes hashed and the new one written) and without it (a storage with no stamp methods,
// as before the stamp), interleaved: process CPU from the flush() call until it resolves.
// Usage: npm run bench -- open-check [--rows 50000] [--runs 5] [--engines wasm,native,snapshot] [--keep <dir>]
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { openNativeDatabase } from "../../src/backends/sqlite/native/open-native";
import { openDatabase } from "../../src/backends/sqlite/wasm/open-database";
import { checkStampPath } from "../../src/backends/sqlite/wasm/check-stamp";
import type { SnapshotStorage, SqliteConnection } from "../../src/backends/sqlite/sqlite-connection";
import { arg } from "./args";
import { seededRandom, sentence } from "./stats";

const rows = Number(arg("rows", "50000"));
const runs = Number(arg("runs", "5"));
const engines = arg("engines", "wasm,native,snapshot").split(",");
const keep = arg("keep", "");
const DIM = 384;
const dir = keep || mkdtempSync(join(tmpdir(), "engrama-open-check-"));
mkdirSync(dir, { recursive: true });
const path = join(dir, `open-check-${rows}.db`);

/** The mobile storage, in memory: the file's bytes, then whatever the snapshot's exports write. */
const snapshot: SnapshotStorage & { bytes: Uint8Array | null; stamp: string | null } = {
	bytes: null,
	stamp: null,
	read: () => Promise.resolve(snapshot.bytes),
	write: (bytes) => Promise.resolve(void (snapshot.bytes = bytes)),
	readStamp: () => Promise.resolve(snapshot.stamp),
	writeStamp: (stamp) => Promise.resolve(void (snapshot.stamp = stamp)),
};

const open = (engine: string): Promise<SqliteConnection> =>
	engine === "native"
		? openNativeDatabase({ path }).then((opened) => opened.conn)
		: openDatabase(engine === "snapshot" ? { path, snapshot, snapshotDebounceMs: 60_000 } : { path });

/** The file as a snapshot: an in-memory database has no WAL, so the header says rollback journal (bytes 18-19), as `journal_mode=DELETE` would. */
async function loadSnapshot(): Promise<void> {
	const bytes = new Uint8Array(readFileSync(path));
	bytes[18] = 1;
	bytes[19] = 1;
	snapshot.bytes = bytes;
	const db = await open("snapshot");
	db.exec("CREATE TABLE IF NOT EXISTS touched (x)");
	await db.flush();
	db.close();
}

const stampExists = (engine: string) => (engine === "snapshot" ? snapshot.stamp !== null : existsSync(checkStampPath(path)));

async function build(): Promise<void> {
	const db = await open("native");
	db.exec(`
		CREATE TABLE note (id INTEGER PRIMARY KEY, body TEXT NOT NULL);
		CREATE VIRTUAL TABLE note_fts USING fts5(body, content='note', content_rowid='id');
		CREATE VIRTUAL TABLE note_vec USING vec0(embedding float[${DIM}] distance_metric=cosine);
	`);
	const rand = seededRandom(rows);
	for (let start = 0; start < rows; start += 1000) {
		db.transaction(() => {
			for (let i = start; i < Math.min(rows, start + 1000); i++) {
				const body = sentence(rand, 30);
				const vector = new Float32Array(DIM).map(() => rand() - 0.5);
				const { lastInsertRowid } = db.run("INSERT INTO note (body) VALUES (?)", [body]);
				db.run("INSERT INTO note_fts (rowid, body) VALUES (?, ?)", [lastInsertRowid, body]);
				db.run("INSERT INTO note_vec (rowid, embedding) VALUES (?, ?)", [lastInsertRowid, new Uint8Array(vector.buffer)]);
			}
		});
	}
	db.close();
}

const cpuMs = (since: NodeJS.CpuUsage) => {
	const { user, system } = process.cpuUsage(since);
	return (user + system) / 1000;
};

async function measure(engine: string, mode: "full" | "stamped"): Promise<{ open: number; search: number; close: number }> {
	const stamp = snapshot.stamp;
	if (mode === "full") {
		if (engine === "snapshot") snapshot.stamp = null;
		else rmSync(checkStampPath(path), { force: true });
	} else if (!stampExists(engine)) throw new Error("no stamp after the last clean close");
	let start = process.cpuUsage();
	const db = await open(engine);
	const openMs = cpuMs(start);
	start = process.cpuUsage();
	db.all("SELECT rowid FROM note_fts WHERE note_fts MATCH 'memory' ORDER BY rank LIMIT 20");
	const searchMs = cpuMs(start);
	start = process.cpuUsage();
	db.close();
	const closeMs = cpuMs(start);
	// A snapshot's close only starts its export; nothing was written, so the stamp is put back.
	if (engine === "snapshot") snapshot.stamp = stamp;
	return { open: openMs, search: searchMs, close: closeMs };
}

/** One write, then flush(): the export, with or without the stamp's work. */
async function exportCost(stamping: boolean): Promise<number> {
	const plain: SnapshotStorage = { read: () => snapshot.read(), write: (bytes) => snapshot.write(bytes) };
	const db = await openDatabase({ path, snapshot: stamping ? snapshot : plain, snapshotDebounceMs: 60_000 });
	db.run("INSERT INTO note (body) VALUES ('one more')");
	const start = process.cpuUsage();
	await db.flush();
	const ms = cpuMs(start);
	db.close();
	return ms;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const fmt = (values: number[]) => `${median(values).toFixed(1)} (${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)})`;

if (!existsSync(path)) await build();
console.log(`${rows} rows, ${(statSync(path).size / 1e6).toFixed(1)} MB at ${path}; load ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
for (const engine of engines) {
	// Warm-up: compiles the WASM (first open only) and leaves the stamp of a clean close.
	if (engine === "snapshot") await loadSnapshot();
	else (await open(engine)).close();
	const results = { full: [] as Awaited<ReturnType<typeof measure>>[], stamped: [] as Awaited<ReturnType<typeof measure>>[] };
	for (let run = 0; run < runs; run++) {
		const order = run % 2 === 0 ? (["full", "stamped"] as const) : (["stamped", "full"] as const);
		for (const mode of order) results[mode].push(await measure(engine, mode));
	}
	console.log(`\n${engine}: CPU ms, median (min–max) of ${runs}`);
	console.log("| mode | open | first search | close |\n|---|---:|---:|---:|");
	for (const mode of ["full", "stamped"] as const) {
		const r = results[mode];
		console.log(`| ${mode} | ${fmt(r.map((x) => x.open))} | ${fmt(r.map((x) => x.search))} | ${fmt(r.map((x) => x.close))} |`);
	}
	if (engine !== "snapshot") continue;
	const exports = { plain: [] as number[], stamped: [] as number[] };
	for (let run = 0; run < runs; run++) {
		const order = run % 2 === 0 ? [false, true] : [true, false];
		for (const stamping of order) exports[stamping ? "stamped" : "plain"].push(await exportCost(stamping));
	}
	console.log(`
snapshot export after one write, CPU ms: without a stamp ${fmt(exports.plain)}, with ${fmt(exports.stamped)}`);
}
console.log(`\nload at the end ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
if (!keep) rmSync(dir, { recursive: true, force: true });
