// A native SQLite program (here Python's sqlite3 module, as the sqlite3 shell or DB Browser) opening
// the database beside a running engine: it must neither lose acknowledged writes nor damage the file.
import { copyFileSync, existsSync, readdirSync, renameSync, statSync, utimesSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openNativeDatabase } from "../../../../src/backends/sqlite/native/open-native";
import { openDatabase } from "../../../../src/backends/sqlite/wasm/open-database";
import { bundleChild, startChild, type RunningChild } from "./child-process";
import { makeTempDir } from "./temp-dir";
import { hold, peek, writeNativeAndDie } from "./native-reader";

async function writeBatch(child: RunningChild, from: number, to: number): Promise<void> {
	child.send(`write ${from} ${to}`);
	await child.waitFor(new RegExp(`^DONE ${to}$`), 60_000);
}

function acked(child: RunningChild): number[] {
	return child.lines.filter((line) => line.startsWith("ACK ")).map((line) => Number(line.slice(4)));
}

async function killAndReopen(child: RunningChild, db: string): Promise<{ rows: number[]; integrity: unknown }> {
	child.process.kill("SIGKILL");
	await child.exited;
	const reopened = await openDatabase({ path: db });
	try {
		return {
			rows: reopened.all<{ i: number }>("SELECT i FROM ack ORDER BY i").map((row) => row.i),
			integrity: reopened.get("PRAGMA integrity_check"),
		};
	} finally {
		reopened.close();
	}
}

// Child processes and python3 on a loaded 2-core machine: generous, never a timing assertion.
const TEST_TIMEOUT_MS = 120_000;

describe("a native SQLite reader beside the engine", () => {
	let temp: ReturnType<typeof makeTempDir>;
	let bundle: string;
	beforeAll(async () => {
		temp = makeTempDir("engrama-native-reader-");
		bundle = await bundleChild(temp.dir);
	});
	afterAll(() => temp.cleanup());

	it("loses no acknowledged write when a reader opens and closes between writes, then the engine is killed", async () => {
		const db = temp.file("peek.db");
		const child = startChild(bundle, ["on-command", db], temp.dir, { stdin: true });
		await child.waitFor(/^READY$/);
		await writeBatch(child, 0, 50);
		// Closing, the reader checkpoints what it saw and deletes the WAL the engine still writes to.
		peek(db);
		await writeBatch(child, 50, 100);
		peek(db);
		peek(db);
		await writeBatch(child, 100, 150);

		expect(acked(child)).toHaveLength(150);
		const { rows, integrity } = await killAndReopen(child, db);
		expect(rows).toEqual(acked(child));
		expect(integrity).toEqual({ integrity_check: "ok" });
	}, TEST_TIMEOUT_MS);

	it("writes while a reader holds the file open, in a log the reader never finds; nothing is lost", async () => {
		const db = temp.file("hold.db");
		const child = startChild(bundle, ["on-command", db], temp.dir, { stdin: true });
		await child.waitFor(/^READY$/);
		await writeBatch(child, 0, 20);
		const reader = await hold(db);
		await writeBatch(child, 20, 25);
		// The log is where native SQLite does not look; the reader's own `-wal` stays empty.
		expect(statSync(`${db}.engrama-wal`).size).toBeGreaterThan(32);
		expect(statSync(`${db}-wal`, { throwIfNoEntry: false })?.size ?? 0).toBe(0);
		await reader.close();
		await writeBatch(child, 25, 40);

		expect(child.lines.filter((line) => line.startsWith("REFUSED "))).toEqual([]);
		const { rows, integrity } = await killAndReopen(child, db);
		expect(rows).toEqual(Array.from({ length: 40 }, (_, i) => i));
		expect(integrity).toEqual({ integrity_check: "ok" });
	}, TEST_TIMEOUT_MS);

	it("writes on after a read-only reader left its -shm behind: a file no process holds refuses nothing (issue 25)", async () => {
		const db = temp.file("readonly.db");
		const child = startChild(bundle, ["on-command", db], temp.dir, { stdin: true });
		await child.waitFor(/^READY$/);
		await writeBatch(child, 0, 20);
		peek(db, { readonly: true });
		// What `sqlite3 -readonly` leaves: it cannot remove the file when it closes.
		expect(existsSync(`${db}-shm`)).toBe(true);
		await writeBatch(child, 20, 40);
		expect(child.lines.filter((line) => line.startsWith("REFUSED "))).toEqual([]);
		const { rows, integrity } = await killAndReopen(child, db);
		expect(rows).toEqual(Array.from({ length: 40 }, (_, i) => i));
		expect(integrity).toEqual({ integrity_check: "ok" });
	}, TEST_TIMEOUT_MS);

	it("puts a restore copy left by a process killed while restoring in place at the next open, and removes one that is stale (issue 25)", async () => {
		const db = temp.file("restore.db");
		const child = startChild(bundle, ["on-command", db], temp.dir, { stdin: true });
		await child.waitFor(/^READY$/);
		await writeBatch(child, 0, 30);
		child.process.kill("SIGKILL");
		await child.exited;
		// Left by an older version killed between copying the WAL (then at `<db>-wal`) and renaming
		// the copy into place: the commits are only in the copy.
		const copy = `${db}-wal.engrama-restore-424242`;
		renameSync(`${db}.engrama-wal`, copy);
		const kept = temp.file("restore-copy.wal");
		copyFileSync(copy, kept);
		const reopened = await openDatabase({ path: db });
		try {
			expect(reopened.all<{ i: number }>("SELECT i FROM ack ORDER BY i").map((row) => row.i)).toEqual(Array.from({ length: 30 }, (_, i) => i));
			expect(reopened.get("PRAGMA integrity_check")).toEqual({ integrity_check: "ok" });
			reopened.run("INSERT INTO ack (i, payload) VALUES (1000, 'after')");
		} finally {
			reopened.close();
		}
		expect(readdirSync(temp.dir).filter((name) => name.includes("engrama-restore"))).toEqual([]);
		// The same copy again, older than the database written since: replaying it would go back in time.
		copyFileSync(kept, copy);
		const past = new Date(Date.now() - 60_000);
		utimesSync(copy, past, past);
		const again = await openDatabase({ path: db });
		try {
			expect(again.get<{ n: number }>("SELECT count(*) AS n FROM ack")?.n).toBe(31);
			expect(again.get("PRAGMA integrity_check")).toEqual({ integrity_check: "ok" });
		} finally {
			again.close();
		}
		expect(existsSync(copy)).toBe(false);
	}, TEST_TIMEOUT_MS);

	it("replays the log of a native session that stopped without closing (`<db>-wal`)", async () => {
		const db = temp.file("native-crash.db");
		const first = await openDatabase({ path: db });
		first.exec("CREATE TABLE ack (i INTEGER PRIMARY KEY, payload TEXT NOT NULL)");
		for (let i = 0; i < 10; i++) first.run("INSERT INTO ack (i, payload) VALUES (?, 'wasm')", [i]);
		first.close();
		// A native writer killed after its commits: they are only in `<db>-wal`.
		writeNativeAndDie(db, 10, 20);
		expect(statSync(`${db}-wal`).size).toBeGreaterThan(32);

		const reopened = await openDatabase({ path: db });
		try {
			expect(reopened.all<{ i: number }>("SELECT i FROM ack ORDER BY i").map((row) => row.i)).toEqual(Array.from({ length: 20 }, (_, i) => i));
			expect(reopened.get("PRAGMA integrity_check")).toEqual({ integrity_check: "ok" });
		} finally {
			reopened.close();
		}
		expect(existsSync(`${db}-wal`)).toBe(false);
		expect(existsSync(`${db}.engrama-wal`)).toBe(false);
	}, TEST_TIMEOUT_MS);

	it("hands a killed session's log to the native engine, which never finds it by its name", async () => {
		const db = temp.file("to-native.db");
		const child = startChild(bundle, ["on-command", db], temp.dir, { stdin: true });
		await child.waitFor(/^READY$/);
		await writeBatch(child, 0, 30);
		child.process.kill("SIGKILL");
		await child.exited;

		const { conn } = await openNativeDatabase({ path: db });
		try {
			expect(conn.all<{ i: number }>("SELECT i FROM ack ORDER BY i").map((row) => Number(row.i))).toEqual(acked(child));
			expect(conn.get("PRAGMA integrity_check")).toEqual({ integrity_check: "ok" });
		} finally {
			conn.close();
		}
		expect(acked(child)).toHaveLength(30);
		expect(existsSync(`${db}.engrama-wal`)).toBe(false);
	}, TEST_TIMEOUT_MS);

	it("refuses to open when both its own log and a native one hold commits, and says which files to keep", async () => {
		const db = temp.file("two-logs.db");
		const child = startChild(bundle, ["on-command", db], temp.dir, { stdin: true });
		await child.waitFor(/^READY$/);
		await writeBatch(child, 0, 10);
		child.process.kill("SIGKILL");
		await child.exited;
		// A native writer after the WASM engine was killed: it cannot know the WASM engine's log.
		writeNativeAndDie(db, 10, 20);
		await expect(openDatabase({ path: db })).rejects.toThrow(/two unfinished write-ahead logs: .*\.engrama-wal .*-wal/);
		expect(statSync(`${db}.engrama-wal`).size).toBeGreaterThan(32);
		expect(statSync(`${db}-wal`).size).toBeGreaterThan(32);
	}, TEST_TIMEOUT_MS);
});
