// The stamp that lets an open skip quick_check (src/backends/sqlite/wasm/check-stamp.ts): it holds
// only for the very file an engine closed cleanly; anything else is checked fully, and a damaged file
// is still refused and left byte for byte as it was.
import { existsSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openNativeDatabase } from "../../../src/backends/sqlite/native/open-native";
import { loadNativeDriver } from "../../../src/backends/sqlite/native/native-driver";
import { openDatabase } from "../../../src/backends/sqlite/wasm/open-database";
import { checkStampPath, FULL_CHECK_INTERVAL_MS, vouchedCheckTime, writeCheckStamp } from "../../../src/backends/sqlite/wasm/check-stamp";
import { DatabaseFileError, SqliteError } from "../../../src/backends/sqlite/wasm/errors";
import type { SqliteConnection } from "../../../src/backends/sqlite/sqlite-connection";
import { loadNodeModules, type NodeModules } from "../../../src/platform/node-builtins";
import { makeTempDir, sha256 } from "./wasm/temp-dir";

const ENGINES: Record<string, (path: string, readonly?: boolean) => Promise<SqliteConnection>> = {
	sqlite: (path, readonly) => openDatabase({ path, readonly }),
	"sqlite-native": async (path, readonly) => (await openNativeDatabase({ path, readonly })).conn,
};
const wanted = (process.env.ENGRAMA_TEST_BACKENDS ?? "sqlite").split(",").filter((name) => name in ENGINES);
const PAGE = 4096;
const HOUR = 60 * 60 * 1000;

let node: NodeModules;
let temp: ReturnType<typeof makeTempDir>;
let path: string;
beforeEach(async () => {
	node = (await loadNodeModules())!;
	temp = makeTempDir("engrama-check-stamp-");
	path = temp.file("memory.db");
});
afterEach(() => temp.cleanup());

const stampOf = () => JSON.parse(readFileSync(checkStampPath(path), "utf8")) as { checkedAt: number };

/** Back-dates the stamp's last full check (not part of the fingerprint), so a renewed check shows. */
function backdateStamp(by: number): number {
	const stamp = stampOf();
	const checkedAt = stamp.checkedAt - by;
	writeFileSync(checkStampPath(path), JSON.stringify({ ...stamp, checkedAt }));
	return checkedAt;
}

/** Random bytes over three pages inside the table's b-tree; the header and the last page stay. */
function damageMiddlePages(): void {
	const bytes = readFileSync(path);
	randomBytes(PAGE * 3).copy(bytes, PAGE * 2);
	writeFileSync(path, bytes);
}

describe.each(wanted)("the quick_check stamp on %s", (engine) => {
	const open = ENGINES[engine];

	async function createMemory(): Promise<void> {
		const db = await open(path);
		db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT); CREATE INDEX t_v ON t (v)");
		db.transaction(() => {
			for (let i = 0; i < 2000; i++) db.run("INSERT INTO t (v) VALUES (?)", [`value ${i}`]);
		});
		db.close();
	}

	it("a clean close stamps the file; the next open trusts it and carries the check's time on", async () => {
		await createMemory();
		expect(existsSync(checkStampPath(path))).toBe(true);
		const checkedAt = backdateStamp(HOUR);
		const db = await open(path);
		// A writing open removes the stamp at once: until the next clean close the file may change.
		expect(existsSync(checkStampPath(path))).toBe(false);
		db.run("INSERT INTO t (v) VALUES ('more')");
		db.close();
		expect(stampOf().checkedAt).toBe(checkedAt);
	});

	it("a page damaged after the close is refused, and the file left as it was", async () => {
		await createMemory();
		damageMiddlePages();
		const before = sha256(path);
		const error = await open(path).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(DatabaseFileError);
		expect((error as Error).message).toMatch(/quick_check|malformed/);
		expect(sha256(path)).toBe(before);
	});

	it("damage written with the old modification time put back is still refused (the change time moved)", async () => {
		await createMemory();
		const { atime, mtime } = statSync(path);
		damageMiddlePages();
		utimesSync(path, atime, mtime);
		const before = sha256(path);
		await expect(open(path)).rejects.toBeInstanceOf(DatabaseFileError);
		expect(sha256(path)).toBe(before);
	});

	it("a file another SQLite program wrote is checked fully", async () => {
		await createMemory();
		const checkedAt = backdateStamp(HOUR);
		const driver = loadNativeDriver();
		const foreign = new driver.Database(path);
		foreign.prepare("INSERT INTO t (v) VALUES ('from another program')").run();
		foreign.close();
		const db = await open(path);
		expect(db.get("SELECT count(*) AS n FROM t")).toEqual({ n: 2001 });
		db.close();
		expect(stampOf().checkedAt).toBeGreaterThan(checkedAt);
	});

	it("a stamp older than the full-check interval is not trusted", async () => {
		await createMemory();
		const checkedAt = backdateStamp(FULL_CHECK_INTERVAL_MS + HOUR);
		(await open(path)).close();
		expect(stampOf().checkedAt).toBeGreaterThan(checkedAt);
	});

	it("a stamp forged for a damaged file skips the check, but the session that meets the damage leaves no stamp", async () => {
		await createMemory();
		damageMiddlePages();
		// What the stamp cannot see: the disk changing a page in place. Forged here for the damaged bytes.
		writeCheckStamp(node, path, Date.now());
		const db = await open(path);
		expect(() => db.all("SELECT * FROM t ORDER BY v")).toThrow(SqliteError);
		db.close();
		expect(existsSync(checkStampPath(path))).toBe(false);
		await expect(open(path)).rejects.toBeInstanceOf(DatabaseFileError);
	});

	it("a read-only open neither removes nor writes the stamp", async () => {
		await createMemory();
		const stamp = readFileSync(checkStampPath(path), "utf8");
		const reader = await open(path, true);
		expect(reader.get("SELECT count(*) AS n FROM t")).toEqual({ n: 2000 });
		reader.close();
		expect(readFileSync(checkStampPath(path), "utf8")).toBe(stamp);
	});
});

describe("what the stamp vouches for", () => {
	async function stamped(): Promise<number> {
		const db = await openDatabase({ path });
		db.exec("CREATE TABLE t (x); INSERT INTO t VALUES (1)");
		db.close();
		const checkedAt = vouchedCheckTime(node, path);
		expect(checkedAt).toBe(stampOf().checkedAt);
		return checkedAt!;
	}

	it("nothing while a log or a journal beside the file holds anything (a crash mid-write)", async () => {
		await stamped();
		for (const [suffix, bytes] of [["-wal", 33], [".engrama-wal", 33], ["-journal", 1]] as const) {
			writeFileSync(`${path}${suffix}`, new Uint8Array(bytes));
			expect(vouchedCheckTime(node, path)).toBeUndefined();
			writeFileSync(`${path}${suffix}`, "");
			expect(vouchedCheckTime(node, path)).toBeDefined();
		}
	});

	it("nothing for a stamp cut short, of another version, or dated in the future", async () => {
		const checkedAt = await stamped();
		const text = readFileSync(checkStampPath(path), "utf8");
		writeFileSync(checkStampPath(path), text.slice(0, 40));
		expect(vouchedCheckTime(node, path)).toBeUndefined();
		writeFileSync(checkStampPath(path), JSON.stringify({ ...JSON.parse(text), version: 2 }));
		expect(vouchedCheckTime(node, path)).toBeUndefined();
		writeFileSync(checkStampPath(path), text);
		expect(vouchedCheckTime(node, path, checkedAt - 1)).toBeUndefined();
		expect(vouchedCheckTime(node, path, checkedAt)).toBe(checkedAt);
	});

	it("nothing for a copy of the file put in its place, byte for byte the same", async () => {
		await stamped();
		const bytes = readFileSync(path);
		node.fs.rmSync(path);
		writeFileSync(path, bytes);
		expect(vouchedCheckTime(node, path)).toBeUndefined();
	});
});
