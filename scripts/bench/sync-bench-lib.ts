// Library side of the sync benchmark, bundled by scripts/bench/sync-bench.mjs with esbuild.
import { createNodeBackend as createBackend } from "../../src/nodejs/node-backend";
import type { SqliteGraphStore } from "../../src/backends/sqlite/sqlite-graph-store";
import { parseConfig as parseBaseConfig, type SqliteEngine } from "../../src/config/engrama-config";

/** The SQLite engine under test: ENGRAMA_SQLITE_ENGINE (native, wasm; default auto, as the command line). */
export const ENGINE = (process.env.ENGRAMA_SQLITE_ENGINE || "auto") as SqliteEngine;
const parseConfig = (input: Parameters<typeof parseBaseConfig>[0]) => parseBaseConfig({ sqliteEngine: ENGINE, ...input });
import { Memory } from "../../src/engine/memory";
import { parseFrontmatterYaml, splitFrontmatter } from "../../src/engine/sync/frontmatter";
import { parseNote } from "../../src/engine/sync/note-parser";
import { syncSettings } from "../../src/engine/sync/sync-settings";
import { VaultSync } from "../../src/engine/sync/vault-sync";
import type { SyncSettings } from "../../src/engine/sync/sync-settings";
import { FolderVaultSource } from "../../src/nodejs/folder-vault-source";
import { loadProfileFromDisk } from "../../src/nodejs/profile-files";

/** A real install's scope shape (standalone org, `local-<uuid>` user): the bytes every edge and name row repeat. */
export const STANDALONE_SCOPE = { orgId: "standalone", userId: "local-00000000-0000-4000-8000-000000000000" };

export async function openSync(vaultDir: string, dbPath: string, settings: Partial<SyncSettings> = {}, scope = { orgId: "bench", userId: "bench" }) {
	const config = parseConfig({ backend: "sqlite", dbPath, ...scope });
	const { graph, vectors } = await createBackend(config);
	const memory = new Memory({ graph, vectors, embedder: null, profile: loadProfileFromDisk("base", []) });
	const source = new FolderVaultSource(vaultDir);
	const sync = new VaultSync({ memory, source, scope, settings });
	return { memory, source, sync, close: () => memory.close() };
}

/** The floor: list the vault, read every note and parse its frontmatter; nothing else. */
export async function floor(vaultDir: string): Promise<{ files: number; keys: number }> {
	const source = new FolderVaultSource(vaultDir);
	let keys = 0;
	const files = (await source.list()).filter((f) => !f.path.split("/").some((p) => p.startsWith(".")));
	for (const f of files) {
		const split = splitFrontmatter(await source.read(f.path));
		if (split.kind !== "block") continue;
		const parsed = parseFrontmatterYaml(split.yaml, 1);
		if (parsed.ok) keys += Object.keys(parsed.data).length;
	}
	return { files: files.length, keys };
}

/** Reads every note and parses it fully (what sync does before touching the graph). */
export async function parseAll(vaultDir: string): Promise<{ files: number; notes: number }> {
	const source = new FolderVaultSource(vaultDir);
	const settings = syncSettings({});
	const profile = loadProfileFromDisk("base", []);
	let notes = 0;
	const files = (await source.list()).filter((f) => !f.path.split("/").some((p) => p.startsWith(".")));
	for (const f of files) {
		const result = parseNote({ path: f.path, text: await source.read(f.path), settings, profile });
		if (result.kind === "note") notes++;
	}
	return { files: files.length, notes };
}

/**
 * What a synced graph's rows cost SQLite alone: copies every row of `fromDb` (a database a sync
 * built) into a fresh database with `INSERT … SELECT` from the attached file, batched like a sync
 * (500 nodes with their fulltext and name rows per transaction, then their edges). No engine code
 * and no parameter binding: SQLite's own B-tree, index, FTS5 and commit work. CPU time of the copy.
 */
export async function replayRows(fromDb: string, toDb: string): Promise<{ nodes: number; edges: number; fragments: number; cpuMs: number }> {
	const { graph } = await createBackend(parseConfig({ backend: "sqlite", dbPath: toDb, orgId: "bench", userId: "bench" }));
	await graph.init();
	const conn = (graph as SqliteGraphStore).connection();
	conn.run("ATTACH DATABASE ? AS src", [fromDb]);
	const ftsCols = conn.all<{ name: string }>("PRAGMA src.table_info(nodes_fts)").map((c) => c.name).join(", ");
	const ids = conn.all<{ id: number }>("SELECT id FROM src.nodes ORDER BY id").map((r) => r.id);
	const cpu0 = process.cpuUsage();
	const batches: [number, number][] = [];
	for (let i = 0; i < ids.length; i += 500) batches.push([ids[i], ids[Math.min(i + 500, ids.length) - 1]]);
	for (const range of batches) {
		conn.transaction(() => {
			conn.run("INSERT INTO nodes SELECT * FROM src.nodes WHERE id BETWEEN ? AND ? ORDER BY id", range);
			conn.run(`INSERT INTO nodes_fts(rowid, ${ftsCols}) SELECT rowid, ${ftsCols} FROM src.nodes_fts WHERE rowid BETWEEN ? AND ?`, range);
			conn.run("INSERT INTO node_names SELECT * FROM src.node_names WHERE node_id BETWEEN ? AND ?", range);
			conn.run("INSERT INTO node_name_fragments SELECT * FROM src.node_name_fragments WHERE node_id BETWEEN ? AND ? ORDER BY node_id", range);
		});
	}
	for (const range of batches) {
		conn.transaction(() => conn.run("INSERT OR IGNORE INTO edges SELECT * FROM src.edges WHERE from_id BETWEEN ? AND ? ORDER BY id", range));
	}
	const used = process.cpuUsage(cpu0);
	const count = (table: string) => Number(conn.get<{ n: number }>(`SELECT count(*) AS n FROM ${table}`)?.n ?? 0);
	const result = { nodes: count("nodes"), edges: count("edges"), fragments: count("node_name_fragments"), cpuMs: Math.round((used.user + used.system) / 1000) };
	conn.run("DETACH DATABASE src");
	await graph.close();
	return result;
}

/**
 * The database's bytes per table and index (SQLite's dbstat: pages in use × page size), after a
 * checkpoint, and the file's size. Tables and indexes by name, largest first.
 */
export async function dbBytes(dbPath: string): Promise<{ file: number; objects: Record<string, number> }> {
	const { graph } = await createBackend(parseConfig({ backend: "sqlite", dbPath, orgId: "bench", userId: "bench" }));
	await graph.init();
	const conn = (graph as SqliteGraphStore).connection();
	conn.exec("PRAGMA wal_checkpoint(TRUNCATE)");
	const pageSize = Number(conn.get<{ page_size: number }>("PRAGMA page_size")?.page_size ?? 4096);
	const pages = Number(conn.get<{ page_count: number }>("PRAGMA page_count")?.page_count ?? 0);
	const rows = conn.all<{ name: string; bytes: number }>("SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC");
	await graph.close();
	return { file: pageSize * pages, objects: Object.fromEntries(rows.map((r) => [r.name, Number(r.bytes)])) };
}
