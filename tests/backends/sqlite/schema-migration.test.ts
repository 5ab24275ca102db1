import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FTS_COLUMNS, PY_LAYOUT_VERSION, SCHEMA_VERSION } from "../../../src/backends/sqlite/schema";
import { openDatabase } from "../../../src/backends/sqlite/wasm/open-database";
import { parseConfig } from "../../../src/config/engrama-config";
import { createSkills } from "../../../src/engine/skills";
import { openMemory } from "../../../src/nodejs/open-memory";
import { makeTempDir } from "../../helpers/temp-dir";

const SCOPE = { orgId: "acme", userId: "ana" };
const NOW = "2026-01-10T09:00:00.000Z";

/**
 * The Python engrama's layout (schema v3): nodes, edges with scope columns, FTS5 nodes_fts, its
 * vec0 table without a metric (L2); nothing of ours.
 */
async function writePythonLayout(path: string, owners: readonly { orgId: string; userId: string }[] = [SCOPE]): Promise<void> {
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
			CREATE INDEX idx_edges_from ON edges(from_id, rel_type);
			CREATE VIRTUAL TABLE nodes_fts USING fts5(${FTS_COLUMNS.join(", ")});
			CREATE VIRTUAL TABLE node_embeddings USING vec0(node_id INTEGER PRIMARY KEY, embedding FLOAT[4]);
			PRAGMA user_version = 3;
		`);
		const node = (id: number, label: string, name: string, description: string, vector: number[]) => {
			const owner = owners[(id - 1) % owners.length];
			const props = { name, description, engrama_id: `00000000-0000-4000-8000-00000000000${id}`, org_id: owner.orgId, user_id: owner.userId, status: "active" };
			db.run("INSERT INTO nodes (id, label, key_field, key_value, props, created_at, updated_at) VALUES (?, ?, 'name', ?, ?, ?, ?)", [
				id,
				label,
				name,
				JSON.stringify(props),
				NOW,
				NOW,
			]);
			db.run(`INSERT INTO nodes_fts (rowid, name, description) VALUES (?, ?, ?)`, [id, name, description]);
			db.run("INSERT INTO node_embeddings (node_id, embedding) VALUES (?, ?)", [id, new Uint8Array(new Float32Array(vector).buffer)]);
		};
		// Unnormalised: for the query [1, 0, 0, 0] cosine ranks the first (similarity 1) above the
		// second (0.707); L2 ranks the second first (distance 1 against 9).
		node(1, "Project", "Billing Portal", "Invoices for clinics", [10, 0, 0, 0]);
		node(2, "Technology", "Python", "A programming language", [1, 1, 0, 0]);
		db.run("INSERT INTO edges (from_id, rel_type, to_id, created_at, org_id, user_id) VALUES (1, 'USES', 2, ?, ?, ?)", [NOW, SCOPE.orgId, SCOPE.userId]);
	} finally {
		db.close();
	}
}

const sha256 = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

describe("schema versions (PRAGMA user_version is the Python layout's, engrama_meta.schema_version ours)", () => {
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
			// The Python layout's version is left as the file has it; ours is recorded beside it.
			expect(db.get("PRAGMA user_version")).toEqual({ user_version: PY_LAYOUT_VERSION });
			expect(db.get("SELECT value FROM engrama_meta WHERE key = 'schema_version'")).toEqual({ value: String(SCHEMA_VERSION) });
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
		db.exec(`CREATE TABLE nodes (id INTEGER PRIMARY KEY); CREATE TABLE engrama_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
			INSERT INTO engrama_meta VALUES ('schema_version', '${SCHEMA_VERSION + 1}'); PRAGMA user_version = 3`);
		db.close();
		const before = sha256(path);

		const error = await openMemory(parseConfig({ backend: "sqlite", dbPath: path, ...SCOPE })).catch((e: unknown) => e);
		expect((error as Error).message).toContain(path);
		expect((error as Error).message).toMatch(new RegExp(`schema version ${SCHEMA_VERSION + 1}, newer than this Engrama`));
		expect(sha256(path)).toBe(before);
		// The refused open released its lock: the file opens again.
		const again = await openDatabase({ path, readonly: true });
		expect(again.get("PRAGMA user_version")).toEqual({ user_version: 3 });
		again.close();
	});

	it("refuses a newer Python engrama layout (user_version above 3, none of our tables) and leaves it as it was", async () => {
		const path = join(dir.path, "python-next.db");
		const db = await openDatabase({ path });
		db.exec("CREATE TABLE nodes (id INTEGER PRIMARY KEY); PRAGMA user_version = 4");
		db.close();
		const before = sha256(path);
		const error = await openMemory(parseConfig({ backend: "sqlite", dbPath: path, ...SCOPE })).catch((e: unknown) => e);
		expect((error as Error).message).toContain(path);
		expect((error as Error).message).toMatch(/Python engrama's layout version 4; this Engrama reads version 3/);
		expect(sha256(path)).toBe(before);
	});

	it("a file an older Engrama marked user_version 6 goes back to the layout it has (3), our version moving to engrama_meta", async () => {
		const path = join(dir.path, "older.db");
		const first = await openMemory(parseConfig({ backend: "sqlite", dbPath: path, ...SCOPE }));
		await first.memory.remember({ scope: first.scope, source: "cli" }, { label: "Project", key: "Atlas" });
		await first.close();
		const db = await openDatabase({ path });
		db.exec("DELETE FROM engrama_meta WHERE key = 'schema_version'; PRAGMA user_version = 6");
		db.close();

		const opened = await openMemory(parseConfig({ backend: "sqlite", dbPath: path, ...SCOPE }));
		try {
			expect((await opened.memory.get(opened.scope, "Project", "Atlas"))?.key).toBe("Atlas");
			expect((await opened.memory.graph.health()).schemaVersion).toBe(SCHEMA_VERSION);
		} finally {
			await opened.close();
		}
		const after = await openDatabase({ path, readonly: true });
		expect(after.get("PRAGMA user_version")).toEqual({ user_version: PY_LAYOUT_VERSION });
		expect(after.get("SELECT value FROM engrama_meta WHERE key = 'schema_version'")).toEqual({ value: String(SCHEMA_VERSION) });
		after.close();
	});
});

describe("a file the Python engrama wrote", () => {
	let dir: ReturnType<typeof makeTempDir>;
	beforeEach(() => {
		dir = makeTempDir("engrama-schema-");
	});
	afterEach(() => dir.cleanup());

	it("opens under its sole owner with no ids configured, and that owner is kept", async () => {
		const path = join(dir.path, "python.db");
		const owner = { orgId: "2b1c0f6e-sub", userId: "2b1c0f6e-sub" };
		await writePythonLayout(path, [owner]);
		for (let i = 0; i < 2; i++) {
			const opened = await openMemory(parseConfig({ backend: "sqlite", dbPath: path }));
			try {
				expect(opened.scope).toEqual(owner);
				expect((await opened.memory.get(opened.scope, "Project", "Billing Portal"))?.props.description).toBe("Invoices for clinics");
			} finally {
				await opened.close();
			}
		}
	});

	it("with two owners chooses neither: the ids must be set", async () => {
		const path = join(dir.path, "python.db");
		await writePythonLayout(path, [SCOPE, { orgId: "acme", userId: "bob" }]);
		const opened = await openMemory(parseConfig({ backend: "sqlite", dbPath: path }));
		try {
			expect(opened.scope.orgId).toBe("standalone");
			expect(await opened.memory.get(opened.scope, "Project", "Billing Portal")).toBeNull();
		} finally {
			await opened.close();
		}
	});

	it("a vector table declared with distance_metric=l2 is rebuilt as cosine too", async () => {
		const path = join(dir.path, "python.db");
		await writePythonLayout(path);
		const db = await openDatabase({ path });
		db.exec("DROP TABLE node_embeddings; CREATE VIRTUAL TABLE node_embeddings USING vec0(node_id INTEGER PRIMARY KEY, embedding float[4] distance_metric=l2)");
		db.run("INSERT INTO node_embeddings (node_id, embedding) VALUES (1, ?), (2, ?)", [
			new Uint8Array(new Float32Array([10, 0, 0, 0]).buffer),
			new Uint8Array(new Float32Array([1, 1, 0, 0]).buffer),
		]);
		db.close();
		const opened = await openMemory(parseConfig({ backend: "sqlite", dbPath: path, ...SCOPE }));
		try {
			const hits = await opened.memory.vectors!.knn(opened.scope, new Float32Array([1, 0, 0, 0]), 2);
			expect(hits.map((h) => h.similarity.toFixed(4))).toEqual(["1.0000", Math.SQRT1_2.toFixed(4)]);
		} finally {
			await opened.close();
		}
	});

	it("has its L2 vector table rebuilt as cosine, vectors unchanged, so similarities are cosine; its extra index goes", async () => {
		const path = join(dir.path, "python.db");
		await writePythonLayout(path);
		const opened = await openMemory(parseConfig({ backend: "sqlite", dbPath: path, ...SCOPE }));
		try {
			const hits = await opened.memory.vectors!.knn(opened.scope, new Float32Array([1, 0, 0, 0]), 2);
			expect(hits.map((h) => h.nodeId)).toEqual(["00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002"]);
			expect(hits[0].similarity).toBeCloseTo(1, 5);
			expect(hits[1].similarity).toBeCloseTo(Math.SQRT1_2, 5);
		} finally {
			await opened.close();
		}
		const db = await openDatabase({ path, readonly: true });
		try {
			expect(db.get<{ sql: string }>("SELECT sql FROM sqlite_master WHERE name = 'node_embeddings'")?.sql).toMatch(/float\[4\] distance_metric=cosine/);
			const stored = db.get<{ embedding: Uint8Array }>("SELECT embedding FROM node_embeddings WHERE node_id = 2");
			expect(Array.from(new Float32Array(new Uint8Array(stored!.embedding).buffer))).toEqual([1, 1, 0, 0]);
			expect(db.get("SELECT 1 AS x FROM sqlite_master WHERE name = 'idx_edges_from'")).toBeUndefined();
		} finally {
			db.close();
		}
	});
});
