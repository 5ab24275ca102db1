// The check stamp of a mobile snapshot (src/backends/sqlite/wasm/snapshot-stamp.ts): an open whose
// bytes are the ones the engine last exported skips quick_check; anything else is checked fully,
// and a damaged snapshot is still refused.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../../../../src/backends/sqlite/wasm/open-database";
import type { SnapshotStorage } from "../../../../src/backends/sqlite/sqlite-connection";
import { DatabaseFileError, SqliteError } from "../../../../src/backends/sqlite/wasm/errors";
import { snapshotStamp } from "../../../../src/backends/sqlite/wasm/snapshot-stamp";
import { FULL_CHECK_INTERVAL_MS } from "../../../../src/backends/sqlite/wasm/check-stamp";

/** A real in-memory storage that keeps a stamp, as the adapter's keeps `<db>.engrama-checked`. */
class StampedMemoryStorage implements SnapshotStorage {
	bytes: Uint8Array | null = null;
	stamp: string | null = null;
	failWrites = false;
	async read(): Promise<Uint8Array | null> {
		return this.bytes;
	}
	async write(bytes: Uint8Array): Promise<void> {
		if (this.failWrites) throw new Error("disk full");
		this.bytes = bytes.slice();
	}
	async readStamp(): Promise<string | null> {
		return this.stamp;
	}
	async writeStamp(stamp: string | null): Promise<void> {
		this.stamp = stamp;
	}
	checkedAt(): number {
		return (JSON.parse(this.stamp!) as { checkedAt: number }).checkedAt;
	}
	backdate(by: number): number {
		const stamp = JSON.parse(this.stamp!) as { checkedAt: number };
		this.stamp = JSON.stringify({ ...stamp, checkedAt: stamp.checkedAt - by });
		return stamp.checkedAt - by;
	}
}

const PAGE = 4096;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls instead of a fixed sleep: timers run late on a busy machine. */
async function until(condition: () => boolean): Promise<void> {
	for (let waited = 0; !condition() && waited < 20_000; waited += 10) await sleep(10);
	expect(condition()).toBe(true);
}
const HOUR = 60 * 60 * 1000;

async function createSnapshot(storage: StampedMemoryStorage): Promise<void> {
	const db = await openDatabase({ path: "index.db", snapshot: storage, snapshotDebounceMs: 60_000 });
	db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT); CREATE INDEX t_v ON t (v)");
	db.transaction(() => {
		for (let i = 0; i < 2000; i++) db.run("INSERT INTO t (v) VALUES (?)", [`value ${i}`]);
	});
	await db.flush();
	db.close();
}

/** The exported snapshot with random bytes over three pages of the table's b-tree. */
function damaged(bytes: Uint8Array): Uint8Array {
	const copy = bytes.slice();
	copy.set(randomBytes(PAGE * 3), PAGE * 2);
	return copy;
}

describe("the check stamp of a snapshot", () => {
	it("each export stamps its bytes; the next open trusts them and carries the check's time on", async () => {
		const storage = new StampedMemoryStorage();
		await createSnapshot(storage);
		const written = JSON.parse(storage.stamp!) as { size: number; sha256: string };
		expect(written.size).toBe(storage.bytes!.length);
		expect(written.sha256).toMatch(/^[0-9a-f]{64}$/);
		const checkedAt = storage.backdate(HOUR);
		const db = await openDatabase({ path: "index.db", snapshot: storage, snapshotDebounceMs: 60_000 });
		db.run("INSERT INTO t (v) VALUES ('more')");
		await db.flush();
		db.close();
		expect(storage.checkedAt()).toBe(checkedAt);
	});

	it("a snapshot changed after its stamp is checked fully: damaged, it is refused", async () => {
		const storage = new StampedMemoryStorage();
		await createSnapshot(storage);
		storage.bytes = damaged(storage.bytes!);
		const error = await openDatabase({ path: "index.db", snapshot: storage }).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(DatabaseFileError);
		expect((error as Error).message).toMatch(/quick_check|malformed/);
	});

	it("a stamp older than the full-check interval is not trusted", async () => {
		const storage = new StampedMemoryStorage();
		await createSnapshot(storage);
		const checkedAt = storage.backdate(FULL_CHECK_INTERVAL_MS + HOUR);
		const db = await openDatabase({ path: "index.db", snapshot: storage, snapshotDebounceMs: 60_000 });
		db.run("INSERT INTO t (v) VALUES ('more')");
		await db.flush();
		db.close();
		expect(storage.checkedAt()).toBeGreaterThan(checkedAt);
	});

	it("a stamp forged for damaged bytes skips the check, but the session that meets the damage stamps nothing", async () => {
		const storage = new StampedMemoryStorage();
		await createSnapshot(storage);
		storage.bytes = damaged(storage.bytes!);
		storage.stamp = (await snapshotStamp(storage.bytes, Date.now()))!;
		const db = await openDatabase({ path: "index.db", snapshot: storage, snapshotDebounceMs: 60_000 });
		expect(() => db.all("SELECT * FROM t ORDER BY v")).toThrow(SqliteError);
		db.exec("CREATE TABLE later (x)");
		await db.flush();
		db.close();
		expect(storage.stamp).toBeNull();
		await expect(openDatabase({ path: "index.db", snapshot: storage })).rejects.toBeInstanceOf(DatabaseFileError);
	});

	it("a write that fails leaves no stamp: the stamp never vouches for bytes other than the ones stored", async () => {
		const storage = new StampedMemoryStorage();
		await createSnapshot(storage);
		const db = await openDatabase({ path: "index.db", snapshot: storage, snapshotDebounceMs: 60_000 });
		db.run("INSERT INTO t (v) VALUES ('more')");
		storage.failWrites = true;
		await expect(db.flush()).rejects.toThrow("disk full");
		expect(storage.stamp).toBeNull();
		storage.failWrites = false;
		db.close();
	});

	it("a debounced export is stamped only once the exports pause, and the next export removes it first", async () => {
		const storage = new StampedMemoryStorage();
		await createSnapshot(storage);
		const db = await openDatabase({ path: "index.db", snapshot: storage, snapshotDebounceMs: 20 });
		const before = storage.bytes;
		db.run("INSERT INTO t (v) VALUES ('debounced')");
		await until(() => storage.bytes !== before);
		// Ten debounce intervals (200 ms) must pass without an export before the bytes are hashed.
		expect(storage.stamp).toBeNull();
		await until(() => storage.stamp !== null);
		const { sha256 } = JSON.parse(storage.stamp!) as { sha256: string };
		const expected = JSON.parse((await snapshotStamp(storage.bytes!, 0))!) as { sha256: string };
		expect(sha256).toBe(expected.sha256);
		db.close();
	});
});
