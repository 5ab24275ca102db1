import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { existsSync, readdirSync, readFileSync, writeFileSync, truncateSync, statSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { openDatabase } from "../../../../src/backends/sqlite/wasm/open-database";
import type { SqliteConnection } from "../../../../src/backends/sqlite/sqlite-connection";
import { DatabaseFileError, DatabaseLockedError, SqliteError } from "../../../../src/backends/sqlite/wasm/errors";
import { makeTempDir, sha256 } from "./temp-dir";
import { vectorBytes } from "./vectors";

describe("file databases (Node fs VFS)", () => {
	let temp: ReturnType<typeof makeTempDir>;
	const open: SqliteConnection[] = [];
	beforeEach(() => {
		temp = makeTempDir();
	});
	afterEach(() => {
		for (const db of open.splice(0)) db.close();
		temp.cleanup();
	});

	async function openDb(name = "engrama.db", readonly = false): Promise<SqliteConnection> {
		const db = await openDatabase({ path: temp.file(name), readonly });
		open.push(db);
		return db;
	}

	it("keeps data, FTS5 and vec0 indexes across close and reopen", async () => {
		let db = await openDb();
		db.exec(`
			CREATE TABLE note (id INTEGER PRIMARY KEY, title TEXT);
			CREATE VIRTUAL TABLE note_fts USING fts5(title);
			CREATE VIRTUAL TABLE note_vec USING vec0(embedding float[3]);
		`);
		db.transaction(() => {
			for (let i = 1; i <= 300; i++) {
				db.run("INSERT INTO note (id, title) VALUES (?, ?)", [i, `note number ${i}`]);
				db.run("INSERT INTO note_fts (rowid, title) VALUES (?, ?)", [i, i === 42 ? "the answer" : `note number ${i}`]);
				db.run("INSERT INTO note_vec (rowid, embedding) VALUES (?, ?)", [i, vectorBytes([i, 1, 0])]);
			}
		});
		db.close();

		db = await openDb();
		expect(db.path).toBe(temp.file("engrama.db"));
		expect(db.get("SELECT count(*) AS n FROM note")).toEqual({ n: 300 });
		expect(db.all("SELECT rowid FROM note_fts WHERE note_fts MATCH 'answer'")).toEqual([{ rowid: 42 }]);
		const knn = db.all<{ rowid: number }>("SELECT rowid FROM note_vec WHERE embedding MATCH ? AND k = 1", [vectorBytes([7, 1, 0])]);
		expect(knn[0].rowid).toBe(7);
		expect(db.get("PRAGMA integrity_check")).toEqual({ integrity_check: "ok" });
	});

	it("runs in WAL mode with exclusive locking and fsync on every commit", async () => {
		const db = await openDb();
		expect(db.get("PRAGMA journal_mode")).toEqual({ journal_mode: "wal" });
		expect(db.get("PRAGMA locking_mode")).toEqual({ locking_mode: "exclusive" });
		expect(db.get("PRAGMA synchronous")).toEqual({ synchronous: 2 });
	});

	it("writes a few pages per commit, not the whole file", async () => {
		const db = await openDb();
		db.exec("CREATE TABLE blob (id INTEGER PRIMARY KEY, data BLOB)");
		db.transaction(() => {
			for (let i = 0; i < 2000; i++) db.run("INSERT INTO blob (data) VALUES (?)", [randomBytes(2000)]);
		});
		db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
		const wal = temp.file("engrama.db.engrama-wal");
		const before = existsSync(wal) ? statSync(wal).size : 0;
		db.run("INSERT INTO blob (data) VALUES (?)", [randomBytes(100)]);
		const walGrowth = statSync(wal).size - before;
		expect(statSync(temp.file("engrama.db")).size).toBeGreaterThan(4_000_000);
		expect(walGrowth).toBeLessThan(5 * 4096 + 1000);
	});

	it("refuses a second connection to the same file in this process", async () => {
		await openDb();
		const error = await openDatabase({ path: temp.file("engrama.db") }).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(DatabaseLockedError);
		expect((error as Error).message).toContain(temp.file("engrama.db"));
		expect((error as Error).message).toContain(`PID ${process.pid}`);
	});

	it("creates the lock file with our PID and removes it on close", async () => {
		const db = await openDb();
		const lock = JSON.parse(readFileSync(temp.file("engrama.db.lock"), "utf8")) as { pid: number; createdAt: string };
		expect(lock.pid).toBe(process.pid);
		expect(Date.parse(lock.createdAt)).toBeGreaterThan(Date.now() - 60_000);
		db.close();
		db.close();
		expect(existsSync(temp.file("engrama.db.lock"))).toBe(false);
		expect((await openDb()).get("SELECT 1 AS one")).toEqual({ one: 1 });
	});

	it("opens read-only connections that refuse writes", async () => {
		const db = await openDb();
		db.exec("CREATE TABLE t (x)");
		db.run("INSERT INTO t VALUES (1)");
		db.close();
		const ro = await openDb("engrama.db", true);
		expect(ro.get("SELECT x FROM t")).toEqual({ x: 1 });
		expect(() => ro.run("INSERT INTO t VALUES (2)")).toThrow(SqliteError);
	});

	it("says which folder is missing when the database cannot be created", async () => {
		const error = await openDatabase({ path: temp.file("no/such/dir/engrama.db") }).catch((e: unknown) => e);
		expect((error as Error).message).toMatch(/Cannot open database .*no\/such\/dir\/engrama\.db/);
		expect(existsSync(temp.file("no/such/dir/engrama.db.lock"))).toBe(false);
	});

	describe("refuses files that are not Engrama databases and leaves them untouched", () => {
		const cases: [string, () => Buffer][] = [
			["random bytes", () => randomBytes(16_384)],
			["a text file", () => Buffer.from("# My note\n\nNot a database, just markdown.\n".repeat(50))],
		];
		for (const [label, content] of cases) {
			it(label, async () => {
				const path = temp.file("foreign.db");
				writeFileSync(path, content());
				const before = sha256(path);
				const error = await openDatabase({ path }).catch((e: unknown) => e);
				expect(error).toBeInstanceOf(DatabaseFileError);
				expect((error as Error).message).toContain(path);
				expect((error as Error).message).toMatch(/not an Engrama database or is corrupt/);
				expect(sha256(path)).toBe(before);
				expect(readdirSync(temp.dir)).toEqual(["foreign.db"]);
			});
		}

		it("a database whose pages were damaged", async () => {
			const path = temp.file("damaged.db");
			const db = await openDb("damaged.db");
			db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT); CREATE INDEX t_v ON t (v)");
			db.transaction(() => {
				for (let i = 0; i < 2000; i++) db.run("INSERT INTO t (v) VALUES (?)", [`value ${i}`]);
			});
			db.close();
			const bytes = readFileSync(path);
			randomBytes(4096 * 3).copy(bytes, 4096 * 2);
			writeFileSync(path, bytes);
			const before = sha256(path);
			const error = await openDatabase({ path }).catch((e: unknown) => e);
			expect(error).toBeInstanceOf(DatabaseFileError);
			expect(sha256(path)).toBe(before);
		});

		it("a truncated database", async () => {
			const path = temp.file("short.db");
			const db = await openDb("short.db");
			db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)");
			db.transaction(() => {
				for (let i = 0; i < 2000; i++) db.run("INSERT INTO t (v) VALUES (?)", [`value ${i}`.repeat(5)]);
			});
			db.close();
			truncateSync(path, Math.floor(statSync(path).size / 2) + 100);
			const before = sha256(path);
			const error = await openDatabase({ path }).catch((e: unknown) => e);
			expect(error).toBeInstanceOf(DatabaseFileError);
			expect(sha256(path)).toBe(before);
		});
	});
});
