import neo4j from "neo4j-driver";
import { NAME_INDEX_LIMITS, indexedNames, nameFragments } from "../../engine/backend-kit";
import type { HistoryEntry, NameCandidatesQuery, NodeHistoryQuery, ValidAtQuery } from "../../engine/backend-kit";
import { isFullScope } from "../../engine/backend-kit";
import type { NodeRecord, PartialScope, Props, Scope } from "../../engine/types";
import type { Neo4jStoreContext } from "./store-context";
import { N, NULL_MARKER, SCOPE, type StoredMap, assertScope, int, nextSeq, parseJson, sqlValue, toRecord } from "./rows";
import { AWAIT_FULLTEXT, HISTORY_LABEL, NAME_INDEX, NODE_LABEL } from "./schema";
import { FT_SCOPE_PROPERTY, scopeHash, scopeWord } from "./fts-query";

/**
 * The entity resolver's name index, on the node itself: `__names` (its normalised names) and
 * `__name_grams`, one word per name and per (fragment, name length) pair (SQLite's
 * node_names / node_name_fragments rows), hashed so any name is a plain Lucene term. The
 * eventually consistent fulltext index NAME_INDEX holds those words with the node's scope words;
 * a node's names are written, replaced and deleted with the node, in the same statement.
 */

// The read bounds every backend shares: postings per fragment and direction, and the length window.
const POSTINGS_PER_FRAGMENT = NAME_INDEX_LIMITS.postingsPerFragment;
const LENGTH_WINDOW_LOW = NAME_INDEX_LIMITS.lengthWindowLow;
const LENGTH_WINDOW_HIGH = NAME_INDEX_LIMITS.lengthWindowHigh;
/** Longest name the index keeps (indexedNames slices there): no posting is longer. */
const MAX_NAME_LENGTH = 500;
/**
 * Nodes Lucene hands over per query fragment (nearest lengths boosted). The candidates are
 * SQLite's exactly whenever no query fragment has more postings than this within the length
 * window in the scope; beyond it the per-fragment cap is applied to Lucene's best. 100 reads
 * as fast as the posting nodes did at 5k nodes; 400 was 2-5 times slower on common fragments.
 */
export const NAME_FRAGMENT_WINDOW = 100;

export function touchesNames(set: Props, unset: readonly string[] | undefined): boolean {
	return "aliases" in set || (unset ?? []).includes("aliases");
}

const nameWord = (norm: string) => scopeHash("name", norm);
const fragmentWord = (fragment: string, len: number) => scopeHash("fragment", fragment, String(len));

/** A node's name properties: its names, and the words of its names and (fragment, length) pairs. */
export function nameProperties(key: string, props: Props): { __names: string[]; __name_grams: string } {
	const names = indexedNames(key, props);
	const words = new Set<string>();
	for (const norm of names) {
		words.add(nameWord(norm));
		for (const fragment of nameFragments(norm)) words.add(fragmentWord(fragment, norm.length));
	}
	return { __names: names, __name_grams: [...words].join(" ") };
}

/** Params for a write's name properties ($names, set with `n += $names`): `reindex` false leaves them alone. */
export function nameParams(reindex: boolean, key: string, props: Props): { names: Record<string, unknown> } {
	return { names: reindex ? nameProperties(key, props) : {} };
}

/** Postings a node's name properties stand for (SQLite's name and fragment rows), in Cypher over `v`. */
export function postingCount(v: string): string {
	return `CASE WHEN coalesce(${v}.__name_grams, '') = '' THEN 0 ELSE size(split(${v}.__name_grams, ' ')) END`;
}

/**
 * The nodes that may hold a name word, as \`n\`: Lucene's (after its pending updates), except the
 * nodes this transaction wrote, which are read from the store instead (Lucene has only their
 * committed names). Every row is then checked against the node's stored words.
 */
function nameHits(query: string, limit: string): string {
	return `CALL {
			WITH f CALL db.index.fulltext.queryNodes($index, ${query}${limit}) YIELD node AS n
			WITH n WHERE NOT n.engrama_id IN $written RETURN n
			UNION ALL
			WITH f MATCH (n:${NODE_LABEL} {__ns: $ns}) WHERE n.engrama_id IN $written RETURN n
		}`;
}

/**
 * Name candidates in one statement, in SQLite's order: exact names first, then more shared
 * fragments, closer length, older node; each fragment keeps at most POSTINGS_PER_FRAGMENT
 * postings per direction of the length window, nearest length then oldest first. Returns the nodes.
 */
const CANDIDATES = `${AWAIT_FULLTEXT}
	CALL {
		WITH $exact AS f
		${nameHits("f.query", "")}
		WITH n WHERE n.org_id = $org AND n.user_id = $user AND $norm IN coalesce(n.__names, [])
		RETURN n.engrama_id AS id ORDER BY n.__seq LIMIT $limit
	}
	WITH collect(id) AS exact
	CALL {
		WITH exact
		UNWIND $fragments AS f
		CALL {
			WITH f
			${nameHits("f.query", ", {limit: $window}")}
			WITH f, n WHERE n.org_id = $org AND n.user_id = $user
			UNWIND [w IN split(coalesce(n.__name_grams, ''), ' ') WHERE f.lens[w] IS NOT NULL | f.lens[w]] AS len
			WITH f, n.engrama_id AS id, n.__seq AS seq, len, len >= $len AS up
			ORDER BY up, CASE WHEN up THEN len ELSE -len END, seq
			WITH up, collect({id: id, seq: seq, len: len})[0..$cap] AS kept
			UNWIND kept AS p
			RETURN p
		}
		WITH exact, f, p WHERE NOT p.id IN exact
		WITH p.id AS id, count(DISTINCT f.fragment) AS shared, min(abs(p.len - $len)) AS distance, min(p.seq) AS seq
		ORDER BY shared DESC, distance, seq LIMIT $limit
		RETURN collect(id) AS ranked
	}
	WITH (exact + ranked)[0..$limit] AS ids
	UNWIND range(0, size(ids) - 1) AS i
	MATCH (n:${NODE_LABEL} {__ns: $ns, engrama_id: ids[i]}) WHERE n.org_id = $org AND n.user_id = $user
	RETURN ${N} AS node ORDER BY i`;

/** One query fragment: its Lucene query over the length window (nearer lengths boosted) and its words' lengths. */
function fragmentQuery(scopeClause: string, fragment: string, len: number): { fragment: string; query: string; lens: Record<string, ReturnType<typeof neo4j.int>> } {
	const low = Math.floor(len * LENGTH_WINDOW_LOW);
	const high = Math.min(Math.ceil(len * LENGTH_WINDOW_HIGH), MAX_NAME_LENGTH);
	const lens: Record<string, ReturnType<typeof neo4j.int>> = {};
	const terms: string[] = [];
	for (let l = Math.max(low, 1); l <= high; l++) {
		const word = fragmentWord(fragment, l);
		lens[word] = neo4j.int(l);
		terms.push(`${word}^${(1 / (1 + Math.abs(l - len))).toFixed(4)}`);
	}
	return { fragment, query: `${scopeClause} +__name_grams:(${terms.join(" ")})`, lens };
}

// --- The store's name, history and temporal reads (NameHistoryStore) ---

export async function nameCandidates(ctx: Neo4jStoreContext, scope: PartialScope, query: NameCandidatesQuery): Promise<readonly NodeRecord[]> {
	if (!isFullScope(scope) || !query.normalised || query.limit <= 0) return [];
	const len = query.normalised.length;
	const scopeClause = `+${FT_SCOPE_PROPERTY}:${scopeWord(ctx.namespace, scope)}`;
	const rows = await ctx.conn.read(
		(q) =>
			q.run(
				CANDIDATES,
				ctx.params(scope, {
					index: NAME_INDEX,
					written: [...ctx.wordsWrittenInTransaction],
					norm: query.normalised,
					exact: { query: `${scopeClause} +__name_grams:${nameWord(query.normalised.slice(0, MAX_NAME_LENGTH))}` },
					limit: neo4j.int(Math.min(query.limit, 1000)),
					fragments: [...new Set(query.fragments)].map((f) => fragmentQuery(scopeClause, f, len)),
					len: neo4j.int(len),
					window: neo4j.int(NAME_FRAGMENT_WINDOW),
					cap: neo4j.int(POSTINGS_PER_FRAGMENT),
				}),
			),
		"find name candidates",
	);
	return rows.map((row) => toRecord(row.node as StoredMap));
}

export async function recordHistory(ctx: Neo4jStoreContext, scope: Scope, entries: readonly HistoryEntry[]): Promise<void> {
	assertScope(scope);
	if (entries.length === 0) return;
	const rows = entries.map((e) => ({
		node: e.nodeId,
		at: e.at,
		prop: e.prop,
		before: JSON.stringify(e.before ?? null),
		after: JSON.stringify(e.after ?? null),
		source: e.source,
		seq: nextSeq(),
	}));
	await ctx.write(
		(q) =>
			q.run(
				`UNWIND $rows AS e CREATE (h:${HISTORY_LABEL} {__ns: $ns, org_id: $org, user_id: $user})
				SET h.node = e.node, h.at = e.at, h.prop = e.prop, h.before = e.before, h.after = e.after, h.source = e.source, h.seq = e.seq`,
				ctx.params(scope, { rows }),
			),
		"record history",
	);
}

export async function nodeHistory(ctx: Neo4jStoreContext, scope: PartialScope, nodeId: string, query: NodeHistoryQuery): Promise<readonly HistoryEntry[]> {
	if (!isFullScope(scope) || query.limit <= 0) return [];
	const rows = await ctx.conn.read(
		(q) =>
			q.run(
				`MATCH (h:${HISTORY_LABEL} {__ns: $ns, org_id: $org, user_id: $user, node: $id}) WHERE h.at > $since
				RETURN h.at AS at, h.prop AS prop, h.before AS before, h.after AS after, h.source AS source
				ORDER BY h.seq DESC LIMIT $limit`,
				ctx.params(scope, { id: nodeId, since: query.since ?? "", limit: int(query.limit) }),
			),
		"read history",
	);
	return rows.reverse().map((r) => ({
		nodeId,
		at: String(r.at),
		prop: String(r.prop),
		before: parseJson(r.before),
		after: parseJson(r.after),
		source: typeof r.source === "string" ? r.source : null,
	}));
}

export async function nodesValidAt(ctx: Neo4jStoreContext, scope: PartialScope, query: ValidAtQuery): Promise<readonly NodeRecord[]> {
	if (!isFullScope(scope) || query.limit <= 0) return [];
	const from = `coalesce(${sqlValue("n.valid_from")}, n.created_at)`;
	const to = sqlValue("n.valid_to");
	const archivedAt = `coalesce(${sqlValue("n.archived_at")}, n.updated_at)`;
	const rows = await ctx.conn.read(
		(q) =>
			q.run(
				`MATCH (n:${NODE_LABEL}) WHERE ${SCOPE}${query.label ? " AND n.__label = $label" : ""}
				AND ${from} <= $at AND (${to} IS NULL OR ${to} >= $at)
				AND NOT (coalesce(n.status, '') = 'archived' AND ${archivedAt} <= $at)
				RETURN ${N} AS node ORDER BY n.__label, n.__key LIMIT $limit`,
				ctx.params(scope, { label: query.label ?? null, at: query.at, limit: int(query.limit), nullMarker: NULL_MARKER }),
			),
		"read nodes valid at a date",
	);
	return rows.map((row) => toRecord(row.node as StoredMap));
}
