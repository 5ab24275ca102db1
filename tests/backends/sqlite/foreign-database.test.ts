import { readdirSync, writeFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createBackend } from "../../../src/backends/factory";
import { DatabaseFileError } from "../../../src/backends/sqlite/wasm/errors";
import { openDatabase } from "../../../src/backends/sqlite/wasm/open-database";
import { parseConfig } from "../../../src/config/engrama-config";
import { runCli } from "../../helpers/run-cli";
import { makeTempDir, sha256 } from "./wasm/temp-dir";

// A SQLite file of another program passed as the memory (a typo in --db, a wrong setting) must be
// refused before journal_mode or the schema migration changes a byte of it.
describe("a SQLite database of another program as the memory file", () => {
	let temp: ReturnType<typeof makeTempDir>;
	beforeEach(() => {
		temp = makeTempDir();
	});
	afterEach(() => temp.cleanup());

	async function foreignDatabase(name: string): Promise<string> {
		const path = temp.file(name);
		const db = await openDatabase({ path });
		db.exec("CREATE TABLE photos (id INTEGER PRIMARY KEY, file TEXT); CREATE TABLE albums (id INTEGER PRIMARY KEY, title TEXT)");
		db.run("INSERT INTO photos (file) VALUES (?)", ["beach.jpg"]);
		db.close();
		return path;
	}

	it("is refused with the file and its tables named, and left byte for byte as it was", async () => {
		const path = await foreignDatabase("photos.db");
		const before = sha256(path);
		const beside = readdirSync(temp.dir);
		const config = parseConfig({ backend: "sqlite", dbPath: path, orgId: "o", userId: "u" });
		const error = await createBackend(config).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(DatabaseFileError);
		expect((error as Error).message).toContain(path);
		expect((error as Error).message).toMatch(/another program: tables (photos, albums|albums, photos), no nodes table/);
		expect((error as Error).message).toMatch(/left untouched/);
		expect(sha256(path)).toBe(before);
		// No lock, WAL or journal file left beside it (only the check stamp of its making, as it was).
		expect(readdirSync(temp.dir)).toEqual(beside);
		expect(beside.filter((name) => name !== "photos.db.engrama-checked")).toEqual(["photos.db"]);
	});

	it("an empty file still becomes a new memory", async () => {
		const path = temp.file("empty.db");
		writeFileSync(path, "");
		const config = parseConfig({ backend: "sqlite", dbPath: path, orgId: "o", userId: "u" });
		const { graph } = await createBackend(config);
		expect((await graph.health()).ok).toBe(true);
		await graph.close();
	});

	it("the command line exits 2 with code database_file, and 2 with database_locked for a second writer", async () => {
		const path = await foreignDatabase("photos.db");
		const before = sha256(path);
		const foreign = runCli(["--db", path, "--json", "status"]);
		expect(foreign.status).toBe(2);
		expect(JSON.parse(foreign.stderr)).toMatchObject({ error: { code: "database_file" } });
		expect(foreign.stderr).not.toMatch(/\n\s+at /);
		expect(sha256(path)).toBe(before);

		const memory = temp.file("memory.db");
		const config = parseConfig({ backend: "sqlite", dbPath: memory, orgId: "o", userId: "u" });
		const held = await createBackend(config);
		try {
			const locked = runCli(["--db", memory, "--json", "status"]);
			expect(locked.status).toBe(2);
			expect(JSON.parse(locked.stderr)).toMatchObject({ error: { code: "database_locked" } });
		} finally {
			await held.graph.close();
		}
	});
});
