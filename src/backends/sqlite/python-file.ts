import { STANDALONE_ID_META, STANDALONE_ORG_META } from "../../engine/backend-kit";
import { ORG_EXPR as ORG, USER_EXPR as USER, rebuildFloatVectors } from "./schema";
import type { SqliteConnection } from "./sqlite-connection";

// What the Python engrama (0.18.1) leaves in a memory file that this engine reads differently.
// Run on every open, not once: the Python engrama may have opened the file since.

const VECTOR_TABLE = "node_embeddings";
// The Python engrama's org-shared sentinel user: not a person, never adopted as the owner.
const ENTITY_SENTINEL = "__entity__";

/** Repairs what the Python engrama changed since the last open, atomically (inside or outside a transaction). */
export function repairAfterPython(conn: SqliteConnection): void {
	const dropIndex =
		conn.get("SELECT 1 AS x FROM sqlite_master WHERE type = 'index' AND name IN ('idx_edges_from', 'idx_edges_scope')") !== undefined;
	const vectorDims = l2VectorTableDims(conn);
	const owner = soleOwnerToAdopt(conn);
	if (!dropIndex && vectorDims === null && !owner) return;
	conn.exec("SAVEPOINT engrama_py_repair");
	try {
		// It recreates the indexes schemas 6 and 9 dropped (one duplicates the UNIQUE index; the
		// other costs a tenth of the file and only whole-scope counts would read it).
		if (dropIndex) conn.exec("DROP INDEX IF EXISTS idx_edges_from; DROP INDEX IF EXISTS idx_edges_scope");
		// vec0 fixes the metric at CREATE: the same vectors (bytes unchanged) in a cosine table of the
		// same name. The Python engrama reads it as before (same columns) and its `1 - distance`
		// scores become the cosine similarities it meant.
		if (vectorDims !== null) rebuildFloatVectors(conn, vectorDims);
		if (owner) {
			conn.run("INSERT OR REPLACE INTO engrama_meta(key, value) VALUES (?, ?)", [STANDALONE_ORG_META, owner.org]);
			conn.run("INSERT OR REPLACE INTO engrama_meta(key, value) VALUES (?, ?)", [STANDALONE_ID_META, owner.user]);
		}
		conn.exec("RELEASE engrama_py_repair");
	} catch (error) {
		conn.exec("ROLLBACK TO engrama_py_repair");
		conn.exec("RELEASE engrama_py_repair");
		throw error;
	}
}

/**
 * The dimension of a float vec0 table whose metric is not cosine (the Python engrama's declares
 * none: L2, while both programs read `1 - distance` as cosine similarity); null when there is none
 * or it is cosine.
 */
function l2VectorTableDims(conn: SqliteConnection): number | null {
	const decl = conn.get<{ sql: string }>("SELECT sql FROM sqlite_master WHERE name = ?", [VECTOR_TABLE])?.sql;
	if (!decl || /distance_metric\s*=\s*cosine/i.test(decl)) return null;
	const dims = /float\[(\d+)\]/i.exec(decl);
	return dims ? Number(dims[1]) : null;
}

/**
 * A memory this engine never opened without configured ids, whose nodes all have one owner (a
 * file the Python engrama wrote, its owner the standalone id it keeps in `local_sub`): that owner
 * becomes this file's standalone identity, so its data is visible with no ENGRAMA_ORG_ID /
 * ENGRAMA_USER_ID. Two owners or more: none is chosen (set the ids by hand).
 */
function soleOwnerToAdopt(conn: SqliteConnection): { org: string; user: string } | null {
	if (conn.get("SELECT 1 AS x FROM engrama_meta WHERE key = ?", [STANDALONE_ID_META])) return null;
	const owned = `${ORG} != '' AND ${USER} NOT IN ('', '${ENTITY_SENTINEL}')`;
	const first = conn.get<{ org: string; user: string }>(
		`SELECT ${ORG} AS org, ${USER} AS user FROM nodes WHERE ${owned} ORDER BY ${ORG}, ${USER} LIMIT 1`,
	);
	if (!first) return null;
	const last = conn.get<{ org: string; user: string }>(
		`SELECT ${ORG} AS org, ${USER} AS user FROM nodes WHERE ${owned} ORDER BY ${ORG} DESC, ${USER} DESC LIMIT 1`,
	);
	return last && last.org === first.org && last.user === first.user ? first : null;
}
