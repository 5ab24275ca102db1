import type { Neo4jStoreContext } from "./store-context";
import type { CypherRunner } from "./neo4j-connection";
import { FT_LENGTH_PROPERTY, FT_SCOPE_PROPERTY, NODE_COLUMNS, fulltextProperties, nodeScopeWords } from "./fts-query";
import { PENDING_LABEL, countNewTerms, newDocumentTerms } from "./term-counts";
import { CREATE_POSTING_ROWS, postingLists, postingScope } from "./names-history";
import { decodeProps } from "./props-codec";
import { type StoredMap, int } from "./rows";

/**
 * A bulk load's deferred search indexes (mergeNodes with `deferIndexes`, a first sync): the nodes
 * are written with their props only, marked :EngramaPending, and their fulltext columns, name
 * postings and term counts are built afterwards page by page (buildDeferredIndexes), from what
 * is stored. Until its page commits a pending node is in no search index at all: Lucene has no
 * columns of it, the resolver no posting, bm25 no count, so every reader sees a consistent index
 * that misses it (as SQLite's deferred rows); lookups by label + key or id find it. A write to a
 * pending node builds its indexes first, in its own transaction (indexPendingNode), so the
 * write's own arithmetic runs on an indexed node, and a delete leaves the counts alone
 * (deletedDocs). Built per page, the counts are summed over the whole page and the postings go
 * in one statement: less CPU than indexing inside each batch statement (docs/benchmarks-neo4j.md).
 */

/** The stores that wrote pending nodes since they opened (an open builds what an earlier process left). */
const deferring = new WeakSet<Neo4jStoreContext>();

/** Notes that this store wrote pending nodes: its next buildDeferredIndexes looks for them. */
export function deferredIndexes(ctx: Neo4jStoreContext): void {
	deferring.add(ctx);
}

/** A pending node as indexPending reads it: its element id and stored map. */
export interface PendingNode {
	readonly eid: string;
	readonly node: StoredMap;
}

/** Cypher: the stored map of pending node `v` (what indexPending needs). */
const PENDING_MAP = (v: string) => `${v} {.*, embedding: null}`;

/**
 * Builds the search indexes of pending nodes in the open transaction, from their stored props:
 * fulltext columns and scope words, name postings, term counts (summed here over all of them),
 * and clears the mark. The caller holds the nodes' locks and read them after taking them.
 */
export async function indexPending(ctx: Neo4jStoreContext, q: CypherRunner, pending: readonly PendingNode[]): Promise<void> {
	if (pending.length === 0) return;
	const docs: Record<string, unknown>[] = [];
	const postings: Record<string, unknown>[] = [];
	const counted: { columns: unknown[]; len: number }[] = [];
	const ids: string[] = [];
	for (const { eid, node } of pending) {
		const props = decodeProps(node);
		const [org, user, id, key] = [String(node.org_id), String(node.user_id), String(node.engrama_id), String(node.__key)];
		const ft = fulltextProperties(props);
		docs.push({ eid, ft, scope: nodeScopeWords(ctx.namespace, org, user, String(node.__label)) });
		counted.push({ columns: NODE_COLUMNS.map((c) => ft[c.property]), len: Number(ft[FT_LENGTH_PROPERTY] ?? 0) });
		postings.push({ scope: postingScope(ctx.namespace, { orgId: org, userId: user }), node: id, seq: node.__seq, ...postingLists(key, props) });
		ids.push(id);
	}
	await q.run(
		`UNWIND $docs AS d MATCH (n) WHERE elementId(n) = d.eid
		SET n += d.ft, n.${FT_SCOPE_PROPERTY} = d.scope REMOVE n:${PENDING_LABEL}`,
		{ docs },
	);
	// One row per node (its postings as lists): the scope key, id and order are sent once.
	await q.run(
		`UNWIND $rows AS r ${CREATE_POSTING_ROWS}`,
		{ rows: postings },
	);
	await q.run(`${countNewTerms("nodes")} RETURN 1`, { ns: ctx.namespace, termChanges: newDocumentTerms(counted) });
	ctx.wroteWords(ids);
}

/** A single write's pending node (element id `eid`, locked by the write): indexed before the write changes it. */
export async function indexPendingNode(ctx: Neo4jStoreContext, q: CypherRunner, eid: string): Promise<void> {
	const rows = await q.run(`MATCH (n) WHERE elementId(n) = $eid AND n:${PENDING_LABEL} RETURN ${PENDING_MAP("n")} AS node`, { eid });
	if (rows[0]) await indexPending(ctx, q, [{ eid, node: rows[0].node as StoredMap }]);
}

/**
 * BulkSyncStore.buildDeferredIndexes: the indexes of up to `limit` pending nodes of this memory
 * as one transaction; true while some remain. Only a store that wrote pending nodes looks for
 * them, or one opening (`atOpen`: what an interrupted load left).
 */
export async function buildDeferredIndexes(ctx: Neo4jStoreContext, limit: number, atOpen = false): Promise<boolean> {
	if (!atOpen && !deferring.has(ctx)) return false;
	// An open writes only when an earlier load left some (every open asks).
	if (atOpen) {
		const left = await ctx.conn.read((q) => q.run(`MATCH (n:${PENDING_LABEL} {__ns: $ns}) RETURN true AS any LIMIT 1`, { ns: ctx.namespace }), "look for unbuilt indexes");
		if (left.length === 0) return false;
	}
	const page = Math.max(1, Math.floor(limit));
	const more = await ctx.write(async (q) => {
		// Locked first (a no-op write), then the ones still pending read: another transaction may
		// have built some while this one waited for their locks.
		const rows = await q.run(
			`MATCH (n:${PENDING_LABEL} {__ns: $ns}) WITH n LIMIT $page SET n.__seq = n.__seq
			WITH collect(n) AS locked
			RETURN size(locked) AS locked, [x IN locked WHERE x:${PENDING_LABEL} | {eid: elementId(x), node: ${PENDING_MAP("x")}}] AS pending`,
			{ ns: ctx.namespace, page: int(page) },
		);
		await indexPending(ctx, q, (rows[0]?.pending as PendingNode[] | undefined) ?? []);
		return Number(rows[0]?.locked ?? 0) >= page;
	}, "build the search indexes");
	if (!more) deferring.delete(ctx);
	return more;
}
