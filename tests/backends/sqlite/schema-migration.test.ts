import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FTS_COLUMNS, SCHEMA_VERSION } from "../../../src/backends/sqlite/schema";
import { openDatabase } from "../../../src/backends/sqlite/wasm/open-database";
import { parseConfig } from "../../../src/config/engrama-config";
import { createSkills } from "../../../src/engine/skills";
import { openMemory } from "../../../src/node/open-memory";
import { makeTempDir } from "../../helpers/temp-dir";

const SCOPE = { orgId: "acme", userId: "ana" };
const NOW = "2026-01-10T09:00:00.000Z";

/** The Python engrama's layout (schema v3): nodes, edges with scope columns, FTS5 nodes_fts; nothing of ours. */
async function writePythonLayout(path: string): Promise<void> {
	const db = await openDatabase({ path });
	try {
		db.exec(`
			CREATE TABLE nodes (
				id INTEGER PRIMARY KEY AUTOINCREMENT, label TEXT NOT NULL, key_field TEXT NOT NULL, key_value TEXT NOT NULL,
				props TEXT NOT NULL DEFAULT '{}', created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
			CREATE TABLE edges (
				id INTEGER PRIMARY KEY AUTOINCREMENT, from_id INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
				rel_type TEXT NOT NULL, to_id INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
				created_at TEXT NOT NULL, org_id TEXT, user_id TEXT, UNIQUE(from_id, rel_type, to_id));
			CREATE VIRTUAL TABLE nodes_fts USING fts5(${FTS_COLUMNS.join(", ")});
			PRAGMA user_version = 3;
		`);
		const node = (id: number, label: string, name: string, description: string) => {
			const props = { name, description, engrama_id: `00000000-0000-4000-8000-00000000000${id}`, org_id: SCOPE.orgId, user_id: SCOPE.userId, status: "active" };
			db.run("INSERT INTO nodes (id, label, key_field, key_value, props, created_at, updated_at) VALUES (?, ?, 'name', ?, ?, ?, ?)", [
				id,
				label,
				name,
				JSON.stringify(props),
				NOW,
				NOW,
			]);
			db.run(`INSERT INTO nodes_fts (rowid, name, description) VALUES (?, ?, ?)`, [id, name, description]);
		};
		node(1, "Project", "Billing Portal", "Invoices for clinics");
		node(2, "Technology", "Python", "A programming language");
		db.run("INSERT INTO edges (from_id, rel_type, to_id, created_at, org_id, user_id) VALUES (1, 'USES', 2, ?, ?, ?)", [NOW, SCOPE.orgId, SCOPE.userId]);
	} finally {
		db.close();
	}
}

const sha256 = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

describe("schema versions (PRAGMA user_version)", () => {
	let dir: ReturnType<typeof makeTempDir>;
	beforeEach(() => {
		dir = makeTempDir("engrama-schema-");
	});
	afterEach(() => dir.cleanup());

	it("upgrades a memory in the Python engrama's layout in place and reads what it held", async () => {
		const path = join(dir.path, "python.db");
		await writePythonLayout(path);

		const opened = await openMemory(parseConfig({ backend: "sqlite", dbPath: path, ...SCOPE }));
		try {
			const project = await opened.memory.get(opened.scope, "Project", "Billing Portal");
			expect(project?.id).toBe("00000000-0000-4000-8000-000000000001");
			expect(project?.props.description).toBe("Invoices for clinics");
			const context = await createSkills(opened.memory).context(opened.scope, { label: "Project", name: "Billing Portal" }, 1);
			expect(context?.relations).toMatchObject([{ from: "Billing Portal", type: "USES", to: "Python", direction: "out" }]);
			expect((await opened.memory.searchFulltext(opened.scope, "clinics")).map((h) => h.name)).toEqual(["Billing Portal"]);
			// The entity resolver's name index was backfilled for the old rows.
			expect((await opened.memory.remember({ scope: opened.scope, source: "cli" }, { label: "Project", key: "Billing Portal" })).created).toBe(false);
			await opened.memory.remember({ scope: opened.scope, source: "cli" }, { label: "Technology", key: "SQLite" });
			await opened.memory.relate({ scope: opened.scope, source: "cli" }, { label: "Project", key: "Billing Portal" }, "USES", { label: "Technology", key: "SQLite" });
		} finally {
			await opened.close();
		}

		const db = await openDatabase({ path, readonly: true });
		try {
			expect(db.get("PRAGMA user_version")).toEqual({ user_version: SCHEMA_VERSION });
			expect(db.all<{ name: string }>("PRAGMA table_info(edges)").map((c) => c.name)).toContain("props");
			// Every Python column is still there, with its rows.
			expect(db.all<{ name: string }>("PRAGMA table_info(nodes)").map((c) => c.name)).toEqual([
				"id",
				"label",
				"key_field",
				"key_value",
				"props",
				"created_at",
				"updated_at",
			]);
			expect(db.get("SELECT count(*) AS n FROM edges")).toEqual({ n: 2 });
		} finally {
			db.close();
		}
	});

	it("refuses a memory from a newer Engrama, naming the file, and does not change it", async () => {
		const path = join(dir.path, "future.db");
		const db = await openDatabase({ path });
		db.exec(`CREATE TABLE nodes (id INTEGER PRIMARY KEY); PRAGMA user_version = ${SCHEMA_VERSION + 1}`);
		db.close();
		const before = sha256(path);

		const error = await openMemory(parseConfig({ backend: "sqlite", dbPath: path, ...SCOPE })).catch((e: unknown) => e);
		expect((error as Error).message).toContain(path);
		expect((error as Error).message).toMatch(new RegExp(`schema version ${SCHEMA_VERSION + 1}, newer than this Engrama`));
		expect(sha256(path)).toBe(before);
		// The refused open released its lock: the file opens again.
		const again = await openDatabase({ path, readonly: true });
		expect(again.get("PRAGMA user_version")).toEqual({ user_version: SCHEMA_VERSION + 1 });
		again.close();
	});
});
