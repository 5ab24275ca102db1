import { NotFoundError, ValidationError } from "../../engine/errors";
import type { FulltextQuery, NotePassages, PassageChange, PassageHit, PassageInput, PassageTermCounts, PassageToEmbed, StoredPassage } from "../../engine/backend-kit";
import { isFullScope } from "../../engine/backend-kit";
import { indexText, queryTerms } from "../../engine/backend-kit";
import type { PartialScope, Scope } from "../../engine/types";
import type { SqliteStoreContext } from "./store-context";
import type { Ranked } from "./fulltext";
import { ID_EXPR, ORG_EXPR, STATUS_EXPR, USER_EXPR } from "./schema";
import type { SqlValue } from "./sqlite-connection";
import { type PassageText, packPassageText, unpackPassageText } from "./passage-text";

/**
 * The passages of notes (PASSAGES_V14 in schema.ts): rows without their text, each note's text
 * deflated as one blob (passage-text.ts), words in a contentless FTS index (passages_fts) and vectors.
 */

export const PASSAGE_VECTORS = "passage_embeddings";
// vec0 returns the global top k; scope and archive filters run after, so ask for more.
const OVERSAMPLE = 4;

const N_SCOPE = `${ORG_EXPR.replace("props", "n.props")} = ? AND ${USER_EXPR.replace("props", "n.props")} = ?`;
const N_LIVE = `${STATUS_EXPR.replace("props", "n.props")} != 'archived'`;
const HIT_COLS = `p.id, p.node_id, p.heading, p.line, p.hash, ${ID_EXPR.replace("props", "n.props")} AS node`;

interface PassageRow {
	id: number;
	node_id: number;
	heading: string;
	line: number;
	hash: string;
}

interface HitRow extends PassageRow {
	node: string;
}

/**
 * `rows` as stored passages whose text is inflated when first read, from the blobs read now (so a
 * later write does not change it): name rarity reads up to 400 hits per word for their node
 * alone, and inflating every hit's note tripled a search's time. One inflate per note at most.
 */
function withText<R extends PassageRow>(ctx: SqliteStoreContext, rows: readonly R[]): { row: R; passage: StoredPassage }[] {
	const nodes = [...new Set(rows.map((r) => r.node_id))];
	const packed = new Map(
		nodes.length === 0
			? []
			: ctx.conn
					.all<{ node_id: number; packed: Uint8Array }>("SELECT node_id, packed FROM note_passage_text WHERE node_id IN (SELECT value FROM json_each(?))", [
						JSON.stringify(nodes),
					])
					.map((r) => [r.node_id, r.packed]),
	);
	const inflated = new Map<number, Map<number, string>>();
	const textOf = (row: PassageRow): string => {
		let texts = inflated.get(row.node_id);
		if (!texts) {
			const blob = packed.get(row.node_id);
			texts = new Map(blob ? unpackPassageText(blob).map((p) => [p.id, p.text]) : []);
			inflated.set(row.node_id, texts);
		}
		// A row whose note has no text row (no write leaves one) reads as empty.
		return texts.get(row.id) ?? "";
	};
	return rows.map((row) => ({
		row,
		passage: {
			id: String(row.id),
			heading: row.heading,
			line: Number(row.line),
			hash: row.hash,
			get text() {
				return textOf(row);
			},
		},
	}));
}

/** The texts a note's passages were indexed with (empty when it has none). */
function indexedTexts(ctx: SqliteStoreContext, rowId: number): PassageText[] {
	const row = ctx.conn.get<{ packed: Uint8Array }>("SELECT packed FROM note_passage_text WHERE node_id = ?", [rowId]);
	return row ? unpackPassageText(row.packed) : [];
}

/** Takes passages out of the contentless index: FTS5 needs the very text each was indexed with. */
function unindex(ctx: SqliteStoreContext, passages: readonly PassageText[]): void {
	for (const p of passages) ctx.conn.run("INSERT INTO passages_fts(passages_fts, rowid, body) VALUES ('delete', ?, ?)", [p.id, p.body]);
}

/**
 * Un-indexes the text of notes whose text row was deleted (the trigger keeps it in
 * note_passage_text_gone): this engine's deletes of whole notes, and a node deleted by another
 * program on the file (the Python engrama: its rows cascade), at the next open.
 */
export function unindexGone(ctx: SqliteStoreContext): void {
	const gone = ctx.conn.all<{ rowid: number; packed: Uint8Array }>("SELECT rowid, packed FROM note_passage_text_gone");
	for (const row of gone) {
		unindex(ctx, unpackPassageText(row.packed));
		ctx.conn.run("DELETE FROM note_passage_text_gone WHERE rowid = ?", [row.rowid]);
	}
}

function nodeRowId(ctx: SqliteStoreContext, scope: Scope, nodeId: string): number {
	const row = ctx.rowById(scope, nodeId);
	if (!row) throw new NotFoundError(`No node with id ${nodeId} in this scope: its passages cannot be written.`);
	return row.id;
}

function hasVectorTable(ctx: SqliteStoreContext): boolean {
	return ctx.conn.get("SELECT 1 AS x FROM sqlite_master WHERE name = ?", [PASSAGE_VECTORS]) !== undefined;
}

/** Replaces a node's passages, keeping the rows (and vectors) of passages whose hash is unchanged. */
export function writePassages(ctx: SqliteStoreContext, scope: Scope, nodeId: string, passages: readonly PassageInput[]): PassageChange {
	return ctx.atomic(() => replacePassages(ctx, scope, nodeId, passages));
}

/**
 * A sync batch's passages under one savepoint: FTS5 writes its pending words to a new segment at
 * every savepoint, so one per note made a 10k-note sync write (and merge) 10k tiny segments.
 */
export function writeManyPassages(ctx: SqliteStoreContext, scope: Scope, notes: readonly NotePassages[]): PassageChange[] {
	return ctx.atomic(() => notes.map((note) => replacePassages(ctx, scope, note.nodeId, note.passages)));
}

function replacePassages(ctx: SqliteStoreContext, scope: Scope, nodeId: string, passages: readonly PassageInput[]): PassageChange {
	const rowId = nodeRowId(ctx, scope, nodeId);
	if (passages.length === 0) return { added: [], kept: 0, removed: dropPassages(ctx, "SELECT ?", [rowId]) };
	const old = ctx.conn.all<{ id: number; hash: string; ord: number; line: number }>("SELECT id, hash, ord, line FROM note_passages WHERE node_id = ?", [
		rowId,
	]);
	const unused = new Map<string, { id: number; ord: number; line: number }[]>();
	for (const row of old) unused.set(row.hash, [...(unused.get(row.hash) ?? []), row]);
	const before = new Map(indexedTexts(ctx, rowId).map((p) => [p.id, p]));
	const texts: PassageText[] = [];
	const added: StoredPassage[] = [];
	let kept = 0;
	passages.forEach((passage, ord) => {
		const same = unused.get(passage.hash)?.shift();
		if (same) {
			kept++;
			if (same.ord !== ord || same.line !== passage.line) ctx.conn.run("UPDATE note_passages SET ord = ?, line = ? WHERE id = ?", [ord, passage.line, same.id]);
			texts.push(before.get(same.id) ?? { id: same.id, text: passage.text, body: indexText(passage.text) });
			return;
		}
		const body = indexText(passage.text);
		ctx.conn.run("INSERT INTO note_passages(node_id, ord, heading, line, hash) VALUES (?, ?, ?, ?, ?)", [rowId, ord, passage.heading, passage.line, passage.hash]);
		const id = ctx.conn.get<{ id: number }>("SELECT last_insert_rowid() AS id")?.id ?? 0;
		ctx.conn.run("INSERT INTO passages_fts(rowid, body) VALUES (?, ?)", [id, body]);
		texts.push({ id, text: passage.text, body });
		added.push({ ...passage, id: String(id) });
	});
	const gone = [...unused.values()].flat().map((r) => r.id);
	if (gone.length > 0) {
		unindex(ctx, gone.flatMap((id) => before.get(id) ?? []));
		ctx.conn.run("DELETE FROM note_passages WHERE id IN (SELECT value FROM json_each(?))", [JSON.stringify(gone)]);
		if (hasVectorTable(ctx)) ctx.conn.run(`DELETE FROM ${PASSAGE_VECTORS} WHERE passage_id IN (SELECT value FROM json_each(?))`, [JSON.stringify(gone)]);
	}
	if (added.length > 0 || gone.length > 0 || before.size === 0) {
		// An upsert, not INSERT OR REPLACE: a replaced row would be a delete (and its text un-indexed twice).
		ctx.conn.run("INSERT INTO note_passage_text(node_id, packed) VALUES (?, ?) ON CONFLICT(node_id) DO UPDATE SET packed = excluded.packed", [
			rowId,
			packPassageText(texts),
		]);
	}
	return { added, kept, removed: gone.length };
}

export function hasPassages(ctx: SqliteStoreContext, scope: PartialScope): boolean {
	if (!isFullScope(scope)) return false;
	return (
		ctx.conn.get(`SELECT 1 AS x FROM note_passages p JOIN nodes n ON n.id = p.node_id WHERE ${N_SCOPE} LIMIT 1`, [scope.orgId, scope.userId]) !== undefined
	);
}

export function passagesOf(ctx: SqliteStoreContext, scope: PartialScope, nodeId: string): readonly StoredPassage[] {
	if (!isFullScope(scope)) return [];
	const row = ctx.rowById(scope, nodeId);
	if (!row) return [];
	const rows = ctx.conn.all<PassageRow>("SELECT id, node_id, heading, line, hash FROM note_passages WHERE node_id = ? ORDER BY ord", [row.id]);
	return withText(ctx, rows).map((r) => r.passage);
}

/** Passages holding each word, counted in the passages' FTS index (every scope, as its bm25 counts). */
export function passageTermCounts(ctx: SqliteStoreContext, _scope: PartialScope, words: readonly string[]): PassageTermCounts {
	const tokens = new Map(words.map((w) => [w, foldLatinAccents(w.toLowerCase())]));
	const { documents, counts } = ctx.passageIndex.termDocuments([...new Set(tokens.values())]);
	return { documents, counts: new Map(words.map((w) => [w, counts.get(tokens.get(w) ?? w) ?? 0])) };
}

/** FTS5's unicode61 tokens drop the accents of Latin letters ("programación" is "programacion"). */
function foldLatinAccents(word: string): string {
	return word.normalize("NFD").replace(/(\p{Script=Latin})\p{M}+/gu, "$1").normalize("NFC");
}

/** Rows of `ranked` whose node is live, in the scope and of the labels, in rank order. */
function hitsOf(ctx: SqliteStoreContext, scope: Scope, ranked: readonly Ranked[], labels: readonly string[], limit: number): PassageHit[] {
	const labelFilter = labels.length > 0 ? ` AND n.label IN (${labels.map(() => "?").join(", ")})` : "";
	const out: { row: HitRow; score: number }[] = [];
	const chunk = Math.max(2 * limit, 50);
	for (let start = 0; start < ranked.length && out.length < limit; start += chunk) {
		const part = ranked.slice(start, start + chunk);
		const rows = ctx.conn.all<HitRow>(
			`SELECT ${HIT_COLS} FROM json_each(?) j CROSS JOIN note_passages p ON p.id = j.value CROSS JOIN nodes n ON n.id = p.node_id
			WHERE ${N_SCOPE} AND ${N_LIVE}${labelFilter}`,
			[JSON.stringify(part.map((r) => r.rowid)), scope.orgId, scope.userId, ...labels],
		);
		const byId = new Map(rows.map((row) => [row.id, row]));
		for (const r of part) {
			const row = byId.get(r.rowid);
			if (row && out.length < limit) out.push({ row, score: -Number(r.rank) });
		}
	}
	// Text only for the hits returned: one inflate per note.
	return withText(
		ctx,
		out.map((o) => o.row),
	).map(({ row, passage }, i) => ({ nodeId: row.node, passage, score: out[i].score }));
}

/** The best passages for the query's words (bm25, planned as node search is), of live nodes of the scope. */
export function searchPassages(ctx: SqliteStoreContext, scope: PartialScope, query: FulltextQuery): readonly PassageHit[] {
	if (!isFullScope(scope)) return [];
	const terms = queryTerms(query.text);
	const labels = query.labels ?? [];
	const window = Math.min(2000, Math.max(200, query.limit * 10));
	const { ranked, complete } = ctx.passageIndex.rankTerms(terms, query.prefix ?? false, window, query.limit);
	const hits = hitsOf(ctx, scope, ranked, labels, query.limit);
	if (hits.length >= query.limit || complete) return hits;
	// The window was mostly other scopes or archived nodes: rank every match.
	const every = ctx.passageIndex.rankTerms(terms, query.prefix ?? false, 1_000_000, 1_000_000);
	return hitsOf(ctx, scope, every.ranked, labels, query.limit);
}

/** Stores passage vectors; their dimension is the node vectors' (engrama_meta), or fixes its own until those exist. */
export function upsertPassageVectors(ctx: SqliteStoreContext, _scope: Scope, vectors: readonly { readonly passageId: string; readonly vector: Float32Array }[]): void {
	if (vectors.length === 0) return;
	const dims = vectors[0].vector.length;
	const meta = Number(ctx.conn.get<{ value: string }>("SELECT value FROM engrama_meta WHERE key = 'embedding_dimensions'")?.value ?? 0);
	if (meta !== 0 && meta !== dims) {
		throw new ValidationError(`The embedder gives ${dims}-dimensional vectors but this memory holds ${meta}-dimensional ones. Run "engrama reindex --rebuild --apply".`);
	}
	ctx.conn.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS ${PASSAGE_VECTORS} USING vec0(passage_id INTEGER PRIMARY KEY, embedding float[${dims}] distance_metric=cosine)`);
	ctx.atomic(() => {
		for (const { passageId, vector } of vectors) {
			ctx.conn.run(`DELETE FROM ${PASSAGE_VECTORS} WHERE passage_id = ?`, [Number(passageId)]);
			ctx.conn.run(`INSERT INTO ${PASSAGE_VECTORS}(passage_id, embedding) VALUES (?, ?)`, [
				Number(passageId),
				new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength),
			]);
		}
	});
}

/** The passages of live nodes of the scope nearest to `vector` (cosine similarity), best first. */
export function passageKnn(ctx: SqliteStoreContext, scope: PartialScope, vector: Float32Array, k: number): readonly PassageHit[] {
	if (!isFullScope(scope) || !hasVectorTable(ctx)) return [];
	const near = ctx.conn.all<{ passage_id: number; distance: number }>(
		`SELECT passage_id, distance FROM ${PASSAGE_VECTORS} WHERE embedding MATCH ? AND k = ?`,
		[new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength), k * OVERSAMPLE],
	);
	// bm25-like order for hitsOf: lower first.
	const ranked = near.map((r) => ({ rowid: r.passage_id, rank: -(1 - r.distance) }));
	return hitsOf(ctx, scope, ranked, [], k);
}

/** The vectors of one node's passages, by passage id (related notes average them). */
export function passageVectorsOf(ctx: SqliteStoreContext, scope: PartialScope, nodeId: string): ReadonlyMap<string, Float32Array> {
	const out = new Map<string, Float32Array>();
	const rowId = isFullScope(scope) && hasVectorTable(ctx) ? ctx.rowIds(scope, [nodeId]).get(nodeId) : undefined;
	if (rowId === undefined) return out;
	const rows = ctx.conn.all<{ id: number; embedding: Uint8Array }>(
		`SELECT p.id AS id, v.embedding AS embedding FROM note_passages p JOIN ${PASSAGE_VECTORS} v ON v.passage_id = p.id WHERE p.node_id = ? ORDER BY p.id`,
		[rowId],
	);
	// A copy of exactly the blob: native SQLite returns a Buffer, whose slice() shares a larger pool.
	for (const row of rows) out.set(String(row.id), new Float32Array(Uint8Array.prototype.slice.call(row.embedding).buffer));
	return out;
}

/**
 * Removes the passages of the nodes whose row ids `nodeIdsSql` selects (with `params`): their
 * vectors (vec0 tables do not cascade: a node's delete or a forget must drop them here), rows,
 * text and words (the text row's trigger keeps the text for unindexGone). How many passages were removed.
 */
export function dropPassages(ctx: SqliteStoreContext, nodeIdsSql: string, params: readonly SqlValue[]): number {
	const ids = `SELECT id FROM note_passages WHERE node_id IN (${nodeIdsSql})`;
	if (hasVectorTable(ctx)) ctx.conn.run(`DELETE FROM ${PASSAGE_VECTORS} WHERE passage_id IN (${ids})`, params);
	const removed = ctx.conn.run(`DELETE FROM note_passages WHERE id IN (${ids})`, params).changes;
	ctx.conn.run(`DELETE FROM note_passage_text WHERE node_id IN (${nodeIdsSql})`, params);
	unindexGone(ctx);
	return removed;
}

const missingVector = (ctx: SqliteStoreContext) => (hasVectorTable(ctx) ? ` AND p.id NOT IN (SELECT passage_id FROM ${PASSAGE_VECTORS})` : "");

/** Passages of the scope's live nodes without a vector (reindex fills them), at most `limit`. */
export function passagesWithoutVectors(ctx: SqliteStoreContext, scope: Scope, limit: number): readonly PassageToEmbed[] {
	const rows = ctx.conn.all<HitRow>(
		`SELECT ${HIT_COLS} FROM note_passages p JOIN nodes n ON n.id = p.node_id WHERE ${N_SCOPE} AND ${N_LIVE}${missingVector(ctx)} ORDER BY p.id LIMIT ?`,
		[scope.orgId, scope.userId, limit],
	);
	return withText(ctx, rows).map(({ row, passage }) => ({ ...passage, nodeId: row.node }));
}

export function countPassagesWithoutVectors(ctx: SqliteStoreContext, scope: Scope): number {
	const sql = `SELECT count(*) AS n FROM note_passages p JOIN nodes n ON n.id = p.node_id WHERE ${N_SCOPE} AND ${N_LIVE}${missingVector(ctx)}`;
	return Number(ctx.conn.get<{ n: number }>(sql, [scope.orgId, scope.userId])?.n ?? 0);
}
