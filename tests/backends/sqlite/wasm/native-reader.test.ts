// A native SQLite program (here Python's sqlite3 module, as the sqlite3 shell or DB Browser) opening
// the database beside a running engine: it must neither lose acknowledged writes nor damage the file.
import { copyFileSync, existsSync, readdirSync, renameSync, unlinkSync, utimesSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../../../src/backends/sqlite/wasm/open-database";
import { bundleChild, startChild, type RunningChild } from "./child-process";
import { makeTempDir } from "./temp-dir";
import { hold, peek } from "./native-reader";

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

	it("refuses writes with a named error while a reader holds the file open, then writes again once it closes", async () => {
		const db = temp.file("hold.db");
		const child = startChild(bundle, ["on-command", db], temp.dir, { stdin: true });
		await child.waitFor(/^READY$/);
		await writeBatch(child, 0, 20);
		const reader = await hold(db);
		await writeBatch(child, 20, 25);
		await reader.close();
		await writeBatch(child, 25, 40);

		const refused = child.lines.filter((line) => line.startsWith("REFUSED "));
		expect(refused).toHaveLength(5);
		expect(refused[0]).toMatch(/^REFUSED 20 DatabaseInUseError database_in_use Another program .* has .*hold\.db open/);
		expect(refused[0]).toContain("Close that program and retry");
		const { rows, integrity } = await killAndReopen(child, db);
		expect(rows).toEqual([...Array.from({ length: 20 }, (_, i) => i), ...Array.from({ length: 15 }, (_, i) => 25 + i)]);
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
		// Killed between copying the WAL and renaming the copy into place: the commits are only in the copy.
		const copy = `${db}-wal.engrama-restore-424242`;
		renameSync(`${db}-wal`, copy);
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

	it("restores a WAL deleted behind its back even when no write follows", async () => {
		const db = temp.file("deleted.db");
		const child = startChild(bundle, ["on-command", db], temp.dir, { stdin: true });
		await child.waitFor(/^READY$/);
		await writeBatch(child, 0, 30);
		// What a native reader's close does when it missed the last commits: the WAL is gone.
		unlinkSync(`${db}-wal`);
		const deadline = Date.now() + 60_000;
		while (!existsSync(`${db}-wal`) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));

		const { rows, integrity } = await killAndReopen(child, db);
		expect(rows).toEqual(acked(child));
		expect(rows).toHaveLength(30);
		expect(integrity).toEqual({ integrity_check: "ok" });
	}, TEST_TIMEOUT_MS);
});
