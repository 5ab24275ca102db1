import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../../../src/backends/sqlite/wasm/open-database";
import type { SqliteConnection } from "../../../../src/backends/sqlite/sqlite-connection";
import { SqliteError } from "../../../../src/backends/sqlite/wasm/errors";
import { vectorBytes } from "./vectors";

describe("SqliteConnection (:memory:)", () => {
	let db: SqliteConnection;
	afterEach(() => db?.close());

	async function open(): Promise<SqliteConnection> {
		db = await openDatabase({ path: ":memory:" });
		db.exec("CREATE TABLE note (id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, body BLOB)");
		return db;
	}

	it("runs statements with positional and named parameters", async () => {
		await open();
		expect(db.run("INSERT INTO note (title) VALUES (?)", ["a"])).toEqual({ changes: 1, lastInsertRowid: 1 });
		expect(db.run("INSERT INTO note (title) VALUES (:title)", { title: "b" }).lastInsertRowid).toBe(2);
		expect(db.run("INSERT INTO note (title) VALUES ($title)", { $title: "c" }).lastInsertRowid).toBe(3);
		expect(db.all("SELECT id, title FROM note ORDER BY id")).toEqual([
			{ id: 1, title: "a" },
			{ id: 2, title: "b" },
			{ id: 3, title: "c" },
		]);
		expect(db.get<{ n: number }>("SELECT count(*) AS n FROM note")?.n).toBe(3);
		expect(db.get("SELECT * FROM note WHERE id = ?", [99])).toBeUndefined();
	});

	it("returns integers as numbers and blobs as bytes", async () => {
		await open();
		db.run("INSERT INTO note (id, title, body) VALUES (?, ?, ?)", [2 ** 40, "big", new Uint8Array([1, 2, 3])]);
		const row = db.get<{ id: unknown; body: unknown }>("SELECT id, body FROM note");
		expect(row?.id).toBe(2 ** 40);
		expect(row?.body).toEqual(new Uint8Array([1, 2, 3]));
	});

	it("reads every column type as Stmt.get did: text (any script, empty, embedded NUL), reals, nulls, integers beyond 2^53", async () => {
		await open();
		const text = ["", "plain", "Zürich · 東京 · 🧠", "a\u0000b"];
		const rows = db.all<{ t: unknown; r: unknown; n: unknown; big: unknown; neg: unknown }>(
			"SELECT value AS t, 1.5 AS r, NULL AS n, 9007199254740993 AS big, -42 AS neg FROM json_each(?)",
			[JSON.stringify(text)],
		);
		expect(rows.map((row) => row.t)).toEqual(text);
		expect(rows[0]).toMatchObject({ r: 1.5, n: null, big: 9007199254740993n, neg: -42 });
	});

	it("reports SQLite errors as SqliteError with the message and the SQL", async () => {
		await open();
		db.run("INSERT INTO note (title) VALUES ('x')");
		const error = captureError(() => db.run("INSERT INTO note (title) VALUES ('x')"));
		expect(error).toBeInstanceOf(SqliteError);
		expect((error as SqliteError).message).toContain("UNIQUE constraint failed: note.title");
		expect((error as SqliteError).sql).toContain("INSERT INTO note");
		expect(captureError(() => db.all("SELECT nope FROM note"))).toBeInstanceOf(SqliteError);
		// The cached statement is reusable after a failure.
		expect(db.run("INSERT INTO note (title) VALUES ('y')").changes).toBe(1);
	});

	it("cuts the SQL in error messages to 200 characters", async () => {
		await open();
		const sql = `SELECT nope FROM note WHERE title = '${"z".repeat(500)}'`;
		const message = (captureError(() => db.all(sql)) as Error).message;
		expect(message.length).toBeLessThan(400);
	});

	it("rolls a transaction back when its function throws", async () => {
		await open();
		expect(() =>
			db.transaction(() => {
				db.run("INSERT INTO note (title) VALUES ('kept?')");
				throw new Error("boom");
			}),
		).toThrow("boom");
		expect(db.get("SELECT count(*) AS n FROM note")).toEqual({ n: 0 });
		expect(db.transaction(() => db.run("INSERT INTO note (title) VALUES ('ok')").lastInsertRowid)).toBe(1);
		expect(db.get("SELECT count(*) AS n FROM note")).toEqual({ n: 1 });
	});

	it("nests transactions as savepoints: an inner failure keeps the outer work", async () => {
		await open();
		db.transaction(() => {
			db.run("INSERT INTO note (title) VALUES ('outer')");
			expect(() =>
				db.transaction(() => {
					db.run("INSERT INTO note (title) VALUES ('inner')");
					db.transaction(() => db.run("INSERT INTO note (title) VALUES ('innermost')"));
					throw new Error("inner fails");
				}),
			).toThrow("inner fails");
			db.transaction(() => db.run("INSERT INTO note (title) VALUES ('second inner')"));
		});
		expect(db.all<{ title: string }>("SELECT title FROM note ORDER BY id").map((r) => r.title)).toEqual(["outer", "second inner"]);
	});

	it("refuses async transaction functions and rolls back", async () => {
		await open();
		expect(() => db.transaction(async () => db.run("INSERT INTO note (title) VALUES ('a')"))).toThrow(/async/);
		expect(db.get("SELECT count(*) AS n FROM note")).toEqual({ n: 0 });
	});

	it("searches with FTS5 (bm25) and vec0 (KNN)", async () => {
		await open();
		db.exec(`
			CREATE VIRTUAL TABLE note_fts USING fts5(title, body);
			CREATE VIRTUAL TABLE note_vec USING vec0(embedding float[3] distance_metric=cosine);
		`);
		db.run("INSERT INTO note_fts (rowid, title, body) VALUES (1, 'graph memory', 'nodes and edges'), (2, 'cooking', 'pasta')");
		const hits = db.all<{ rowid: number; score: number }>(
			"SELECT rowid, bm25(note_fts) AS score FROM note_fts WHERE note_fts MATCH ? ORDER BY score",
			["memory"],
		);
		expect(hits.map((h) => h.rowid)).toEqual([1]);
		db.run("INSERT INTO note_vec (rowid, embedding) VALUES (?, ?)", [1, vectorBytes([1, 0, 0])]);
		db.run("INSERT INTO note_vec (rowid, embedding) VALUES (?, ?)", [2, vectorBytes([0, 1, 0])]);
		const nearest = db.all<{ rowid: number; distance: number }>(
			"SELECT rowid, distance FROM note_vec WHERE embedding MATCH ? AND k = ? ORDER BY distance",
			[vectorBytes([0.9, 0.1, 0]), 1],
		);
		expect(nearest).toHaveLength(1);
		expect(nearest[0].rowid).toBe(1);
		expect(db.get<{ v: string }>("SELECT vec_version() AS v")?.v).toMatch(/^v0\./);
	});

	it("closes idempotently and refuses use afterwards", async () => {
		await open();
		db.close();
		db.close();
		expect(() => db.all("SELECT 1")).toThrow(/closed/);
	});
});

function captureError(action: () => unknown): unknown {
	try {
		action();
	} catch (error) {
		return error;
	}
	throw new Error("expected an error");
}
