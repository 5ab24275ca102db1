import { describe, expect, it } from "vitest";
import { openDatabase } from "../../../../src/backends/sqlite/wasm/open-database";
import type { SnapshotStorage } from "../../../../src/backends/sqlite/sqlite-connection";
import { DatabaseFileError } from "../../../../src/backends/sqlite/wasm/errors";
import { vectorBytes } from "./vectors";

/** A real in-memory SnapshotStorage, standing in for a file written through Obsidian's adapter. */
class MemorySnapshotStorage implements SnapshotStorage {
	bytes: Uint8Array | null = null;
	writes = 0;
	async read(): Promise<Uint8Array | null> {
		return this.bytes;
	}
	async write(bytes: Uint8Array): Promise<void> {
		this.writes++;
		this.bytes = bytes.slice();
	}
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("snapshot databases (no file system)", () => {
	it("starts empty, persists on flush and reloads from the snapshot", async () => {
		const storage = new MemorySnapshotStorage();
		let db = await openDatabase({ path: "vault/.engrama/index.db", snapshot: storage });
		db.exec("CREATE TABLE note (id INTEGER PRIMARY KEY, title TEXT); CREATE VIRTUAL TABLE note_vec USING vec0(e float[2])");
		db.run("INSERT INTO note (title) VALUES ('kept')");
		db.run("INSERT INTO note_vec (rowid, e) VALUES (1, ?)", [vectorBytes([1, 0])]);
		await db.flush();
		db.close();
		expect(storage.bytes?.length).toBeGreaterThan(0);

		db = await openDatabase({ path: "vault/.engrama/index.db", snapshot: storage });
		expect(db.all("SELECT title FROM note")).toEqual([{ title: "kept" }]);
		expect(db.all("SELECT rowid FROM note_vec WHERE e MATCH ? AND k = 1", [vectorBytes([1, 0])])).toEqual([{ rowid: 1 }]);
		db.close();
	});

	it("exports once per burst of writes, after the debounce interval", async () => {
		const storage = new MemorySnapshotStorage();
		const db = await openDatabase({ path: "index.db", snapshot: storage, snapshotDebounceMs: 20 });
		db.exec("CREATE TABLE t (x)");
		for (let i = 0; i < 50; i++) db.run("INSERT INTO t VALUES (?)", [i]);
		expect(storage.writes).toBe(0);
		// Waits for the export instead of a fixed sleep (timers run late on a busy machine).
		for (let waited = 0; storage.writes === 0 && waited < 20_000; waited += 10) await sleep(10);
		await sleep(100);
		expect(storage.writes).toBe(1);
		db.close();
	});

	it("hands the snapshot to storage in a later task than the export (each copy of a large database holds the thread on its own)", async () => {
		const order: string[] = [];
		const storage = new MemorySnapshotStorage();
		const write = storage.write.bind(storage);
		storage.write = (bytes) => (order.push("write"), write(bytes));
		const db = await openDatabase({ path: "index.db", snapshot: storage, snapshotDebounceMs: 60_000 });
		db.exec("CREATE TABLE t (x)");
		const flushed = db.flush();
		// Queued right after the export: it runs before the write only if the write waits a task.
		setTimeout(() => order.push("other task"), 0);
		await flushed;
		expect(order).toEqual(["other task", "write"]);
		db.close();
	});

	it("copies a large database out of WASM memory a slice per task, and the snapshot reads back the same", async () => {
		const storage = new MemorySnapshotStorage();
		const db = await openDatabase({ path: "index.db", snapshot: storage, snapshotDebounceMs: 60_000 });
		db.exec("CREATE TABLE t (x BLOB)");
		// ≈ 10 MB: more than two 4 MB slices.
		for (let i = 0; i < 10; i++) db.run("INSERT INTO t VALUES (randomblob(1000000))");
		const sample = "SELECT hex(substr(x, 1, 8)) || hex(substr(x, 999993, 8)) AS h FROM t ORDER BY rowid";
		const before = db.all(sample);
		let ticks = 0;
		let flushing = true;
		const tick = () => {
			ticks++;
			if (flushing) setTimeout(tick, 0);
		};
		setTimeout(tick, 0);
		await db.flush();
		flushing = false;
		expect(ticks).toBeGreaterThanOrEqual(3);
		db.close();
		const reopened = await openDatabase({ path: "index.db", snapshot: storage });
		expect(reopened.get("SELECT count(*) AS n, sum(length(x)) AS bytes FROM t")).toEqual({ n: 10, bytes: 10_000_000 });
		expect(reopened.all(sample)).toEqual(before);
		reopened.close();
	});

	it("writes again after a failed write: the next export is not chained to the failure", async () => {
		const storage = new MemorySnapshotStorage();
		const write = storage.write.bind(storage);
		let fail = true;
		storage.write = (bytes) => (fail ? ((fail = false), Promise.reject(new Error("disk full"))) : write(bytes));
		const db = await openDatabase({ path: "index.db", snapshot: storage, snapshotDebounceMs: 60_000 });
		db.exec("CREATE TABLE note (id INTEGER PRIMARY KEY, title TEXT)");
		db.run("INSERT INTO note (title) VALUES ('first')");
		await expect(db.flush()).rejects.toThrow("disk full");
		db.run("INSERT INTO note (title) VALUES ('second')");
		await db.flush();
		expect(storage.writes).toBe(1);
		db.close();
		const reopened = await openDatabase({ path: "index.db", snapshot: storage });
		expect(reopened.all("SELECT title FROM note ORDER BY id")).toEqual([{ title: "first" }, { title: "second" }]);
		reopened.close();
	});

	it("writes a final snapshot on close", async () => {
		const storage = new MemorySnapshotStorage();
		const db = await openDatabase({ path: "index.db", snapshot: storage, snapshotDebounceMs: 60_000 });
		db.exec("CREATE TABLE t (x)");
		db.transaction(() => db.run("INSERT INTO t VALUES (42)"));
		db.close();
		await sleep(10);
		const reopened = await openDatabase({ path: "index.db", snapshot: storage });
		expect(reopened.get("SELECT x FROM t")).toEqual({ x: 42 });
		reopened.close();
	});

	it("rejects a snapshot that is not a database", async () => {
		const storage = new MemorySnapshotStorage();
		storage.bytes = new TextEncoder().encode("not a database at all ".repeat(100));
		const error = await openDatabase({ path: "index.db", snapshot: storage }).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(DatabaseFileError);
		expect((error as Error).message).toContain("index.db");
	});

	it("refuses writes when opened read-only", async () => {
		const storage = new MemorySnapshotStorage();
		const writer = await openDatabase({ path: "index.db", snapshot: storage });
		writer.exec("CREATE TABLE t (x)");
		await writer.flush();
		writer.close();
		const reader = await openDatabase({ path: "index.db", snapshot: storage, readonly: true });
		expect(() => reader.run("INSERT INTO t VALUES (1)")).toThrow(/readonly|query_only/i);
		reader.close();
	});
});
