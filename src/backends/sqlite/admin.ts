import type { CompactReport, IntegrityCheck, IntegrityCheckId, ScopeFootprint, ScopeForgetReport } from "../../engine/backend-kit";
import { isFullScope } from "../../engine/backend-kit";
import type { PartialScope, Scope } from "../../engine/types";
import type { SqliteStoreContext } from "./store-context";
import { FILE_ONLY_META } from "./file-only-meta";
import { writeFts } from "./fulltext";
import { dropPassages } from "./passages";
import { LIVE, SCOPE_WHERE, assertScope, parseProps, scopeParams } from "./rows";
import { ID_EXPR, ORG_EXPR, SCOPES_TABLE, SCOPE_NUMBER, USER_EXPR } from "./schema";
import type { SqlValue } from "./sqlite-connection";

/** The store as a whole (StoreAdmin): integrity checks, GDPR forget and footprint, settings. */

export async function checkIntegrity(ctx: SqliteStoreContext): Promise<readonly IntegrityCheck[]> {
	const check = (id: IntegrityCheck["check"], countSql: string, sampleSql: string): IntegrityCheck => ({
		check: id,
		problems: Number(ctx.conn.get<{ n: number }>(countSql)?.n ?? 0),
		samples: ctx.conn.all<{ s: SqlValue }>(`${sampleSql} LIMIT 5`).map((r) => String(r.s)),
	});
	const messages = ctx.conn.all<{ integrity_check: string }>("PRAGMA integrity_check").map((r) => String(r.integrity_check));
	const broken = messages.filter((m) => m !== "ok");
	const endpointsMissing = "NOT EXISTS (SELECT 1 FROM nodes n WHERE n.id = e.from_id) OR NOT EXISTS (SELECT 1 FROM nodes n WHERE n.id = e.to_id)";
	const nodeScope = (alias: string) => `${ORG_EXPR.replace("props", `${alias}.props`)} || char(31) || ${USER_EXPR.replace("props", `${alias}.props`)}`;
	// An edge without org_id (written by an older reader) takes its endpoints' scope: not a problem.
	const scopeDiffers = `(e.org_id IS NOT NULL AND (e.org_id || char(31) || COALESCE(e.user_id, '')) != ${nodeScope("a")}) OR ${nodeScope("a")} != ${nodeScope("b")}`;
	return [
		{ check: "storage", problems: broken.length, samples: broken.slice(0, 5) },
		check(
			"fulltext_missing",
			`SELECT count(*) AS n FROM nodes WHERE ${LIVE} AND id NOT IN (SELECT rowid FROM nodes_fts)`,
			`SELECT ${ID_EXPR} AS s FROM nodes WHERE ${LIVE} AND id NOT IN (SELECT rowid FROM nodes_fts) ORDER BY id`,
		),
		check(
			"fulltext_orphans",
			"SELECT count(*) AS n FROM nodes_fts WHERE rowid NOT IN (SELECT id FROM nodes)",
			"SELECT 'fulltext row ' || rowid AS s FROM nodes_fts WHERE rowid NOT IN (SELECT id FROM nodes) ORDER BY rowid",
		),
		check(
			"dangling_edges",
			`SELECT count(*) AS n FROM edges e WHERE ${endpointsMissing}`,
			`SELECT 'edge ' || e.id || ' (' || e.from_id || ' -' || e.rel_type || '-> ' || e.to_id || ')' AS s FROM edges e WHERE ${endpointsMissing} ORDER BY e.id`,
		),
		check(
			"edge_scope",
			`SELECT count(*) AS n FROM edges e JOIN nodes a ON a.id = e.from_id JOIN nodes b ON b.id = e.to_id WHERE ${scopeDiffers}`,
			`SELECT 'edge ' || e.id || ' (' || e.rel_type || ')' AS s FROM edges e JOIN nodes a ON a.id = e.from_id JOIN nodes b ON b.id = e.to_id WHERE ${scopeDiffers} ORDER BY e.id`,
		),
	];
}

export async function repairIntegrity(ctx: SqliteStoreContext): Promise<Partial<Record<IntegrityCheckId, number>>> {
	return ctx.atomic(() => {
		const missing = ctx.conn.all<{ id: number; props: string }>(`SELECT id, props FROM nodes WHERE ${LIVE} AND id NOT IN (SELECT rowid FROM nodes_fts)`);
		for (const row of missing) writeFts(ctx, row.id, parseProps(row.props), true);
		const fulltextOrphans = ctx.conn.run("DELETE FROM nodes_fts WHERE rowid NOT IN (SELECT id FROM nodes)").changes;
		const dangling = ctx.conn.run(
			"DELETE FROM edges WHERE from_id NOT IN (SELECT id FROM nodes) OR to_id NOT IN (SELECT id FROM nodes)",
		).changes;
		return { fulltext_missing: missing.length, fulltext_orphans: fulltextOrphans, dangling_edges: dangling };
	});
}

export async function forgetScope(ctx: SqliteStoreContext, scope: Scope): Promise<ScopeForgetReport> {
	assertScope(scope);
	ctx.knownRows.clear();
	return ctx.atomic(() => forgetScopeRows(ctx, scope));
}

export function forgetScopeRows(ctx: SqliteStoreContext, scope: Scope): ScopeForgetReport {
	// Set-based: one statement per table, whatever the size of the scope.
	const mine = `SELECT id FROM nodes WHERE ${SCOPE_WHERE}`;
	const params = scopeParams(scope);
	let edges = ctx.conn.run(`DELETE FROM edges WHERE from_id IN (${mine}) OR to_id IN (${mine})`, [...params, ...params]).changes;
	const fulltext = ctx.conn.run(`DELETE FROM nodes_fts WHERE rowid IN (${mine})`, params).changes;
	// Passages, their words and their vectors (vec0 does not cascade).
	const passages = dropPassages(ctx, mine, params);
	edges += ctx.conn.run("DELETE FROM edges WHERE org_id = ? AND user_id = ?", params).changes;
	const nameIndex =
		ctx.conn.run(`DELETE FROM node_name_fragments WHERE scope = ${SCOPE_NUMBER}`, params).changes +
		ctx.conn.run(`DELETE FROM node_names WHERE scope = ${SCOPE_NUMBER}`, params).changes;
	// The scope's strings go too (a forget leaves none of its ids in the file).
	ctx.conn.run(`DELETE FROM ${SCOPES_TABLE} WHERE org_id = ? AND user_id = ?`, params);
	const history = ctx.conn.run("DELETE FROM node_history WHERE org_id = ? AND user_id = ?", params).changes;
	const nodes = ctx.conn.run(`DELETE FROM nodes WHERE ${SCOPE_WHERE}`, params).changes;
	if (fulltext > 0) mergeFulltext(ctx, "nodes_fts");
	if (passages > 0) mergeFulltext(ctx, "passages_fts");
	return { nodes, edges, fulltext, history, nameIndex, passages };
}

/**
 * FTS5 keeps a deleted row's terms in its segments (a delete only adds a marker) until they are
 * merged: 'optimize' merges them all into one segment, and secure_delete zeroes the freed pages.
 */
function mergeFulltext(ctx: SqliteStoreContext, table: "nodes_fts" | "passages_fts"): void {
	ctx.conn.run(`INSERT INTO ${table}(${table}) VALUES ('optimize')`);
}

export async function scopeFootprint(ctx: SqliteStoreContext, scope: PartialScope): Promise<ScopeFootprint> {
	if (!isFullScope(scope)) return { nodes: 0, edges: 0, fulltext: 0, history: 0, nameIndex: 0, passages: 0 };
	const params = scopeParams(scope);
	const count = (sql: string, extra: readonly SqlValue[] = []) => Number(ctx.conn.get<{ n: number }>(sql, [...params, ...extra])?.n ?? 0);
	const nodes = count(`SELECT count(*) AS n FROM nodes WHERE ${SCOPE_WHERE}`);
	const fulltext = count(`SELECT count(*) AS n FROM nodes_fts WHERE rowid IN (SELECT id FROM nodes WHERE ${SCOPE_WHERE})`);
	const ownEdges = count("SELECT count(*) AS n FROM edges WHERE org_id = ? AND user_id = ?");
	// Edges stamped with another scope but touching this scope's nodes go too (forgetScope removes them).
	const foreignEdges = count(
		`WITH mine AS (SELECT id FROM nodes WHERE ${SCOPE_WHERE})
		SELECT count(*) AS n FROM edges
		WHERE NOT (COALESCE(org_id, '') = ? AND COALESCE(user_id, '') = ?)
		AND (from_id IN (SELECT id FROM mine) OR to_id IN (SELECT id FROM mine))`,
		params,
	);
	const nameIndex =
		count(`SELECT count(*) AS n FROM node_names WHERE scope = ${SCOPE_NUMBER}`) +
		count(`SELECT count(*) AS n FROM node_name_fragments WHERE scope = ${SCOPE_NUMBER}`);
	const history = count("SELECT count(*) AS n FROM node_history WHERE org_id = ? AND user_id = ?");
	const passages = count(`SELECT count(*) AS n FROM note_passages WHERE node_id IN (SELECT id FROM nodes WHERE ${SCOPE_WHERE})`);
	return { nodes, edges: ownEdges + foreignEdges, fulltext, history, nameIndex, passages };
}

export async function getMeta(ctx: SqliteStoreContext, key: string): Promise<string | null> {
	return ctx.conn.get<{ value: string }>("SELECT value FROM engrama_meta WHERE key = ?", [key])?.value ?? null;
}

export async function setMeta(ctx: SqliteStoreContext, key: string, value: string): Promise<void> {
	// The file's own settings are schema.ts's to write: an older file's export imported here brings its schema version, which is not this file's.
	if (FILE_ONLY_META.has(key)) return;
	ctx.conn.run("INSERT OR REPLACE INTO engrama_meta(key, value) VALUES (?, ?)", [key, value]);
}

export async function deleteMeta(ctx: SqliteStoreContext, key: string): Promise<void> {
	ctx.conn.run("DELETE FROM engrama_meta WHERE key = ?", [key]);
}

export async function listScopes(ctx: SqliteStoreContext): Promise<readonly Scope[]> {
	return ctx.conn
		.all<{ org: string; usr: string }>(
			`SELECT DISTINCT COALESCE(json_extract(props, '$.org_id'), '') AS org, COALESCE(json_extract(props, '$.user_id'), '') AS usr FROM nodes ORDER BY org, usr`,
		)
		.filter((r) => r.org && r.usr)
		.map((r) => ({ orgId: String(r.org), userId: String(r.usr) }));
}

/** The memory's settings; the file's own (its schema version) stay with the file: never exported or migrated. */
export async function listMeta(ctx: SqliteStoreContext): Promise<readonly (readonly [string, string])[]> {
	const rows = ctx.conn.all<{ key: string; value: string }>("SELECT key, value FROM engrama_meta ORDER BY key");
	return rows.filter((r) => !FILE_ONLY_META.has(r.key)).map((r) => [r.key, r.value] as const);
}

export async function purgeDeleted(ctx: SqliteStoreContext): Promise<void> {
	// A hard delete's words are still in the segments (a GDPR forget merged its own already: cheap).
	mergeFulltext(ctx, "nodes_fts");
	mergeFulltext(ctx, "passages_fts");
	// Older frames of the WAL still hold the pages as they were before the forget.
	ctx.conn.exec("PRAGMA wal_checkpoint(TRUNCATE)");
}

/**
 * VACUUM: the file rewritten without its free pages (a migration or a forget leaves them; later
 * writes reuse them, but the file never shrinks by itself). Outside any transaction (SQLite
 * refuses VACUUM inside one); the write-ahead log is emptied before, so VACUUM does not copy it,
 * and after, so the file on disk is the compacted one. Row ids are kept: every table whose ids
 * other rows hold has an INTEGER PRIMARY KEY (checked by tests/backends/sqlite/compact.test.ts).
 */
export async function compact(ctx: SqliteStoreContext): Promise<CompactReport> {
	if (ctx.depth > 0) throw new Error("The memory cannot be compacted inside a transaction.");
	const bytes = () => Number(ctx.conn.get<{ n: number }>("SELECT page_count * page_size AS n FROM pragma_page_count(), pragma_page_size()")?.n ?? 0);
	ctx.conn.exec("PRAGMA wal_checkpoint(TRUNCATE)");
	const bytesBefore = bytes();
	ctx.knownRows.clear();
	ctx.forgetAdjacency();
	ctx.conn.exec("VACUUM");
	ctx.conn.exec("PRAGMA wal_checkpoint(TRUNCATE)");
	return { bytesBefore, bytesAfter: bytes() };
}
