// One memory file, two engines: what the WASM engine (the plugin's) wrote, native SQLite (the command
// line's) reads byte for byte, and the other way round; and the two never write it at once.
import { statSync, writeFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openNativeDatabase } from "../../../../src/backends/sqlite/native/open-native";
import { openSqlite } from "../../../../src/backends/sqlite/open-sqlite";
import { DatabaseFileError, DatabaseLockedError } from "../../../../src/backends/sqlite/wasm/errors";
import { openDatabase } from "../../../../src/backends/sqlite/wasm/open-database";
import type { SqliteConnection, SqlValue } from "../../../../src/backends/sqlite/sqlite-connection";
import { parseConfig, type SqliteEngine } from "../../../../src/config/engrama-config";
import { exportMemory } from "../../../../src/engine/transfer/memory-export";
import type { WriteContext } from "../../../../src/engine/write/write-pipeline";
import { openMemory, type OpenedMemory } from "../../../../src/nodejs/open-memory";
import { testProfile } from "../../../contracts/backends";
import { makeTempDir } from "../../../helpers/temp-dir";

const HASH = { provider: "hash" as const, model: "", dimensions: 16, baseUrl: "", apiKey: "", allowRemoteModels: false, localModelPath: "", timeoutMs: 30_000 };

let dir: ReturnType<typeof makeTempDir>;
let db: string;
beforeEach(() => {
	dir = makeTempDir("engrama-same-file-");
	db = join(dir.path, "memory.db");
});
afterEach(() => dir.cleanup());

function open(sqliteEngine: SqliteEngine): Promise<OpenedMemory> {
	return openMemory(parseConfig({ backend: "sqlite", sqliteEngine, dbPath: db, embedding: HASH }), { profile: testProfile() });
}

/** Every row of every table of the file (FTS5 and vec0 shadow tables included), blobs as hex. */
function dump(conn: SqliteConnection): Record<string, string[]> {
	const tables = conn.all<{ name: string }>("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").map((t) => t.name);
	const out: Record<string, string[]> = {};
	for (const table of tables) {
		const rows = conn.all<Record<string, SqlValue>>(`SELECT * FROM "${table}"`);
		// Values first: a Buffer (native blobs) would serialise itself before a replacer saw it.
		const plain = (v: SqlValue) => (v instanceof Uint8Array ? `x'${Buffer.from(v).toString("hex")}'` : typeof v === "bigint" ? String(v) : v);
		out[table] = rows.map((row) => JSON.stringify(Object.entries(row).map(([k, v]) => [k, plain(v)]))).sort();
	}
	return out;
}

async function dumpWith(engine: "wasm" | "native"): Promise<Record<string, string[]>> {
	const conn = engine === "wasm" ? await openDatabase({ path: db, readonly: true }) : (await openNativeDatabase({ path: db, readonly: true })).conn;
	try {
		return dump(conn);
	} finally {
		conn.close();
	}
}

async function exportLines(opened: OpenedMemory): Promise<string[]> {
	const out: string[] = [];
	const options = { vectors: true, embeddingModel: opened.memory.embedder?.model ?? "", version: "test", now: "2026-01-01T00:00:00.000Z", pageSize: 4 };
	for await (const line of exportMemory(opened.memory.graph, opened.memory.vectors, options)) out.push(JSON.stringify(line));
	return out;
}

async function write(opened: OpenedMemory, tag: string): Promise<void> {
	const { memory, scope } = opened;
	const person: WriteContext = { scope, source: "cli" };
	const agent: WriteContext = { scope, source: "mcp", agent: "claude-code", session: `s-${tag}` };
	await memory.remember(person, { label: "Project", key: `Billing ${tag}`, props: { description: "Invoices, 5 of them", tags: ["billing", "web"], budget: 5, ratio: 0.25 } });
	await memory.remember(agent, { label: "Technology", key: `Python ${tag}`, props: { description: "A language" } });
	await memory.remember(agent, { label: "Concept", key: `名前 ünïcödé ${tag}`, props: { notes: "line one\nline two" } });
	await memory.relate(agent, { label: "Project", key: `Billing ${tag}` }, "USES", { label: "Technology", key: `Python ${tag}` });
	await memory.remember(person, { label: "Concept", key: `Old idea ${tag}` });
	await memory.forget(person, { label: "Concept", key: `Old idea ${tag}` });
	await memory.remember({ scope, source: "sdk", agent: "other-bot" }, { label: "Technology", key: `Python ${tag}`, props: { description: "A language, edited" } });
}

describe("one memory file, both engines", () => {
	it("what either engine writes, the other reads with every row and byte; exports are identical", async () => {
		const wasm = await open("wasm");
		await write(wasm, "w");
		const exportedByWasm = await exportLines(wasm);
		await wasm.close();
		const afterWasm = await dumpWith("wasm");
		expect(afterWasm.nodes.length).toBeGreaterThan(3);
		expect(afterWasm.node_embeddings.length).toBeGreaterThan(3);
		expect(await dumpWith("native")).toEqual(afterWasm);

		const native = await open("native");
		expect(await exportLines(native)).toEqual(exportedByWasm);
		await write(native, "n");
		const exportedByNative = await exportLines(native);
		await native.close();
		const afterNative = await dumpWith("native");
		expect(afterNative.nodes.length).toBe(afterWasm.nodes.length * 2);
		expect(await dumpWith("wasm")).toEqual(afterNative);

		const again = await open("wasm");
		try {
			expect(await exportLines(again)).toEqual(exportedByNative);
			const hits = await again.memory.search(again.scope, "Invoices", { limit: 5 });
			expect(hits.results.map((h) => h.name)).toEqual(expect.arrayContaining(["Billing w", "Billing n"]));
		} finally {
			await again.close();
		}
	}, 120_000);

	it("the lock file keeps the other engine out while one has the file open", async () => {
		const native = await openNativeDatabase({ path: db });
		try {
			await expect(openDatabase({ path: db })).rejects.toBeInstanceOf(DatabaseLockedError);
		} finally {
			native.conn.close();
		}
		const wasm = await openDatabase({ path: db });
		try {
			await expect(openNativeDatabase({ path: db })).rejects.toBeInstanceOf(DatabaseLockedError);
		} finally {
			wasm.close();
		}
		// Released on close: either opens again.
		(await openNativeDatabase({ path: db })).conn.close();
	});

	it("creates a new memory private (0600) and refuses another program's database untouched", async () => {
		(await openNativeDatabase({ path: db })).conn.close();
		expect(statSync(db).mode & 0o777).toBe(0o600);

		const foreign = join(dir.path, "other.db");
		const other = await openNativeDatabase({ path: foreign });
		other.conn.exec("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL); INSERT INTO invoices (total) VALUES (9.5)");
		other.conn.close();
		const before = readFileSync(foreign);
		await expect(openNativeDatabase({ path: foreign, requiredTable: "nodes" })).rejects.toThrow(/another program: tables invoices, no nodes table/);
		expect(readFileSync(foreign).equals(before)).toBe(true);

		const garbage = join(dir.path, "garbage.db");
		writeFileSync(garbage, "not a database, just text that is long enough to have a header".repeat(100));
		await expect(openNativeDatabase({ path: garbage, requiredTable: "nodes" })).rejects.toBeInstanceOf(DatabaseFileError);
	});
});

describe("choosing the engine", () => {
	const unavailable = () => Promise.reject(Object.assign(new Error("native SQLite is not available (better-sqlite3: no binary)"), { code: "native_sqlite_unavailable" }));

	it("auto runs native where it loads, and WASM with the reason where it does not; native then refuses", async () => {
		const native = await openSqlite({ path: db }, "auto", openNativeDatabase);
		expect(native.engine).toMatch(/^native SQLite 3\.\d+\.\d+ \(better-sqlite3/);
		native.conn.close();

		const fallback = await openSqlite({ path: db }, "auto", unavailable);
		expect(fallback.engine).toMatch(/^WASM SQLite 3\.45\.\d+; native SQLite is not available \(better-sqlite3: no binary\)/);
		fallback.conn.close();

		await expect(openSqlite({ path: db }, "native", unavailable)).rejects.toThrow(/native SQLite is not available/);
		// Any other failure (a lock, a damaged file) is the memory's, not the engine's: no fallback.
		const locked = await openSqlite({ path: db }, "wasm", openNativeDatabase);
		try {
			await expect(openSqlite({ path: db }, "auto", openNativeDatabase)).rejects.toBeInstanceOf(DatabaseLockedError);
		} finally {
			locked.conn.close();
		}
	});
});
