import neo4j, { type Integer } from "neo4j-driver";
import { NAME_INDEX_LIMITS, indexedNames, nameFragments } from "../../engine/backend-kit";
import type { HistoryEntry, NameCandidatesQuery, NodeHistoryQuery, ValidAtQuery } from "../../engine/backend-kit";
import { isFullScope } from "../../engine/backend-kit";
import type { NodeRecord, PartialScope, Props, Scope } from "../../engine/types";
import type { Neo4jStoreContext } from "./store-context";
import type { CypherRunner } from "./neo4j-connection";
import { N, NULL_MARKER, SCOPE, type StoredMap, assertScope, int, nextSeq, parseJson, sqlValue, toRecord } from "./rows";
import { FRAGMENT_LABEL, HISTORY_LABEL, NAME_LABEL, NODE_LABEL } from "./schema";

/**
 * The entity resolver's name index, laid out as SQLite's node_names / node_name_fragments tables:
 * one :EngramaName posting per (node, normalised name) and one :EngramaFragment posting per
 * (node, fragment, name length), each carrying its scope key (postingScope), the node's engrama_id
 * and its insertion order, under composite indexes that start with the scope key. Postings follow
 * their node by id. They are most of what a load writes (about 16 per node), so they carry no
 * property the read does not use: names no length, and one scope key instead of the node's three.
 */

// The read bounds every backend shares: postings per fragment and direction, and the length window.
const POSTINGS_PER_FRAGMENT = NAME_INDEX_LIMITS.postingsPerFragment;
const LENGTH_WINDOW_LOW = NAME_INDEX_LIMITS.lengthWindowLow;
const LENGTH_WINDOW_HIGH = NAME_INDEX_LIMITS.lengthWindowHigh;

/**
 * The scope key of a memory's postings: a 53-bit hash (cyrb53) of its namespace, org and user, one
 * number where the three strings __ns, org_id and user_id were (a namespace is often longer than a
 * property record holds inline). Computed here, so no write reads it first. Two scopes of one
 * database share a key with odds of about n²/2⁵⁴ for n scopes; the read checks every candidate's
 * node against the scope, so a shared key could only crowd a fragment's capped lists, never leak.
 */
export function postingScope(ns: string, scope: Scope): Integer {
	const text = JSON.stringify([ns, scope.orgId, scope.userId]);
	let h1 = 0xdeadbeef;
	let h2 = 0x41c6ce57;
	for (let i = 0; i < text.length; i++) {
		const ch = text.charCodeAt(i);
		h1 = Math.imul(h1 ^ ch, 2654435761);
		h2 = Math.imul(h2 ^ ch, 1597334677);
	}
	h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
	h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
	h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
	h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
	return neo4j.int(4294967296 * (2097151 & h2) + (h1 >>> 0));
}

export function touchesNames(set: Props, unset: readonly string[] | undefined): boolean {
	return "aliases" in set || (unset ?? []).includes("aliases");
}

/** Postings of one node: distinct names, and distinct (fragment, length) pairs as SQLite's keys. */
export function postingsOf(key: string, props: Props): { names: { norm: string }[]; fragments: { fragment: string; len: number }[] } {
	const names: { norm: string }[] = [];
	const fragments = new Map<string, { fragment: string; len: number }>();
	for (const norm of indexedNames(key, props)) {
		names.push({ norm });
		for (const fragment of nameFragments(norm)) fragments.set(`${fragment}\u0000${norm.length}`, { fragment, len: norm.length });
	}
	return { names, fragments: [...fragments.values()] };
}

/** Drops the postings of nodes of the scope whose key is `scopeKey` (postingScope). */
export async function dropNamePostings(q: CypherRunner, scopeKey: Integer, nodeIds: readonly string[]): Promise<number> {
	if (nodeIds.length === 0) return 0;
	const rows = await q.run(
		`UNWIND $ids AS id
		CALL { WITH id MATCH (p:${NAME_LABEL} {scope: $postingScope, node: id}) DELETE p RETURN count(*) AS names }
		CALL { WITH id MATCH (p:${FRAGMENT_LABEL} {scope: $postingScope, node: id}) DELETE p RETURN count(*) AS fragments }
		RETURN sum(names) + sum(fragments) AS n`,
		{ postingScope: scopeKey, ids: [...nodeIds] },
	);
	return Number(rows[0]?.n ?? 0);
}

/**
 * Cypher clauses (after a `WITH n`) that replace node n's postings: drop the old ones when
 * $dropPostings, then create $names and $fragments. Params come from `postingParams`.
 */
export const REPLACE_POSTINGS = `CALL { WITH n WITH n WHERE $dropPostings MATCH (p:${NAME_LABEL} {scope: $postingScope, node: n.engrama_id}) DELETE p }
	CALL { WITH n WITH n WHERE $dropPostings MATCH (p:${FRAGMENT_LABEL} {scope: $postingScope, node: n.engrama_id}) DELETE p }
	${createPostings("$names", "$fragments")}`;

/**
 * Cypher clauses that create node n's postings from two list expressions (see postingParams), under
 * the scope key $postingScope. A node's scope never changes, so its postings keep the key.
 */
export function createPostings(names: string, fragments: string): string {
	return `FOREACH (x IN ${names} | CREATE (:${NAME_LABEL} {scope: $postingScope, norm: x.norm, seq: n.__seq, node: n.engrama_id}))
	FOREACH (x IN ${fragments} | CREATE (:${FRAGMENT_LABEL} {scope: $postingScope, fragment: x.fragment, len: x.len, seq: n.__seq, node: n.engrama_id}))`;
}

/** Cypher: the postings of rows `r` {scope, node, seq, names, fragments} (a scope key and postingLists). */
export const CREATE_POSTING_ROWS = `FOREACH (x IN r.names | CREATE (:${NAME_LABEL} {scope: r.scope, norm: x.norm, seq: r.seq, node: r.node}))
	FOREACH (x IN r.fragments | CREATE (:${FRAGMENT_LABEL} {scope: r.scope, fragment: x.fragment, len: x.len, seq: r.seq, node: r.node}))`;

/** A node's postings as statement parameters (names and (fragment, length) pairs). */
export function postingLists(key: string, props: Props): { names: { norm: string }[]; fragments: { fragment: string; len: Integer }[] } {
	const { names, fragments } = postingsOf(key, props);
	return { names, fragments: fragments.map((f) => ({ fragment: f.fragment, len: neo4j.int(f.len) })) };
}

/** Params for REPLACE_POSTINGS in scope `scopeKey` (postingScope): `reindex` false leaves the postings alone. */
export function postingParams(reindex: boolean, drop: boolean, key: string, props: Props, scopeKey: Integer): Record<string, unknown> {
	if (!reindex) return { postingScope: scopeKey, dropPostings: false, names: [], fragments: [] };
	return { postingScope: scopeKey, dropPostings: drop, ...postingLists(key, props) };
}

/**
 * Name candidates in one statement, in SQLite's order: exact names first, then more shared
 * fragments, closer length, older node; each fragment reads at most POSTINGS_PER_FRAGMENT
 * postings per direction of the length window. Returns the nodes themselves.
 */
const CANDIDATES = `CALL {
		MATCH (p:${NAME_LABEL} {scope: $postingScope, norm: $norm})
		RETURN p.node AS id ORDER BY p.seq LIMIT $limit
	}
	WITH collect(id) AS exact
	CALL {
		WITH exact
		UNWIND $fragments AS f
		CALL {
			WITH f
			MATCH (p:${FRAGMENT_LABEL} {scope: $postingScope, fragment: f})
			WHERE p.len >= $len AND p.len <= $high
			RETURN p ORDER BY p.len, p.seq LIMIT $cap
			UNION ALL
			WITH f
			MATCH (p:${FRAGMENT_LABEL} {scope: $postingScope, fragment: f})
			WHERE p.len < $len AND p.len >= $low
			RETURN p ORDER BY p.len DESC, p.seq LIMIT $cap
		}
		WITH exact, f, p WHERE NOT p.node IN exact
		WITH p.node AS id, count(DISTINCT f) AS shared, min(abs(p.len - $len)) AS distance, min(p.seq) AS seq
		ORDER BY shared DESC, distance, seq LIMIT $limit
		RETURN collect(id) AS ranked
	}
	WITH (exact + ranked)[0..$limit] AS ids
	UNWIND range(0, size(ids) - 1) AS i
	MATCH (n:${NODE_LABEL} {__ns: $ns, engrama_id: ids[i]}) WHERE n.org_id = $org AND n.user_id = $user
	RETURN ${N} AS node ORDER BY i`;

// --- The store's name, history and temporal reads (NameHistoryStore) ---

export async function nameCandidates(ctx: Neo4jStoreContext, scope: PartialScope, query: NameCandidatesQuery): Promise<readonly NodeRecord[]> {
	if (!isFullScope(scope) || !query.normalised || query.limit <= 0) return [];
	const len = query.normalised.length;
	const rows = await ctx.conn.read(
		(q) =>
			q.run(
				CANDIDATES,
				ctx.params(scope, {
					postingScope: postingScope(ctx.namespace, scope),
					norm: query.normalised,
					limit: neo4j.int(Math.min(query.limit, 1000)),
					fragments: [...new Set(query.fragments)],
					len: neo4j.int(len),
					high: neo4j.int(Math.ceil(len * LENGTH_WINDOW_HIGH)),
					low: neo4j.int(Math.floor(len * LENGTH_WINDOW_LOW)),
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
