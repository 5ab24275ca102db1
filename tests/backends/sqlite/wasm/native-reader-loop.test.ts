// The plugin's engine (WASM) writing while a native SQLite program (Python's sqlite3, as DB Browser,
// a backup tool or the Python engrama would) opens, reads and closes the same file in a loop: no
// write is refused, none acknowledged is lost, the file is never damaged (issue 36).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../../../src/backends/sqlite/wasm/open-database";
import { makeTempDir } from "./temp-dir";
import { peekLoop } from "./native-reader";

// Enough written for several checkpoints of the log into the database (one per ~1,000 pages,
// ~4 MB): each commit is ~20 pages. The reader must have peeked often meanwhile; on a loaded
// machine python3 may take seconds to start, so both are counts, not durations.
const MIN_COMMITS = 200;
const MIN_PEEKS = 20;
const PAYLOAD = "x".repeat(80_000);
const tick = () => new Promise((resolve) => setTimeout(resolve, 1));
const TEST_TIMEOUT_MS = 120_000;

describe("the WASM engine beside a native reader in a loop", () => {
	let temp: ReturnType<typeof makeTempDir>;
	beforeAll(() => {
		temp = makeTempDir("engrama-reader-loop-");
	});
	afterAll(() => temp.cleanup());

	it("acknowledges every write, loses none and keeps the file intact across checkpoints and a reopen", async () => {
		const db = temp.file("loop.db");
		const writer = await openDatabase({ path: db });
		writer.exec("CREATE TABLE ack (i INTEGER PRIMARY KEY, payload TEXT NOT NULL)");
		const reader = peekLoop(db);
		const acked: number[] = [];
		const refused: string[] = [];
		while (reader.peeks() === 0) await tick();
		for (let i = 0; acked.length + refused.length < MIN_COMMITS || reader.peeks() < MIN_PEEKS; i++) {
			try {
				writer.run("INSERT INTO ack (i, payload) VALUES (?, ?)", [i, `${i} ${PAYLOAD}`]);
				acked.push(i);
			} catch (error) {
				refused.push(`${i}: ${(error as Error).message}`);
			}
			// Let the reader's process run between commits on a loaded machine.
			if (i % 20 === 0) await tick();
		}
		const peeks = await reader.stop();
		writer.close();

		const reopened = await openDatabase({ path: db });
		try {
			expect(reopened.get("PRAGMA integrity_check")).toEqual({ integrity_check: "ok" });
			expect(reopened.all<{ i: number }>("SELECT i FROM ack ORDER BY i").map((row) => row.i)).toEqual(acked);
		} finally {
			reopened.close();
		}
		expect(refused).toEqual([]);
		expect(peeks).toBeGreaterThanOrEqual(MIN_PEEKS);
	}, TEST_TIMEOUT_MS);
});
