// A native SQLite program (here Python's sqlite3 module, as the sqlite3 shell or DB Browser) opening
// the database beside a running engine: it must neither lose acknowledged writes nor damage the file.
import { existsSync, unlinkSync } from "node:fs";
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
