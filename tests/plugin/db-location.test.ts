// Moving a memory out of the synced plugin folder: copy, verify, rename into place, rename the old
// one aside; every interrupted state resumes without losing either copy.
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { loadNodeModules, type NodeModules } from "../../src/platform/node-builtins";
import { acquireProcessLock } from "../../src/backends/sqlite/wasm/process-lock";
import { preparePrivateDir } from "../../src/plugin/db-location";
import { migrateLegacyDatabase } from "../../src/plugin/legacy-database";
import { makeTempDir } from "../helpers/temp-dir";

let node: NodeModules;
let tmp: { path: string; cleanup(): void };
let legacy: string;
let target: string;
const BYTES = Buffer.concat([Buffer.from("SQLite format 3\0"), Buffer.alloc(4080, 7)]);
const WAL = Buffer.alloc(1000, 9);

beforeEach(async () => {
	node = (await loadNodeModules())!;
	tmp = makeTempDir("engrama-dbloc-");
	mkdirSync(join(tmp.path, "plugin"));
	legacy = join(tmp.path, "plugin", "engrama.db");
	writeFileSync(legacy, BYTES);
	writeFileSync(`${legacy}-wal`, WAL);
	target = join(tmp.path, "home", ".engrama", "vaults", "my-vault-1234");
});

afterEach(() => tmp.cleanup());

const aside = () => readdirSync(join(tmp.path, "plugin")).filter((f) => f.startsWith("engrama.db.moved-"));

describe("migrateLegacyDatabase", () => {
	test("carries the WASM engine's log (`.engrama-wal`, left by a plugin that stopped without closing) along", () => {
		const log = Buffer.alloc(700, 5);
		writeFileSync(`${legacy}.engrama-wal`, log);
		migrateLegacyDatabase(node, legacy, target);
		expect(readFileSync(join(target, "engrama.db.engrama-wal")).equals(log)).toBe(true);
		expect(existsSync(`${legacy}.engrama-wal`)).toBe(false);
		expect(aside().filter((f) => f.endsWith(".engrama-wal"))).toHaveLength(1);
	});

	test("copies the database and its WAL byte for byte, then renames the old ones aside (never deletes them)", () => {
		const { moved } = migrateLegacyDatabase(node, legacy, target);
		expect(moved).toContain(join(target, "engrama.db"));
		expect(readFileSync(join(target, "engrama.db")).equals(BYTES)).toBe(true);
		expect(readFileSync(join(target, "engrama.db-wal")).equals(WAL)).toBe(true);
		expect(existsSync(legacy)).toBe(false);
		expect(aside().sort()).toHaveLength(2);
		expect(readFileSync(join(tmp.path, "plugin", aside().find((f) => !f.endsWith("-wal"))!)).equals(BYTES)).toBe(true);
		// The old lock is released and nothing is left half-made.
		expect(existsSync(`${legacy}.lock`)).toBe(false);
		expect(existsSync(`${target}.moving`)).toBe(false);
		if (process.platform !== "win32") {
			expect(statSync(target).mode & 0o777).toBe(0o700);
			expect(statSync(join(tmp.path, "home", ".engrama", "vaults")).mode & 0o777).toBe(0o700);
		}
	});

	test("nothing to move: no old file, nothing created", () => {
		expect(migrateLegacyDatabase(node, join(tmp.path, "nowhere.db"), target).moved).toBeNull();
		expect(existsSync(target)).toBe(false);
	});

	test("a crash while copying (a half-made staging folder) loses nothing: the next start copies again", () => {
		mkdirSync(`${target}.moving`, { recursive: true });
		writeFileSync(join(`${target}.moving`, "engrama.db"), BYTES.subarray(0, 100));
		migrateLegacyDatabase(node, legacy, target);
		expect(readFileSync(join(target, "engrama.db")).equals(BYTES)).toBe(true);
		expect(existsSync(`${target}.moving`)).toBe(false);
	});

	test("a crash after the copy took its place but before the old file moved aside: the next start finishes", () => {
		// Simulate it: migrate, then put the old files back where they were.
		migrateLegacyDatabase(node, legacy, target, new Date("2026-01-01T00:00:00Z"));
		for (const f of aside()) {
			const to = f.endsWith("-wal") ? `${legacy}-wal` : legacy;
			node.fs.renameSync(join(tmp.path, "plugin", f), to);
		}
		// renameSync keeps the modification time, so the old file is recognisably the one copied.
		const { moved } = migrateLegacyDatabase(node, legacy, target);
		expect(moved).toContain("finished an interrupted move");
		expect(existsSync(legacy)).toBe(false);
		expect(readFileSync(join(target, "engrama.db")).equals(BYTES)).toBe(true);
	});

	test("two different memories (the old one changed after the copy, or a target made otherwise): nothing is touched, the message names both", () => {
		mkdirSync(target, { recursive: true });
		writeFileSync(join(target, "engrama.db"), Buffer.from("SQLite format 3\0other"));
		expect(() => migrateLegacyDatabase(node, legacy, target)).toThrow(/two memories for this vault: .*plugin.*engrama\.db.*my-vault-1234/);
		expect(readFileSync(legacy).equals(BYTES)).toBe(true);
		expect(readFileSync(join(target, "engrama.db")).toString("latin1")).toContain("other");
	});

	test("an older instance still holding the old file's lock: refused, nothing copied", () => {
		const lock = acquireProcessLock(node, legacy);
		try {
			expect(() => migrateLegacyDatabase(node, legacy, target)).toThrow(/lock|another connection/i);
		} finally {
			lock.release();
		}
		expect(existsSync(target)).toBe(false);
		expect(readFileSync(legacy).equals(BYTES)).toBe(true);
	});

	test("preparePrivateDir tightens an existing ~/.engrama left readable by others", () => {
		if (process.platform === "win32") return;
		const home = join(tmp.path, "home");
		const saved = process.env.HOME;
		process.env.HOME = home;
		try {
			mkdirSync(join(home, ".engrama"), { recursive: true, mode: 0o755 });
			node.fs.chmodSync(join(home, ".engrama"), 0o755);
			preparePrivateDir(node, join(home, ".engrama", "vaults", "v"));
			expect(statSync(join(home, ".engrama")).mode & 0o777).toBe(0o700);
		} finally {
			process.env.HOME = saved;
		}
	});
});
