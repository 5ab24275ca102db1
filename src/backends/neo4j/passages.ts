import { NotFoundError, ValidationError } from "../../engine/errors";
import type { FulltextQuery, NotePassages, PassageChange, PassageHit, PassageInput, PassageTermCounts, PassageToEmbed, StoredPassage } from "../../engine/backend-kit";
import { isFullScope } from "../../engine/backend-kit";
import type { PartialScope, Scope } from "../../engine/types";
import { getMeta } from "./admin";
import type { Neo4jStoreContext } from "./store-context";
import { FT_SCOPE_PROPERTY, PASSAGE_COLUMNS, bm25Clauses, ftDocument, passageFulltextProperties, phraseKey, phraseOf, scopeWord } from "./fts-query";
import { NODE_RANK_WINDOW, PASSAGE_CORPUS, corpusFacts, knownEmpty, phraseItems, plannedCandidates, rememberEmpty } from "./fulltext";
import type { CypherRunner, Neo4jConnection } from "./neo4j-connection";
import { countTerms, deletedDocs } from "./term-counts";
import { LIVE, N, SCOPE, SIDE_SCOPE, type StoredMap, assertScope, int, nextSeq, toRecord } from "./rows";
import { NODE_LABEL, PASSAGE_FULLTEXT_INDEX, PASSAGE_LABEL, PASSAGE_VECTOR_INDEX, VECTOR_PROPERTY, ensureVectorIndex, vectorIndexDimensions } from "./schema";

/**
 * The passages of notes (PassageStore) on Neo4j: one :EngramaPassage node per section, carrying its
 * node's engrama_id (`node`, as the name postings do) and scope, its text, its tokens in one hidden
 * column for the passage fulltext index (ranked by bm25 in Cypher, as nodes are: fts-query.ts) and
 * its vector under the passage vector index. A node's delete, a scope's forget and a namespace's
 * drop remove them; a rename keeps them (a new engrama_id is carried over in rekeyNode).
 */

const P = PASSAGE_LABEL;
const PASSAGE = `p.pid AS id, p.heading AS heading, p.line AS line, p.hash AS hash, p.text AS text`;
const JOIN_LIVE = `MATCH (n:${NODE_LABEL} {__ns: $ns, engrama_id: p.node}) WHERE ${SCOPE} AND ${LIVE}`;
// The index returns the global top k; scope and archive filters run after, so ask for more.
const OVERSAMPLE = 4;
const DIMENSIONS_KEY = "embedding_dimensions";

type Row = Readonly<Record<string, unknown>>;

/**
 * Passages ranked exactly per search: Lucene's best this many (or 5 × limit) by its own bm25,
 * within the scope; node search's window, so up to that many matches both rank every one.
 */
export const RANK_WINDOW = NODE_RANK_WINDOW;

const stored = (row: Row): StoredPassage => ({
	id: String(row.id),
	heading: String(row.heading),
	line: Number(row.line),
	text: String(row.text),
	hash: String(row.hash),
});

/** A passage as the write statement takes it: place, text, tokens, and the id it gets if new. */
function passageRows(passages: readonly PassageInput[]) {
	const seen = new Map<string, number>();
	return passages.map((passage, ord) => {
		// The n-th passage of a hash takes the n-th stored one (a section repeated word for word).
		const occ = seen.get(passage.hash) ?? 0;
		seen.set(passage.hash, occ + 1);
		const { __ft_body, __ft_len } = passageFulltextProperties(passage.text);
		return {
			ord: int(ord),
			occ: int(occ),
			pid: crypto.randomUUID(),
			seq: nextSeq(),
			heading: passage.heading,
			line: int(passage.line),
			hash: passage.hash,
			text: passage.text,
			ft: __ft_body,
			len: int(__ft_len),
		};
	});
}

/**
 * Replaces each note's passages, every note in one statement: a passage whose hash is unchanged
 * keeps its node (and vector) and gets its new place; the others are created; the rest removed.
 */
export async function writeManyPassages(ctx: Neo4jStoreContext, scope: Scope, notes: readonly NotePassages[]): Promise<readonly PassageChange[]> {
	assertScope(scope);
	if (notes.length === 0) return [];
	const input = notes.map((note) => ({ id: note.nodeId, rows: passageRows(note.passages) }));
	if (ctx.conn.inTransaction()) ctx.passagesInTransaction = true;
	ctx.wroteWords(notes.map((note) => note.nodeId));
	const result = await ctx.write(
		(q) =>
			q.run(
				`UNWIND $notes AS note
				CALL {
					WITH note
					MATCH (n:${NODE_LABEL} {__ns: $ns, engrama_id: note.id}) WHERE ${SCOPE}
					OPTIONAL MATCH (p:${P} {__ns: $ns, node: note.id})
					WITH note, p ORDER BY p.ord
					WITH note, collect(p) AS old
					CALL {
						WITH note, old
						UNWIND note.rows AS row
						WITH note, row, [x IN old WHERE x.hash = row.hash] AS same
						WITH note, row, CASE WHEN row.occ < size(same) THEN same[row.occ] END AS keep
						FOREACH (k IN CASE WHEN keep IS NULL THEN [] ELSE [keep] END | SET k.ord = row.ord, k.line = row.line)
						FOREACH (_ IN CASE WHEN keep IS NULL THEN [1] ELSE [] END |
							CREATE (:${P} {__ns: $ns, org_id: $org, user_id: $user, node: note.id, pid: row.pid, __seq: row.seq, ord: row.ord,
								heading: row.heading, line: row.line, hash: row.hash, text: row.text, __ft_body: row.ft, __ft_len: row.len, __ft_scope: $scopeWord}))
						RETURN collect(keep) AS kept, collect(CASE WHEN keep IS NULL THEN row.ord END) AS added
					}
					WITH note, kept, added, [o IN old WHERE NOT o IN kept] AS gone
					WITH note, kept, added, gone, ${deletedDocs("passages", "gone")}
					WITH note, kept, added, gone, ftDocs + [r IN note.rows WHERE r.ord IN added | {new: [r.ft], newLen: r.len}] AS ftDocs
					${countTerms("passages")}
					FOREACH (g IN gone | DELETE g)
					RETURN size(kept) AS kept, added, size(gone) AS removed
				}
				RETURN note.id AS id, kept, added, removed`,
				ctx.params(scope, { notes: input, scopeWord: scopeWord(ctx.namespace, scope) }),
			),
		"write the notes' passages",
	);
	const byId = new Map(result.map((row) => [String(row.id), row]));
	return notes.map((note, n) => {
		const row = byId.get(note.nodeId);
		if (!row) throw new NotFoundError(`No node with id ${note.nodeId} in this scope: its passages cannot be written.`);
		const added = (row.added as unknown[]).map((ord) => ({ ...note.passages[Number(ord)], id: input[n].rows[Number(ord)].pid }));
		return { added, kept: Number(row.kept), removed: Number(row.removed) };
	});
}

export async function writePassages(ctx: Neo4jStoreContext, scope: Scope, nodeId: string, passages: readonly PassageInput[]): Promise<PassageChange> {
	return (await writeManyPassages(ctx, scope, [{ nodeId, passages }]))[0];
}

export async function hasPassages(ctx: Neo4jStoreContext, scope: PartialScope): Promise<boolean> {
	if (!isFullScope(scope)) return false;
	const rows = await ctx.conn.read((q) => q.run(`MATCH (p:${P}) WHERE ${SIDE_SCOPE("p")} RETURN 1 AS x LIMIT 1`, ctx.params(scope)), "look for passages");
	return rows.length > 0;
}

export async function passagesOf(ctx: Neo4jStoreContext, scope: PartialScope, nodeId: string): Promise<readonly StoredPassage[]> {
	if (!isFullScope(scope)) return [];
	const rows = await ctx.conn.read(
		(q) => q.run(`MATCH (p:${P} {__ns: $ns, node: $id}) WHERE ${SIDE_SCOPE("p")} RETURN ${PASSAGE} ORDER BY p.ord`, ctx.params(scope, { id: nodeId })),
		"read the note's passages",
	);
	return rows.map(stored);
}

/** Hits from rows holding a passage, its node's map and a score; the nodes are kept for the reads that follow. */
function hitsOf(ctx: Neo4jStoreContext, scope: Scope, rows: readonly Row[], score: (raw: number) => number): PassageHit[] {
	ctx.prefetch(
		scope,
		rows.map((row) => toRecord(row.node as StoredMap)),
	);
	return rows.map((row) => ({ nodeId: String((row.node as StoredMap).engrama_id), passage: stored(row), score: score(Number(row.score)) }));
}

/**
 * The best passages of live nodes of the scope for the query's words: bm25 over passages as
 * SQLite's passages_fts ranks them. Lucene keeps to the scope and hands over its best RANK_WINDOW
 * (or 5 × limit) candidates, which are scored exactly (Lucene's bm25 differs from FTS5's in its
 * idf and its coarse length norm, so only the window's order is FTS5's); when it had more and too
 * few survive (archived notes, labels), every candidate is scored.
 */
export async function searchPassages(ctx: Neo4jStoreContext, scope: PartialScope, query: FulltextQuery): Promise<readonly PassageHit[]> {
	if (!isFullScope(scope) || query.limit <= 0 || knownEmpty(ctx, PASSAGE_CORPUS)) return [];
	const labels = query.labels ?? [];
	return ctx.conn.read(async (q) => {
		const phrases = await phraseItems(ctx, q, PASSAGE_CORPUS, query);
		if (!phrases) return [];
		const window = Math.max(RANK_WINDOW, query.limit * 5);
		const found = plannedCandidates(ctx, PASSAGE_CORPUS, "p", { scoped: `+${FT_SCOPE_PROPERTY}:${scopeWord(ctx.namespace, scope)}` });
		const ranked = async (limit: number) => {
			const rows = await q.run(
				`${found.cypher}
				CALL {
					WITH found, ftPlan
					UNWIND found AS p
					WITH p, ftPlan, ${ftDocument("p", PASSAGE_COLUMNS, ["__ns", "org_id", "user_id", "__seq"])} AS ftDoc WHERE ${SIDE_SCOPE("ftDoc")}
					${bm25Clauses(["p", "ftDoc", "ftPlan"], "ftDoc", "ftPlan", PASSAGE_COLUMNS)}
					WHERE any(i IN range(0, ftPlan.matchCount - 1) WHERE ftFreq[i] > 0)
					AND EXISTS { ${JOIN_LIVE} AND (size($labels) = 0 OR n.__label IN $labels) }
					WITH p, ftDoc.__seq AS seq, score ORDER BY score DESC, seq LIMIT $limit
					MATCH (n:${NODE_LABEL} {__ns: $ns, engrama_id: p.node})
					RETURN collect({id: p.pid, heading: p.heading, line: p.line, hash: p.hash, text: p.text, seq: seq, node: ${N}, score: score}) AS hits
				}
				RETURN size(found) AS seen, hits, ftRows`,
				ctx.params(scope, {
					...found.params,
					ftPhrases: phrases,
					index: PASSAGE_FULLTEXT_INDEX,
					labels,
					limit: int(query.limit),
					window: int(limit),
				}),
			);
			rememberEmpty(ctx, PASSAGE_CORPUS, rows[0]?.ftRows);
			const hits = [...((rows[0]?.hits as Row[] | undefined) ?? [])].sort((x, y) => Number(y.score) - Number(x.score) || Number(x.seq) - Number(y.seq));
			return { seen: Number(rows[0]?.seen ?? 0), hits };
		};
		let answer = await ranked(window);
		// Lucene had more than the window and too few of them were live: rank every candidate.
		if (answer.hits.length < query.limit && answer.seen >= window) answer = await ranked(1_000_000);
		return hitsOf(ctx, scope, answer.hits, (s) => s);
	}, "search the passages");
}

/** The passage vector index's dimension, read once per store (0: none yet). */
async function indexDimensions(ctx: Neo4jStoreContext): Promise<number> {
	ctx.passageVectorIndexDims ??= await vectorIndexDimensions(ctx.conn, true);
	return ctx.passageVectorIndexDims;
}

/**
 * Creates the passage vector index when there is none. Never once the open transaction has
 * written passages: creating an index on a label waits for every open transaction that wrote
 * nodes of it, this one included (a deadlock). Until it exists, knn scans exactly; the store's
 * next open creates it (`ensurePassageVectorIndexAtOpen`).
 */
async function ensureIndex(ctx: Neo4jStoreContext, dims: number): Promise<void> {
	if (ctx.passagesInTransaction || (await indexDimensions(ctx)) !== 0) return;
	await ensureVectorIndex(ctx.conn, dims, true);
	ctx.passageVectorIndexDims = await vectorIndexDimensions(ctx.conn, true);
}

/** Creates the passage vector index beside the node one (the vector store calls this when it makes or finds its own). */
export async function ensurePassageVectorIndex(ctx: Neo4jStoreContext, dims: number): Promise<void> {
	await ensureIndex(ctx, dims);
}

/** At open: the passage vector index a memory with vectors lacks (its first vectors came inside a sync's transaction). */
export async function ensurePassageVectorIndexAtOpen(ctx: Neo4jStoreContext): Promise<void> {
	const dims = Number((await getMeta(ctx, DIMENSIONS_KEY)) ?? 0);
	if (dims > 0) await ensureIndex(ctx, dims);
}

/** Stores passage vectors in one statement; their dimension is the node vectors' (once those exist). */
export async function upsertPassageVectors(
	ctx: Neo4jStoreContext,
	scope: Scope,
	vectors: readonly { readonly passageId: string; readonly vector: Float32Array }[],
): Promise<void> {
	assertScope(scope);
	if (vectors.length === 0) return;
	const dims = vectors[0].vector.length;
	if (ctx.passageDimsChecked !== dims) {
		const meta = Number((await getMeta(ctx, DIMENSIONS_KEY)) ?? 0);
		if (meta !== 0 && meta !== dims) {
			throw new ValidationError(`The embedder gives ${dims}-dimensional vectors but this memory holds ${meta}-dimensional ones. Run "engrama reindex --rebuild --apply".`);
		}
		if (meta === dims) ctx.passageDimsChecked = dims;
	}
	for (const { vector } of vectors) {
		if (vector.length !== dims) throw new ValidationError(`Passage vectors of one batch must share a dimension (${dims} and ${vector.length}).`);
	}
	await ensureIndex(ctx, dims);
	await ctx.write(
		(q) =>
			q.run(
				`UNWIND $rows AS row
				MATCH (p:${P} {__ns: $ns, pid: row.id}) WHERE ${SIDE_SCOPE("p")}
				CALL db.create.setNodeVectorProperty(p, '${VECTOR_PROPERTY}', row.vector)`,
				ctx.params(scope, { rows: vectors.map((v) => ({ id: v.passageId, vector: Array.from(v.vector) })) }),
			),
		"store the passages' vectors",
	);
}

/** Neo4j's cosine score is (1 + cos) / 2; the protocol speaks plain cosine similarity. */
const cosine = (score: number) => 2 * score - 1;

/**
 * The passages of live nodes of the scope nearest to `vector`, best first (exact scores). The
 * passage vector index is asked only when the scope holds a passage vector (one statement checks
 * and asks): a memory without passages, or whose passages have no vectors, costs one index seek.
 */
export async function passageKnn(ctx: Neo4jStoreContext, scope: PartialScope, vector: Float32Array, k: number): Promise<readonly PassageHit[]> {
	if (!isFullScope(scope) || k <= 0 || vector.length === 0) return [];
	const params = ctx.params(scope, { vector: Array.from(vector), k: int(k), dims: int(vector.length) });
	return ctx.conn.read(async (q) => {
		const indexed = (await indexDimensions(ctx)) === vector.length;
		const ask = Math.min(4096, k * OVERSAMPLE);
		const rows = await q.run(
			`CALL {
				OPTIONAL MATCH (x:${P}) WHERE ${SIDE_SCOPE("x")} AND x.${VECTOR_PROPERTY} IS NOT NULL
				RETURN x IS NOT NULL AS has LIMIT 1
			}
			CALL {
				WITH has
				WITH has WHERE has AND $indexed
				CALL db.index.vector.queryNodes('${PASSAGE_VECTOR_INDEX}', $ask, $vector) YIELD node AS p
				WITH collect(p) AS found
				UNWIND found AS p WITH p, size(found) AS seen WHERE ${SIDE_SCOPE("p")}
				${JOIN_LIVE}
				WITH p, n, seen, vector.similarity.cosine(p.${VECTOR_PROPERTY}, $vector) AS score ORDER BY score DESC, p.__seq LIMIT $k
				RETURN collect({id: p.pid, heading: p.heading, line: p.line, hash: p.hash, text: p.text, node: ${N}, score: score, seen: seen}) AS hits
			}
			RETURN has, hits`,
			{ ...params, ask: int(ask), indexed },
		);
		if (rows[0]?.has !== true) return [];
		const hits = rows[0].hits as Row[];
		// Enough hits survived the filters, or the index had nothing more to give.
		if (indexed && (hits.length >= k || (hits.length > 0 && Number(hits[0].seen) < ask))) return hitsOf(ctx, scope, hits, cosine);
		return hitsOf(ctx, scope, await scan(q, params), cosine);
	}, "search the passages' vectors");
}

/** Every vector of the scope's passages, scored exactly (no index of this dimension, or a scope too small for its top k). */
function scan(q: CypherRunner, params: Record<string, unknown>): Promise<Row[]> {
	return q.run(
		`MATCH (p:${P}) WHERE ${SIDE_SCOPE("p")} AND p.${VECTOR_PROPERTY} IS NOT NULL AND size(p.${VECTOR_PROPERTY}) = $dims
		${JOIN_LIVE}
		WITH p, n, vector.similarity.cosine(p.${VECTOR_PROPERTY}, $vector) AS score
		RETURN ${PASSAGE}, ${N} AS node, score ORDER BY score DESC, p.__seq LIMIT $k`,
		params,
	);
}

/** Passages holding each word, from bm25's term counts (:EngramaTerm df of the passage corpus, this memory). */
export async function passageTermCounts(ctx: Neo4jStoreContext, _scope: PartialScope, words: readonly string[]): Promise<PassageTermCounts> {
	const phrases = words.map((w) => phraseOf(w.toLowerCase(), false));
	const { stats, hits } = await ctx.conn.read((q) => corpusFacts(ctx, q, phrases, PASSAGE_CORPUS), "read the passages' term counts");
	return { documents: stats.rows, counts: new Map(words.map((w, i) => [w, hits.get(phraseKey(phrases[i])) ?? 0])) };
}

/** The vectors of a node's passages, by passage id (related notes). */
export async function passageVectorsOf(ctx: Neo4jStoreContext, scope: PartialScope, nodeId: string): Promise<ReadonlyMap<string, Float32Array>> {
	const out = new Map<string, Float32Array>();
	if (!isFullScope(scope)) return out;
	const rows = await ctx.conn.read(
		(q) =>
			q.run(
				`MATCH (p:${P} {__ns: $ns, node: $id}) WHERE ${SIDE_SCOPE("p")} AND p.${VECTOR_PROPERTY} IS NOT NULL
				RETURN p.pid AS id, p.${VECTOR_PROPERTY} AS vector ORDER BY p.__seq`,
				ctx.params(scope, { id: nodeId }),
			),
		"read the note's passage vectors",
	);
	for (const row of rows) out.set(String(row.id), Float32Array.from(row.vector as number[]));
	return out;
}

/** Passages of the scope's live nodes without a vector (reindex fills them), at most `limit`. */
export async function passagesWithoutVectors(ctx: Neo4jStoreContext, scope: Scope, limit: number): Promise<readonly PassageToEmbed[]> {
	if (!isFullScope(scope) || limit <= 0) return [];
	const rows = await ctx.conn.read(
		(q) =>
			q.run(
				`MATCH (p:${P}) WHERE ${SIDE_SCOPE("p")} AND p.${VECTOR_PROPERTY} IS NULL
				${JOIN_LIVE}
				RETURN ${PASSAGE}, p.node AS node ORDER BY p.__seq LIMIT $limit`,
				ctx.params(scope, { limit: int(limit) }),
			),
		"list passages without vectors",
	);
	return rows.map((row) => ({ ...stored(row), nodeId: String(row.node) }));
}

/** How many passages of the scope's live notes have no vector (reindex's dry run). */
export async function countPassagesWithoutVectors(ctx: Neo4jStoreContext, scope: Scope): Promise<number> {
	if (!isFullScope(scope)) return 0;
	const rows = await ctx.conn.read(
		(q) =>
			q.run(
				`MATCH (p:${P}) WHERE ${SIDE_SCOPE("p")} AND p.${VECTOR_PROPERTY} IS NULL
				${JOIN_LIVE}
				RETURN count(p) AS n`,
				ctx.params(scope),
			),
		"count passages without vectors",
	);
	return Number(rows[0]?.n ?? 0);
}

/** Drops the passage vectors of a namespace (a model change); the node vectors go with them. */
export async function dropPassageVectors(conn: Neo4jConnection, namespace: string): Promise<void> {
	await conn.write(
		(q) => q.run(`MATCH (p:${P} {__ns: $ns}) WHERE p.${VECTOR_PROPERTY} IS NOT NULL REMOVE p.${VECTOR_PROPERTY}`, { ns: namespace }),
		"drop the passages' vectors",
	);
}
