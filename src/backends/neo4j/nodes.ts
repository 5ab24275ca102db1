import type { ListNodesQuery, MergeNodeInput, MergeNodeResult } from "../../engine/backend-kit";
import { isFullScope } from "../../engine/backend-kit";
import type { NodeRecord, PartialScope, PropValue, Props, Scope } from "../../engine/types";
import type { Neo4jStoreContext } from "./store-context";
import { fulltextProperties, nodeScopeWords } from "./fts-query";
import type { CypherRunner } from "./neo4j-connection";
import { PENDING_LABEL, columnList, countTerms, deletedDocs } from "./term-counts";
import { indexPendingNode } from "./deferred-indexes";
import { REPLACE_POSTINGS, createPostings, dropNamePostings, postingParams, postingScope, touchesNames } from "./names-history";
import { decodeProps, encodeProps } from "./props-codec";
import { BY_ID, EDGE_SCOPE, LIVE, N, SCOPE, type StoredMap, assertScope, listFilter, nextSeq, stripColumns, toRecord } from "./rows";
import { EMBEDDED_LABEL, HISTORY_LABEL, NODE_LABEL, PASSAGE_LABEL, VECTOR_PROPERTY, checkLabel } from "./schema";

/** Nodes one at a time (NodeStore): merge, read, update, delete, list and count. */

/** A stored node's props after a merge: the new values over the old, minus what is unset, in its scope. */
export function updatedProps(scope: Scope, before: Props, input: MergeNodeInput): Record<string, PropValue> {
	const props: Record<string, PropValue> = { ...before, ...stripColumns(input.set) };
	for (const name of input.unset ?? []) delete props[name];
	return { ...props, org_id: scope.orgId, user_id: scope.userId };
}

/** A new node's props: what the write sets on create, its engrama_id and its scope (SQLite's arithmetic). */
export function createdProps(scope: Scope, input: MergeNodeInput, id: string): Record<string, PropValue> & { engrama_id: string } {
	const props: Record<string, PropValue> = { ...stripColumns(input.setOnCreate), ...stripColumns(input.set) };
	for (const name of input.unset ?? []) delete props[name];
	return { ...props, engrama_id: id, org_id: scope.orgId, user_id: scope.userId };
}

/** The engrama_id a new node gets: the one the write brings, else a new UUID. */
export function createdId(input: MergeNodeInput): string {
	const given = input.setOnCreate.engrama_id;
	return typeof given === "string" && given ? given : crypto.randomUUID();
}

/**
 * Cypher: stores $vector (or nothing when null) on node n, only where boolean variable `when`
 * holds if one is named, as Neo4jVectorStore.upsert does: the node write carries its embedding
 * (MergeNodeInput.vector).
 */
function setVector(when?: string): string {
	return `CALL { WITH n${when ? `, ${when}` : ""} WITH n WHERE ${when ? `${when} AND ` : ""}$vector IS NOT NULL
		CALL db.create.setNodeVectorProperty(n, '${VECTOR_PROPERTY}', $vector) SET n:${EMBEDDED_LABEL} }`;
}

/** The $vector parameter: the input's embedding as a list, or null. */
function vectorParam(vector: Float32Array | undefined): number[] | null {
	return vector ? Array.from(vector) : null;
}

/**
 * Second half of every node write, after the node is locked and its props read: stores the
 * final props (removing what is gone), the fulltext columns and, when asked, the name postings.
 */
export async function writeNode(
	ctx: Neo4jStoreContext,
	q: CypherRunner,
	node: { scope: Scope; eid: string; key: string; before: Props; final: Props; now: string; reindex: boolean; dropPostings: boolean; vector?: Float32Array },
): Promise<NodeRecord> {
	const gone = Object.keys(node.before).filter((name) => !(name in node.final));
	const rows = await q.run(
		`MATCH (n) WHERE elementId(n) = $eid
		WITH n, ${columnList("nodes", "n")} AS old, n.__ft_len AS oldLen
		SET n += $props, n += $ft, n.updated_at = $now
		WITH n, [{old: old, oldLen: oldLen, new: ${columnList("nodes", "n")}, newLen: n.__ft_len}] AS ftDocs
		${countTerms("nodes")}
		WITH n
		${setVector()}
		${REPLACE_POSTINGS}
		RETURN ${N} AS after`,
		{
			ns: ctx.namespace,
			eid: node.eid,
			props: encodeProps(node.final, gone),
			ft: fulltextProperties(node.final),
			now: node.now,
			vector: vectorParam(node.vector),
			...postingParams(node.reindex, node.dropPostings, node.key, node.final, postingScope(ctx.namespace, node.scope)),
		},
	);
	const after = toRecord(rows[0].after as StoredMap);
	ctx.wroteWords([after.id]);
	return after;
}

export async function mergeNode(ctx: Neo4jStoreContext, scope: Scope, input: MergeNodeInput): Promise<MergeNodeResult> {
	assertScope(scope);
	checkLabel(input.label);
	return ctx.write((q) => mergeNodeIn(ctx, q, scope, input), "merge the node");
}

export async function mergeNodeIn(ctx: Neo4jStoreContext, q: CypherRunner, scope: Scope, input: MergeNodeInput): Promise<MergeNodeResult> {
	const label = checkLabel(input.label);
	const id = createdId(input);
	const seq = nextSeq();
	const fresh = createdProps(scope, input, id);
	// One statement creates a new node whole (props, fulltext columns, name postings). MERGE under
	// the identity constraint, and a write on a match too: either way this transaction now holds
	// the node's lock, so a match's read-compute-write below cannot interleave.
	const rows = await q.run(
		`MERGE (n:${NODE_LABEL} {__ns: $ns, __label: $label, __key: $key, org_id: $org, user_id: $user})
		ON CREATE SET n:${label}, n.__seq = $seq, n.__key_field = $keyField, n.created_at = $now, n += $props, n += $ft, n.__ft_scope = $ftScope, n.updated_at = $now
		ON MATCH SET n.__seq = n.__seq
		WITH n, n.__seq = $seq AS created
		WITH n, created, CASE WHEN created THEN [{new: ${columnList("nodes", "n")}, newLen: n.__ft_len}] ELSE [] END AS ftDocs
		${countTerms("nodes")}
		${setVector("created")}
		${createPostings("CASE WHEN created THEN $names ELSE [] END", "CASE WHEN created THEN $fragments ELSE [] END")}
		RETURN ${N} AS node, created, elementId(n) AS eid, n:${PENDING_LABEL} AS pending`,
		ctx.params(scope, {
			label,
			key: input.key,
			keyField: input.keyField,
			seq,
			now: input.now,
			props: encodeProps(fresh),
			ft: fulltextProperties(fresh),
			ftScope: nodeScopeWords(ctx.namespace, scope.orgId, scope.userId, label),
			vector: vectorParam(input.vector),
			...postingParams(true, false, input.key, fresh, postingScope(ctx.namespace, scope)),
		}),
	);
	const row = rows[0];
	if (row.created === true) {
		ctx.wroteWords([id]);
		return { node: toRecord(row.node as StoredMap), created: true, vectorWritten: input.vector !== undefined };
	}
	// Locked by the MERGE: the caller prepares its write from the stored node, which cannot change meanwhile.
	if (input.onlyIfNew) {
		const stored = toRecord(row.node as StoredMap);
		return { node: stored, created: false, stored };
	}
	// A node a bulk load left unindexed (deferred-indexes.ts) is indexed first, so the update's counts hold.
	if (row.pending === true) await indexPendingNode(ctx, q, String(row.eid));
	const before = decodeProps(row.node as StoredMap);
	// The same arithmetic as SQLite's mergeNode.
	const node = await writeNode(ctx, q, {
		scope,
		eid: String(row.eid),
		key: input.key,
		before,
		final: updatedProps(scope, before, input),
		now: input.now,
		reindex: touchesNames(input.set, input.unset),
		dropPostings: true,
		vector: input.vector,
	});
	return { node, created: false, previous: before, vectorWritten: input.vector !== undefined };
}

export async function one(ctx: Neo4jStoreContext, scope: PartialScope, match: string, params: Record<string, unknown>, what: string): Promise<NodeRecord | null> {
	if (!isFullScope(scope)) return null;
	const rows = await ctx.conn.read((q) => q.run(`${match} RETURN ${N} AS node LIMIT 1`, ctx.params(scope, params)), what);
	return rows[0] ? toRecord(rows[0].node as StoredMap) : null;
}

export function getNode(ctx: Neo4jStoreContext, scope: PartialScope, label: string, key: string): Promise<NodeRecord | null> {
	return one(ctx, 
		scope,
		`MATCH (n:${NODE_LABEL} {__ns: $ns, __label: $label, __key: $key, org_id: $org, user_id: $user})`,
		{ label, key },
		"read the node",
	);
}

/** getNode for many label + key pairs in one statement, in input order. */
export async function getNodes(ctx: Neo4jStoreContext, scope: Scope, refs: readonly { label: string; key: string }[]): Promise<readonly (NodeRecord | null)[]> {
	assertScope(scope);
	if (refs.length === 0) return [];
	const rows = await ctx.conn.read(
		(q) =>
			q.run(
				`UNWIND range(0, size($refs) - 1) AS i
				MATCH (n:${NODE_LABEL} {__ns: $ns, __label: $refs[i].label, __key: $refs[i].key, org_id: $org, user_id: $user})
				RETURN i, ${N} AS node`,
				ctx.params(scope, { refs: refs.map((r) => ({ label: r.label, key: r.key })) }),
			),
		"read the nodes",
	);
	const out: (NodeRecord | null)[] = refs.map(() => null);
	for (const row of rows) out[Number(row.i)] = toRecord(row.node as StoredMap);
	return out;
}

export function getNodeById(ctx: Neo4jStoreContext, scope: PartialScope, id: string): Promise<NodeRecord | null> {
	const known = ctx.takePrefetched(scope, id);
	if (known) return Promise.resolve(known);
	return one(ctx, scope, `MATCH ${BY_ID} WHERE ${SCOPE}`, { id }, "read the node");
}

/** Nodes by id in one statement; the ones the vector channel just read come from its prefetch. */
export async function getNodesByIds(ctx: Neo4jStoreContext, scope: PartialScope, ids: readonly string[]): Promise<ReadonlyMap<string, NodeRecord>> {
	const out = new Map<string, NodeRecord>();
	if (!isFullScope(scope)) return out;
	const wanted: string[] = [];
	for (const id of new Set(ids)) {
		const known = ctx.takePrefetched(scope, id);
		if (known) out.set(id, known);
		else wanted.push(id);
	}
	if (wanted.length === 0) return out;
	const rows = await ctx.conn.read(
		(q) => q.run(`UNWIND $ids AS id MATCH (n:${NODE_LABEL} {__ns: $ns, engrama_id: id}) WHERE ${SCOPE} RETURN id, ${N} AS node`, ctx.params(scope, { ids: wanted })),
		"read the nodes",
	);
	for (const row of rows) out.set(String(row.id), toRecord(row.node as StoredMap));
	return out;
}

export async function idsOutsideScope(ctx: Neo4jStoreContext, scope: Scope, ids: readonly string[]): Promise<ReadonlySet<string>> {
	assertScope(scope);
	if (ids.length === 0) return new Set();
	const rows = await ctx.conn.read(
		(q) =>
			q.run(
				`UNWIND $ids AS id MATCH (n:${NODE_LABEL} {__ns: $ns, engrama_id: id}) WHERE NOT (n.org_id = $org AND n.user_id = $user) RETURN n.engrama_id AS id`,
				ctx.params(scope, { ids: [...ids] }),
			),
		"look up engrama ids",
	);
	return new Set(rows.map((row) => String(row.id)));
}

export async function findByKey(ctx: Neo4jStoreContext, scope: PartialScope, key: string): Promise<readonly NodeRecord[]> {
	if (!isFullScope(scope)) return [];
	const rows = await ctx.conn.read(
		(q) => q.run(`MATCH (n:${NODE_LABEL}) WHERE ${SCOPE} AND n.__key = $key RETURN ${N} AS node ORDER BY n.__seq`, ctx.params(scope, { key })),
		"find nodes by key",
	);
	return rows.map((row) => toRecord(row.node as StoredMap));
}

export async function updateNode(ctx: Neo4jStoreContext, scope: Scope, id: string, set: Props, unset: readonly string[], now: string): Promise<NodeRecord | null> {
	assertScope(scope);
	return ctx.write(async (q) => {
		const rows = await q.run(
			`MATCH ${BY_ID} WHERE ${SCOPE} SET n.__seq = n.__seq RETURN ${N} AS before, elementId(n) AS eid, n:${PENDING_LABEL} AS pending`,
			ctx.params(scope, { id }),
		);
		if (!rows[0]) return null;
		if (rows[0].pending === true) await indexPendingNode(ctx, q, String(rows[0].eid));
		const current = toRecord(rows[0].before as StoredMap);
		const final: Record<string, PropValue> = { ...current.props, ...stripColumns(set) };
		for (const name of unset) delete final[name];
		return writeNode(ctx, q, {
			scope,
			eid: String(rows[0].eid),
			key: current.key,
			before: current.props,
			final,
			now,
			reindex: touchesNames(set, unset),
			dropPostings: true,
		});
	}, "update the node");
}

export async function deleteNode(ctx: Neo4jStoreContext, scope: Scope, id: string): Promise<boolean> {
	assertScope(scope);
	return ctx.write(async (q) => {
		const rows = await q.run(
			`MATCH ${BY_ID} WHERE ${SCOPE} WITH collect(n) AS found
			WITH found, ${deletedDocs("nodes", "found")}
			${countTerms("nodes")}
			FOREACH (n IN found | DETACH DELETE n) RETURN size(found) AS n`,
			ctx.params(scope, { id }),
		);
		if (Number(rows[0]?.n ?? 0) === 0) return false;
		await dropNamePostings(q, postingScope(ctx.namespace, scope), [id]);
		// Its passages go with it (SQLite: ON DELETE CASCADE), in the history's statement.
		await q.run(
			`CALL {
				MATCH (p:${PASSAGE_LABEL} {__ns: $ns, node: $id}) WITH collect(p) AS gone
				WITH gone, ${deletedDocs("passages", "gone")}
				${countTerms("passages")}
				FOREACH (p IN gone | DELETE p)
			}
			MATCH (h:${HISTORY_LABEL} {__ns: $ns, org_id: $org, user_id: $user, node: $id}) DELETE h`,
			ctx.params(scope, { id }),
		);
		return true;
	}, "delete the node");
}

export async function listNodes(ctx: Neo4jStoreContext, scope: PartialScope, query: ListNodesQuery): Promise<readonly NodeRecord[]> {
	if (!isFullScope(scope)) return [];
	const { where, params } = listFilter(query);
	const limit = query.limit !== undefined && query.limit >= 0 ? " LIMIT $limit" : "";
	const rows = await ctx.conn.read(
		(q) => q.run(`MATCH (n:${NODE_LABEL}) WHERE ${where} RETURN ${N} AS node ORDER BY n.__seq SKIP $offset${limit}`, ctx.params(scope, params)),
		"list nodes",
	);
	return rows.map((row) => toRecord(row.node as StoredMap));
}

export async function labelCounts(ctx: Neo4jStoreContext, scope: PartialScope): Promise<Readonly<Record<string, number>>> {
	if (!isFullScope(scope)) return {};
	const rows = await ctx.conn.read(
		(q) =>
			q.run(
				`MATCH (n:${NODE_LABEL}) WHERE ${SCOPE} AND ${LIVE} AND n.__label <> 'Insight'
				RETURN n.__label AS label, count(*) AS n ORDER BY label`,
				ctx.params(scope),
			),
		"count labels",
	);
	return Object.fromEntries(rows.map((row) => [String(row.label), Number(row.n)]));
}

export async function counts(ctx: Neo4jStoreContext, scope: PartialScope): Promise<{ readonly nodes: number; readonly edges: number }> {
	if (!isFullScope(scope)) return { nodes: 0, edges: 0 };
	const rows = await ctx.conn.read(
		(q) =>
			q.run(
				`MATCH (n:${NODE_LABEL}) WHERE ${SCOPE} WITH count(n) AS nodes
				OPTIONAL MATCH (n:${NODE_LABEL})-[r]->() WHERE ${SCOPE} AND ${EDGE_SCOPE}
				RETURN nodes, count(r) AS edges`,
				ctx.params(scope),
			),
		"count the memory",
	);
	return { nodes: Number(rows[0]?.nodes ?? 0), edges: Number(rows[0]?.edges ?? 0) };
}
