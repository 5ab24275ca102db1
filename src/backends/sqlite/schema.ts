import { FULLTEXT_FIELDS } from "../../engine/backend-kit";
import type { PropValue } from "../../engine/types";
import { needsSegmenting } from "../../engine/backend-kit";
import { ELIDED_AGENT, ELIDED_SCOPE, ELIDED_SESSION, NOTE_PATH_TRIGGERS, packEdgeProps, unpackEdgeProps } from "./edge-props";
import { ftsValues } from "./fts-values";
import { type PassageText, packPassageText } from "./passage-text";
import type { SqlValue, SqliteConnection } from "./sqlite-connection";

/**
 * The table layout of the Python engrama (nodes, edges, nodes_fts, node_embeddings with JSON
 * props) so one memory file moves between the two. Additions are additive only: an extra
 * `edges.props` column, extra indexes and a meta table, all ignored by older readers.
 *
 * Two versions, kept apart so neither program rewrites the other's: `PRAGMA user_version` is the
 * Python engrama's layout version (it sets 3 on every open), which ours extends and never claims
 * beyond; this engine's own layer is `engrama_meta.schema_version`.
 */
export const SCHEMA_VERSION = 15;
/** The Python engrama's layout version (its `PRAGMA user_version`) that this engine reads and writes. */
export const PY_LAYOUT_VERSION = 3;
/** Engrama versions 4 to 6 kept their version in user_version; a file they wrote still says so. */
const LEGACY_OWN_VERSIONS = [4, 5, 6];
export const SCHEMA_VERSION_META = "schema_version";

/** The scopes the name index refers to by number (schema 9). */
export const SCOPES_TABLE = "engrama_scopes";
/** A scope's number in the name index, inside a statement (binds org_id, user_id). */
export const SCOPE_NUMBER = `(SELECT id FROM ${SCOPES_TABLE} WHERE org_id = ? AND user_id = ?)`;

/** Scope lives in the JSON props (Python layout); these exact expressions are indexed. */
export const ORG_EXPR = "COALESCE(json_extract(props, '$.org_id'), '')";
export const USER_EXPR = "COALESCE(json_extract(props, '$.user_id'), '')";
export const ID_EXPR = "json_extract(props, '$.engrama_id')";
export const STATUS_EXPR = "COALESCE(json_extract(props, '$.status'), '')";

/** A `nodes` row as read back (props is the JSON text). */
export interface NodeRow {
	id: number;
	label: string;
	key_field: string;
	key_value: string;
	props: string;
	created_at: string;
	updated_at: string;
}

/** The `nodes_fts` columns: the engine's fulltext fields, in the Python layout's order. */
export const FTS_COLUMNS = FULLTEXT_FIELDS;

const V1 = `
CREATE TABLE IF NOT EXISTS nodes (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	label       TEXT NOT NULL,
	key_field   TEXT NOT NULL,
	key_value   TEXT NOT NULL,
	props       TEXT NOT NULL DEFAULT '{}',
	created_at  TEXT NOT NULL,
	updated_at  TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS idx_nodes_identity ON nodes(label, key_value, ${ORG_EXPR}, ${USER_EXPR});
CREATE INDEX IF NOT EXISTS idx_nodes_label ON nodes(label);
CREATE INDEX IF NOT EXISTS idx_nodes_updated ON nodes(updated_at);
CREATE TABLE IF NOT EXISTS edges (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	from_id     INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
	rel_type    TEXT NOT NULL,
	to_id       INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
	created_at  TEXT NOT NULL,
	org_id      TEXT,
	user_id     TEXT,
	UNIQUE(from_id, rel_type, to_id)
);
CREATE INDEX IF NOT EXISTS idx_edges_from ON edges(from_id, rel_type);
CREATE INDEX IF NOT EXISTS idx_edges_to ON edges(to_id, rel_type);
CREATE VIRTUAL TABLE IF NOT EXISTS nodes_fts USING fts5(${FTS_COLUMNS.join(", ")});
`;

// v4: what this engine adds on top of the Python layout (v3).
const V4 = `
ALTER TABLE edges ADD COLUMN props TEXT NOT NULL DEFAULT '{}';
CREATE UNIQUE INDEX IF NOT EXISTS idx_nodes_engrama_id ON nodes(${ID_EXPR});
CREATE INDEX IF NOT EXISTS idx_nodes_scope_key ON nodes(${ORG_EXPR}, ${USER_EXPR}, key_value);
CREATE INDEX IF NOT EXISTS idx_nodes_scope_label ON nodes(${ORG_EXPR}, ${USER_EXPR}, label);
CREATE TABLE IF NOT EXISTS engrama_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE VIRTUAL TABLE IF NOT EXISTS nodes_fts_vocab USING fts5vocab(nodes_fts, 'row');
`;

// v5: the entity resolver's name index (normalised names and trigram-style fragments, scope
// first so a lookup never leaves the caller's rows) and node history. Rows follow their node
// (ON DELETE CASCADE); SqliteGraphStore.init backfills names for nodes written by older readers.
// Since v9 the name rows hold the scope's number in engrama_scopes, not its two strings (v5–v8
// repeated them in every row and every index entry: about half the name index's bytes).
const V5 = `
CREATE TABLE IF NOT EXISTS ${SCOPES_TABLE} (
	id       INTEGER PRIMARY KEY,
	org_id   TEXT NOT NULL,
	user_id  TEXT NOT NULL,
	UNIQUE (org_id, user_id)
);
CREATE TABLE IF NOT EXISTS node_names (
	node_id  INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
	scope    INTEGER NOT NULL,
	norm     TEXT NOT NULL,
	len      INTEGER NOT NULL,
	PRIMARY KEY (node_id, norm)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS idx_node_names_scope ON node_names(scope, norm);
CREATE TABLE IF NOT EXISTS node_name_fragments (
	scope    INTEGER NOT NULL,
	fragment TEXT NOT NULL,
	len      INTEGER NOT NULL,
	node_id  INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
	PRIMARY KEY (scope, fragment, len, node_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS idx_node_name_fragments_node ON node_name_fragments(node_id);
CREATE TABLE IF NOT EXISTS node_history (
	id           INTEGER PRIMARY KEY AUTOINCREMENT,
	engrama_id   TEXT NOT NULL,
	org_id       TEXT NOT NULL,
	user_id      TEXT NOT NULL,
	at           TEXT NOT NULL,
	prop         TEXT NOT NULL,
	before_value TEXT,
	after_value  TEXT,
	source       TEXT
);
CREATE INDEX IF NOT EXISTS idx_node_history_node ON node_history(org_id, user_id, engrama_id, id);
`;

// v6: idx_edges_from (from_id, rel_type) repeats the start of the UNIQUE(from_id, rel_type, to_id)
// index, which answers the same lookups; keeping both cost ≈15 % of a vault rebuild's graph writes
// (docs/archive/benchmarks-sync-history.md). The Python engrama recreates it if it opens the file: harmless.
const V6 = "DROP INDEX IF EXISTS idx_edges_from;";

// v8 (engrama_meta.schema_version; 7 was the split from user_version): int8 codes of the vectors, which the vector channel scans before rescoring the best rows with
// their floats (docs/benchmarks-search.md, Speed). node_embeddings stays as the Python layout has it.
export const QUANTISED_TABLE = "node_embeddings_int8";

// v13: the float vectors in chunks of FLOAT_CHUNK_ROWS rows. The vector channel rescores the int8
// scan's best rows with their floats, one vec0 point read each, and a point read walks its chunk's
// overflow pages up to the row: in vec0's default 1,024-row chunks (1.5 MB at 384-d) ≈0.25 ms a
// row, 80 rows a search; in 64-row chunks ≈0.03 ms. At 50k nodes the vector statement went from
// 37 to 29 ms CPU native (docs/benchmarks.md, search at 50k). Only the fallback full float scan
// (no int8 codes) is slower.
export const FLOAT_CHUNK_ROWS = 64;

/** The float vector table as this engine declares it: cosine, small chunks (v13); the Python layout's columns. */
export function floatVectorTableSql(dims: number): string {
	return `CREATE VIRTUAL TABLE IF NOT EXISTS node_embeddings USING vec0(node_id INTEGER PRIMARY KEY, embedding float[${dims}] distance_metric=cosine, chunk_size=${FLOAT_CHUNK_ROWS})`;
}

/**
 * vec0 fixes a table's metric and chunk size at CREATE: copies the vectors (bytes unchanged) into
 * a table of the same name declared by floatVectorTableSql, in the open transaction.
 */
export function rebuildFloatVectors(conn: SqliteConnection, dims: number): void {
	conn.exec("CREATE TEMP TABLE engrama_float_vectors AS SELECT node_id, embedding FROM node_embeddings");
	conn.exec("DROP TABLE node_embeddings");
	conn.exec(floatVectorTableSql(dims));
	conn.exec("INSERT INTO node_embeddings(node_id, embedding) SELECT node_id, embedding FROM temp.engrama_float_vectors ORDER BY node_id");
	conn.exec("DROP TABLE temp.engrama_float_vectors");
	conn.run("INSERT OR REPLACE INTO engrama_meta(key, value) VALUES ('embedding_dimensions', ?)", [String(dims)]);
}

/** A float table declared without this engine's chunk size (before v13) is rebuilt with it. */
function migrateV13(conn: SqliteConnection): void {
	const decl = conn.get<{ sql: string }>("SELECT sql FROM sqlite_master WHERE name = 'node_embeddings'")?.sql;
	const dims = Number(/float\[(\d+)\]/i.exec(decl ?? "")?.[1] ?? 0);
	if (dims === 0 || new RegExp(`chunk_size\\s*=\\s*${FLOAT_CHUNK_ROWS}\\b`, "i").test(decl ?? "")) return;
	rebuildFloatVectors(conn, dims);
}

export function quantisedTableSql(dims: number): string {
	return `CREATE VIRTUAL TABLE IF NOT EXISTS ${QUANTISED_TABLE} USING vec0(node_id INTEGER PRIMARY KEY, embedding int8[${dims}])`;
}

/** Codes for the vectors a file already holds (a vector table's dimension is in its declaration). */
function migrateV8(conn: SqliteConnection): void {
	const decl = conn.get<{ sql: string }>("SELECT sql FROM sqlite_master WHERE name = 'node_embeddings'")?.sql;
	const dims = Number(/float\[(\d+)\]/i.exec(decl ?? "")?.[1] ?? 0);
	if (dims === 0 || conn.get("SELECT 1 AS x FROM sqlite_master WHERE name = ?", [QUANTISED_TABLE])) return;
	conn.exec(quantisedTableSql(dims));
	// vec_int8: the codes keep their int8 type through INSERT … SELECT.
	conn.exec(
		`INSERT INTO ${QUANTISED_TABLE}(node_id, embedding) SELECT node_id, vec_int8(vec_quantize_int8(embedding, 'unit')) FROM node_embeddings`,
	);
}

// v9: the scope once, not in every row. Name rows: the scope's number (see V5). Edges: props
// without their scope and null provenance (edge-props.ts; `elided` says what was left out), and
// no idx_edges_scope (only whole-scope counts and forgets read edges by scope; they scan).

/**
 * Name index rows of v5–v8 (scope strings) copied into the v9 tables, in the open transaction.
 * Rows of nodes that are gone (a reader deleting with foreign keys off) are derived data: left behind.
 */
function migrateV9Names(conn: SqliteConnection): void {
	if (!hasTable(conn, "node_names") || !hasColumn(conn, "node_names", "org_id")) return;
	conn.exec(`
		DROP INDEX IF EXISTS idx_node_names_scope;
		DROP INDEX IF EXISTS idx_node_name_fragments_node;
		ALTER TABLE node_names RENAME TO node_names_v8;
		ALTER TABLE node_name_fragments RENAME TO node_name_fragments_v8;
	`);
	conn.exec(V5);
	conn.exec(`
		INSERT OR IGNORE INTO ${SCOPES_TABLE}(org_id, user_id)
			SELECT org_id, user_id FROM node_names_v8 UNION SELECT org_id, user_id FROM node_name_fragments_v8 ORDER BY 1, 2;
		INSERT INTO node_names(node_id, scope, norm, len)
			SELECT o.node_id, s.id, o.norm, o.len FROM node_names_v8 o JOIN ${SCOPES_TABLE} s ON s.org_id = o.org_id AND s.user_id = o.user_id
			WHERE o.node_id IN (SELECT id FROM nodes);
		INSERT INTO node_name_fragments(scope, fragment, len, node_id)
			SELECT s.id, o.fragment, o.len, o.node_id FROM node_name_fragments_v8 o JOIN ${SCOPES_TABLE} s ON s.org_id = o.org_id AND s.user_id = o.user_id
			WHERE o.node_id IN (SELECT id FROM nodes) ORDER BY 1, 2, 3, 4;
		DROP TABLE node_names_v8;
		DROP TABLE node_name_fragments_v8;
	`);
}

/** The v9 edge layout: the `elided` column, every row's props rewritten once; no scope index. */
function migrateV9Edges(conn: SqliteConnection): void {
	conn.exec("DROP INDEX IF EXISTS idx_edges_scope");
	if (hasColumn(conn, "edges", "elided")) return;
	conn.exec("ALTER TABLE edges ADD COLUMN elided INTEGER NOT NULL DEFAULT 0");
	// The same rule as packEdgeProps: the scope when props hold the row's own (both strings), each
	// of source_agent / source_session when it is JSON null. Rows with props that are not JSON stay.
	conn.exec(`
		UPDATE edges SET elided = f.bits,
			props = json_remove(edges.props,
				IIF(f.bits & ${ELIDED_SCOPE}, '$.org_id', '$[0]'), IIF(f.bits & ${ELIDED_SCOPE}, '$.user_id', '$[0]'),
				IIF(f.bits & ${ELIDED_AGENT}, '$.source_agent', '$[0]'), IIF(f.bits & ${ELIDED_SESSION}, '$.source_session', '$[0]'))
		FROM (
			SELECT id AS edge_id,
				IIF(json_type(props, '$.org_id') = 'text' AND json_type(props, '$.user_id') = 'text'
					AND props ->> '$.org_id' = org_id AND props ->> '$.user_id' = user_id, ${ELIDED_SCOPE}, 0)
				| IIF(json_type(props, '$.source_agent') = 'null', ${ELIDED_AGENT}, 0)
				| IIF(json_type(props, '$.source_session') = 'null', ${ELIDED_SESSION}, 0) AS bits
			FROM edges WHERE json_valid(props) AND json_type(props) = 'object'
		) AS f
		WHERE edges.id = f.edge_id AND f.bits != 0
	`);
}

// v10: edge props also without their source, its default trust, a note's origin and a note_path
// equal to the source node's path (edge-props.ts), kept true by two triggers.

/** Edges per read and rewrite while migrating (a few MB of JSON at most). */
const V10_PAGE = 5000;

/**
 * Every edge's props packed the schema 10 way, in the open transaction: read back as a schema 9
 * read gives them and packed again by the same function writes use, so a read after the migration
 * gives the same JSON. Only rows whose stored form changes are written.
 */
function migrateV10Edges(conn: SqliteConnection): number {
	let after = 0;
	let rewritten = 0;
	for (;;) {
		const page = conn.get<{ rows: string | null }>(
			`SELECT json_group_array(json_array(id, props, elided, org_id, user_id, path)) AS rows FROM (
				SELECT e.id, e.props, e.elided, e.org_id, e.user_id, json_extract(n.props, '$.obsidian_path') AS path
				FROM edges e LEFT JOIN nodes n ON n.id = e.from_id AND json_valid(n.props)
				WHERE e.id > ? ORDER BY e.id LIMIT ?)`,
			[after, V10_PAGE],
		);
		const rows = JSON.parse(page?.rows ?? "[]") as [number, string | null, number, string | null, string | null, PropValue][];
		if (rows.length === 0) return rewritten;
		const changed: [number, string, number][] = [];
		for (const [id, text, elided, org, user, path] of rows) {
			const stored = parseObject(text);
			if (stored === null) continue;
			const packed = packEdgeProps(unpackEdgeProps(stored, elided, org, user), org, user, path ?? undefined);
			if (packed.text !== text || packed.elided !== elided) changed.push([id, packed.text, packed.elided]);
		}
		if (changed.length > 0) {
			conn.run("UPDATE edges SET props = j.value->>1, elided = j.value->>2 FROM json_each(?) j WHERE edges.id = j.value->>0", [JSON.stringify(changed)]);
			rewritten += changed.length;
		}
		after = rows[rows.length - 1][0];
	}
}

// v11: words of scripts written without spaces indexed apart (engine/search/words.ts), and the
// passages of notes (sections by heading). v14: their text stored once per note, deflated
// (passage-text.ts), and passages_fts contentless: v11 and v12 kept each passage's text in
// note_passages (`body`, the indexed form, and `original` where it differed) under an
// external-content index. A contentless row is deleted by giving the text it was indexed with
// (the Python engrama's SQLite, 3.40, has no contentless_delete): this engine reads it from the
// note's blob before it replaces or removes passages; a node another program deletes takes its
// rows with it (ON DELETE CASCADE) and the trigger keeps its blob for unindexGone (passages.ts).
export const PASSAGES_V14 = `
CREATE TABLE IF NOT EXISTS note_passages (
	id       INTEGER PRIMARY KEY,
	node_id  INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
	ord      INTEGER NOT NULL,
	heading  TEXT NOT NULL,
	line     INTEGER NOT NULL,
	hash     TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_note_passages_node ON note_passages(node_id, ord);
CREATE TABLE IF NOT EXISTS note_passage_text (
	node_id INTEGER PRIMARY KEY REFERENCES nodes(id) ON DELETE CASCADE,
	packed  BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS note_passage_text_gone (packed BLOB NOT NULL);
CREATE VIRTUAL TABLE IF NOT EXISTS passages_fts USING fts5(body, content='');
CREATE VIRTUAL TABLE IF NOT EXISTS passages_fts_vocab USING fts5vocab(passages_fts, 'row');
CREATE TRIGGER IF NOT EXISTS engrama_passage_text_deleted AFTER DELETE ON note_passage_text BEGIN
	INSERT INTO note_passage_text_gone(packed) VALUES (old.packed);
END;
`;

/** Notes per page while packing v12 passage text. */
const V14_PAGE = 500;

/**
 * v12/v13 → v14, in the open transaction: each note's passage text packed into note_passage_text, the
 * external-content index dropped and every passage indexed again, contentless (same text, so the
 * same words and bm25), then the text columns dropped. Passage ids (and their vectors) are kept.
 * Returns how many passages it moved (the text's old pages stay in the file until a VACUUM).
 */
function migrateV14Passages(conn: SqliteConnection): number {
	let moved = 0;
	conn.exec("DROP TRIGGER IF EXISTS engrama_passage_deleted; DROP TABLE IF EXISTS passages_fts_vocab; DROP TABLE IF EXISTS passages_fts");
	conn.exec(PASSAGES_V14);
	for (let after = -1; ; ) {
		const rows = conn.all<{ node_id: number; id: number; text: string; body: string }>(
			`SELECT node_id, id, coalesce(original, body) AS text, body FROM note_passages
			WHERE node_id IN (SELECT DISTINCT node_id FROM note_passages WHERE node_id > ? ORDER BY node_id LIMIT ?) ORDER BY node_id, ord`,
			[after, V14_PAGE],
		);
		if (rows.length === 0) break;
		const notes = new Map<number, PassageText[]>();
		for (const r of rows) notes.set(r.node_id, [...(notes.get(r.node_id) ?? []), { id: r.id, text: r.text, body: r.body }]);
		for (const [nodeId, passages] of notes) {
			conn.run("INSERT INTO note_passage_text(node_id, packed) VALUES (?, ?)", [nodeId, packPassageText(passages)]);
			for (const p of passages) conn.run("INSERT INTO passages_fts(rowid, body) VALUES (?, ?)", [p.id, p.body]);
		}
		moved += rows.length;
		after = rows[rows.length - 1].node_id;
	}
	conn.exec("ALTER TABLE note_passages DROP COLUMN body; ALTER TABLE note_passages DROP COLUMN original");
	return moved;
}

/** Props text that holds an item's date (schema 12 indexes its day as words: node-text.ts itemDay). */
const holdsValidFrom = (props: string): boolean => props.includes('"valid_from"');
/** Props text that holds aliases (schema 15 indexes an aliases list's names: node-text.ts extraFulltext). */
const holdsAliases = (props: string): boolean => props.includes('"aliases"');

/**
 * The fulltext rows of nodes whose props text `affected` picks (v11: text holding a script written
 * without spaces; v12: an item's date), rewritten as writes now make them, in the open
 * transaction (v15: an aliases list). Derived rows only: node rows are not touched. Nodes without a row yet (a first
 * sync's deferred indexes) get theirs from the new code later.
 */
function reindexFulltext(conn: SqliteConnection, affected: (props: string) => boolean): void {
	const columns = FTS_COLUMNS.join(", ");
	for (let after = 0; ; ) {
		const rows = conn.all<{ id: number; props: string }>("SELECT id, props FROM nodes WHERE id > ? ORDER BY id LIMIT ?", [after, V10_PAGE]);
		if (rows.length === 0) return;
		for (const row of rows) {
			if (typeof row.props !== "string" || !affected(row.props)) continue;
			const props = parseObject(row.props);
			const stored = props && conn.get<Record<string, SqlValue>>(`SELECT ${columns} FROM nodes_fts WHERE rowid = ?`, [row.id]);
			if (!props || !stored) continue;
			const values = ftsValues(props);
			if (FTS_COLUMNS.every((column, i) => stored[column] === values[i])) continue;
			conn.run("DELETE FROM nodes_fts WHERE rowid = ?", [row.id]);
			conn.run(`INSERT INTO nodes_fts(rowid, ${columns}) VALUES (?, ${FTS_COLUMNS.map(() => "?").join(", ")})`, [row.id, ...values]);
		}
		after = rows[rows.length - 1].id;
	}
}

/** Props that are a JSON object, else null (another reader's text is left as it is). */
function parseObject(text: string | null): Record<string, PropValue> | null {
	if (text === null) return null;
	try {
		const value: unknown = JSON.parse(text);
		return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, PropValue>) : null;
	} catch {
		return null;
	}
}

function hasColumn(conn: SqliteConnection, table: string, column: string): boolean {
	return conn.all<{ name: string }>(`PRAGMA table_info(${table})`).some((c) => c.name === column);
}

function hasTable(conn: SqliteConnection, name: string): boolean {
	return conn.get("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = ?", [name]) !== undefined;
}

/** This engine's layer version of an open file (0: none yet), whichever way it was recorded. */
export function ownSchemaVersion(conn: SqliteConnection): number {
	if (!hasTable(conn, "engrama_meta")) return 0;
	const stored = conn.get<{ value: string }>("SELECT value FROM engrama_meta WHERE key = ?", [SCHEMA_VERSION_META]);
	if (stored) return Number(stored.value);
	const userVersion = Number(conn.get<{ user_version: number }>("PRAGMA user_version")?.user_version ?? 0);
	return LEGACY_OWN_VERSIONS.includes(userVersion) ? userVersion : 0;
}

/**
 * Creates or upgrades the schema in one transaction; refuses files from a newer Engrama or a newer
 * Python engrama layout. user_version is set only where it was ours to set (a new file, or one an
 * older Engrama marked 4 to 6), and then to the Python layout the file really has (3).
 * Returns how many rows it rewrote (edges, v10; passages, v14): their old pages stay in the file until a VACUUM.
 */
export function migrate(conn: SqliteConnection): number {
	const userVersion = Number(conn.get<{ user_version: number }>("PRAGMA user_version")?.user_version ?? 0);
	const own = ownSchemaVersion(conn);
	if (own > SCHEMA_VERSION) {
		throw new Error(
			`${conn.path} has schema version ${own}, newer than this Engrama (${SCHEMA_VERSION}). Update the plugin or the command line.`,
		);
	}
	const legacyOwn = hasTable(conn, "engrama_meta") && LEGACY_OWN_VERSIONS.includes(userVersion);
	if (userVersion > PY_LAYOUT_VERSION && !legacyOwn) {
		throw new Error(
			`${conn.path} has the Python engrama's layout version ${userVersion}; this Engrama reads version ${PY_LAYOUT_VERSION}. Update the plugin or the command line (the file was left unchanged).`,
		);
	}
	const fresh = !hasTable(conn, "nodes");
	const setUserVersion = fresh || legacyOwn;
	if (own === SCHEMA_VERSION && !setUserVersion) return 0;
	let rewritten = 0;
	conn.exec("BEGIN IMMEDIATE");
	try {
		conn.exec(V1);
		if (!hasColumn(conn, "edges", "org_id")) {
			conn.exec("ALTER TABLE edges ADD COLUMN org_id TEXT; ALTER TABLE edges ADD COLUMN user_id TEXT;");
		}
		if (!hasColumn(conn, "edges", "props")) conn.exec(V4);
		else conn.exec(V4.split("\n").filter((l) => !l.startsWith("ALTER")).join("\n"));
		migrateV9Names(conn);
		conn.exec(V5);
		conn.exec(V6);
		migrateV8(conn);
		migrateV9Edges(conn);
		conn.exec(NOTE_PATH_TRIGGERS);
		if (!fresh && own < 10) rewritten = migrateV10Edges(conn);
		if (!fresh && own < 11) reindexFulltext(conn, (props) => needsSegmenting(props) || holdsValidFrom(props));
		else if (!fresh && own < 12) reindexFulltext(conn, holdsValidFrom);
		if (!fresh && own < 13) migrateV13(conn);
		if (!fresh && own < 15) reindexFulltext(conn, holdsAliases);
		if (hasColumn(conn, "note_passages", "body")) rewritten += migrateV14Passages(conn);
		conn.exec(PASSAGES_V14);
		conn.run("INSERT OR REPLACE INTO engrama_meta(key, value) VALUES (?, ?)", [SCHEMA_VERSION_META, String(SCHEMA_VERSION)]);
		if (setUserVersion) conn.exec(`PRAGMA user_version = ${PY_LAYOUT_VERSION}`);
		conn.exec("COMMIT");
	} catch (error) {
		conn.exec("ROLLBACK");
		throw error;
	}
	return rewritten;
}
