import { NotFoundError, ValidationError } from "../../engine/errors";
import type { ListNodesQuery, MergeEdgeInput, MergeNodeInput, MergeNodeResult, MergeNodesOptions, NodeFields, RekeyNodeInput } from "../../engine/backend-kit";
import { isFullScope } from "../../engine/backend-kit";
import type { NodeRecord, PartialScope, PropValue, Scope } from "../../engine/types";
import type { Neo4jStoreContext } from "./store-context";
import type { CypherRunner } from "./neo4j-connection";
import { FT_LENGTH_PROPERTY, NODE_COLUMNS, fulltextProperties, nodeScopeWords } from "./fts-query";
import { PENDING_LABEL, countNewTerms, newDocumentTerms } from "./term-counts";
import { deferredIndexes, indexPendingNode } from "./deferred-indexes";
import { createPostings, dropNamePostings, postingLists, postingScope } from "./names-history";
import { createdId, createdProps, mergeNodeIn, writeNode } from "./nodes";
import { decodeProps, decodeValue, encodeName, encodeProps } from "./props-codec";
import { BY_ID, N, SCOPE, type StoredMap, assertScope, int, listFilter, nextSeq, toRecord } from "./rows";
import { NODE_LABEL, PASSAGE_LABEL, checkLabel, checkRelationType } from "./schema";

export { buildDeferredIndexes } from "./deferred-indexes";

/** What a vault sync needs beyond one-at-a-time writes (BulkSyncStore): re-identify, many writes in one unit, narrow reads. */

export async function rekeyNode(ctx: Neo4jStoreContext, scope: Scope, id: string, input: RekeyNodeInput): Promise<NodeRecord | null> {
	assertScope(scope);
	const label = checkLabel(input.label);
	return ctx.write(async (q) => {
		const found = await q.run(
			`MATCH ${BY_ID} WHERE ${SCOPE} SET n.__seq = n.__seq RETURN ${N} AS node, elementId(n) AS eid, n:${PENDING_LABEL} AS pending`,
			ctx.params(scope, { id }),
		);
		if (!found[0]) return null;
		const current = found[0].node as StoredMap;
		const eid = String(found[0].eid);
		// A node a bulk load left unindexed is indexed first: the re-key then updates its index.
		if (found[0].pending === true) await indexPendingNode(ctx, q, eid);
		const holder = await q.run(
			`MATCH (n:${NODE_LABEL} {__ns: $ns, __label: $label, __key: $key, org_id: $org, user_id: $user}) WHERE elementId(n) <> $eid RETURN count(n) AS n`,
			ctx.params(scope, { label, key: input.key, eid }),
		);
		if (Number(holder[0]?.n ?? 0) > 0) {
			throw new ValidationError(`Another ${input.label} is already named "${input.key}"; rename one of them.`, {
				label: input.label,
				key: input.key,
			});
		}
		let newId = String(current.engrama_id);
		if (input.newId !== undefined && input.newId !== current.engrama_id) {
			const taken = await q.run(`MATCH (n:${NODE_LABEL} {__ns: $ns, engrama_id: $newId}) RETURN count(n) AS n`, {
				ns: ctx.namespace,
				newId: input.newId,
			});
			if (Number(taken[0]?.n ?? 0) > 0) throw new ValidationError(`engrama_id ${input.newId} already belongs to another node.`, { id: input.newId });
			newId = input.newId;
		}
		const oldLabel = checkLabel(String(current.__label));
		const oldKeyField = current.__key_field === "title" ? "title" : "name";
		// Postings hang off the engrama_id: drop them under the old one before it changes.
		await dropNamePostings(q, postingScope(ctx.namespace, scope), [String(current.engrama_id)]);
		await q.run(
			`MATCH (n) WHERE elementId(n) = $eid
			REMOVE n:${oldLabel} SET n:${label}
			SET n.__label = $label, n.__key = $key, n.__key_field = $keyField, n.engrama_id = $newId, n.__ft_scope = $ftScope
			WITH n CALL { MATCH (p:${PASSAGE_LABEL} {__ns: $ns, node: $oldId}) WHERE $oldId <> $newId SET p.node = $newId }`,
			{
				eid,
				label,
				key: input.key,
				keyField: input.keyField,
				newId,
				ns: ctx.namespace,
				oldId: String(current.engrama_id),
				ftScope: nodeScopeWords(ctx.namespace, scope.orgId, scope.userId, label),
			},
		);
		const before = decodeProps(current);
		const final: Record<string, PropValue> = { ...before };
		if (input.keyField !== oldKeyField) delete final[oldKeyField];
		final[input.keyField] = input.key;
		if (newId !== current.engrama_id) final.engrama_id = newId;
		return writeNode(ctx, q, { scope, eid, key: input.key, before, final, now: input.now, reindex: true, dropPostings: false });
	}, "re-key the node");
}

/**
 * `mergeNode` for a batch in one transaction. New nodes (the batch's identities all distinct and
 * none stored yet: a first sync) are created with one statement per label, the first of which
 * also checks that none is stored, with `deferIndexes` without their search indexes
 * (deferred-indexes.ts); otherwise each input goes through mergeNode's steps in order.
 * On an error nothing is written.
 */
export async function mergeNodes(ctx: Neo4jStoreContext, scope: Scope, inputs: readonly MergeNodeInput[], options: MergeNodesOptions = {}): Promise<readonly MergeNodeResult[]> {
	assertScope(scope);
	if (inputs.length === 0) return [];
	for (const input of inputs) checkLabel(input.label);
	return ctx.write(async (q) => {
		const identities = inputs.map((i) => ({ label: i.label, key: i.key }));
		const distinct = new Set(identities.map((i) => `${i.label}\u0000${i.key}`)).size === inputs.length;
		const defer = options.deferIndexes === true;
		const created = distinct ? await (defer ? createAllPending : createAll)(ctx, q, scope, inputs, identities) : null;
		if (created) {
			if (!defer) ctx.wroteWords(created.map((r) => r.node.id));
			return created;
		}
		const results: MergeNodeResult[] = [];
		for (const input of inputs) results.push(await mergeNodeIn(ctx, q, scope, input));
		return results;
	}, "merge the nodes");
}

/** Creates every input with a statement per label; null (nothing written) when one is already stored. */
async function createAll(
	ctx: Neo4jStoreContext,
	q: CypherRunner,
	scope: Scope,
	inputs: readonly MergeNodeInput[],
	identities: readonly { label: string; key: string }[],
): Promise<MergeNodeResult[] | null> {
	const results: MergeNodeResult[] = [];
	let first = true;
	for (const [label, indexes] of byLabel(inputs)) {
		const rows = indexes.map((i) => {
			const input = inputs[i];
			const final = createdProps(scope, input, createdId(input));
			return {
				i: int(i),
				key: input.key,
				keyField: input.keyField,
				seq: nextSeq(),
				now: input.now,
				id: final.engrama_id,
				props: encodeProps(final),
				ft: fulltextProperties(final),
				...postingLists(input.key, final),
			};
		});
		// A label cannot be a parameter: one statement per label of the batch.
		const made = await q.run(
			`${identityCheck(first)}
			CALL {
				WITH found
				WITH found WHERE found = 0
				UNWIND $rows AS r
				CREATE (n:${NODE_LABEL}:${label} {__ns: $ns, __label: $label, __key: r.key, org_id: $org, user_id: $user})
				SET n.__seq = r.seq, n.__key_field = r.keyField, n.created_at = r.now, n.engrama_id = r.id, n += r.props, n += r.ft, n.__ft_scope = $ftScope, n.updated_at = r.now
				WITH n, r
				${createPostings("r.names", "r.fragments")}
				WITH collect({i: r.i, after: ${N}}) AS made
				${countNewTerms("nodes")}
				RETURN made
			}
			RETURN found, made`,
			ctx.params(scope, {
				label,
				rows,
				ids: first ? identities : [],
				ftScope: nodeScopeWords(ctx.namespace, scope.orgId, scope.userId, label),
				postingScope: postingScope(ctx.namespace, scope),
				termChanges: newDocumentTerms(rows.map((r) => ({ columns: NODE_COLUMNS.map((c) => r.ft[c.property]), len: Number(r.ft[FT_LENGTH_PROPERTY] ?? 0) }))),
			}),
		);
		first = false;
		if (Number(made[0]?.found ?? 0) > 0) return null;
		for (const row of made[0].made as { i: unknown; after: StoredMap }[]) results[Number(row.i)] = { node: toRecord(row.after), created: true };
	}
	return results;
}

/** The inputs' positions per label (a label cannot be a parameter: one statement per label). */
function byLabel(inputs: readonly MergeNodeInput[]): Map<string, number[]> {
	const out = new Map<string, number[]>();
	inputs.forEach((input, i) => out.set(input.label, [...(out.get(input.label) ?? []), i]));
	return out;
}

/** The check the first statement of a batch runs: how many of its identities are stored already. */
function identityCheck(first: boolean): string {
	return first
		? `UNWIND $ids AS k OPTIONAL MATCH (m:${NODE_LABEL} {__ns: $ns, __label: k.label, __key: k.key, org_id: $org, user_id: $user}) WITH count(m) AS found`
		: "WITH 0 AS found";
}

/**
 * createAll without the search indexes: each label's new nodes with their props only, marked
 * pending (deferred-indexes.ts builds the rest); the results are made here from what was
 * written, not read back. Null (nothing written) when one is already stored.
 */
async function createAllPending(
	ctx: Neo4jStoreContext,
	q: CypherRunner,
	scope: Scope,
	inputs: readonly MergeNodeInput[],
	identities: readonly { label: string; key: string }[],
): Promise<MergeNodeResult[] | null> {
	const results: MergeNodeResult[] = [];
	let first = true;
	for (const [label, indexes] of byLabel(inputs)) {
		const stored = indexes.map((i) => {
			const input = inputs[i];
			const props = encodeProps(createdProps(scope, input, createdId(input)));
			const map: StoredMap = { ...props, __label: label, __key: input.key, __key_field: input.keyField, __seq: nextSeq(), created_at: input.now, updated_at: input.now };
			return { i, map, row: { key: input.key, keyField: input.keyField, seq: map.__seq, now: input.now, props } };
		});
		// A label cannot be a parameter: one statement per label of the batch.
		const made = await q.run(
			`${identityCheck(first)}
			CALL {
				WITH found
				WITH found WHERE found = 0
				UNWIND $rows AS r
				CREATE (n:${NODE_LABEL}:${label}:${PENDING_LABEL} {__ns: $ns, __label: $label, __key: r.key, org_id: $org, user_id: $user})
				SET n.__seq = r.seq, n.__key_field = r.keyField, n.created_at = r.now, n += r.props, n.updated_at = r.now
			}
			RETURN found`,
			ctx.params(scope, { label, rows: stored.map((s) => s.row), ids: first ? identities : [] }),
		);
		first = false;
		if (Number(made[0]?.found ?? 0) > 0) return null;
		deferredIndexes(ctx);
		for (const { i, map } of stored) results[i] = { node: toRecord(map), created: true };
	}
	return results;
}

/** mergeEdge for many edges in one transaction: endpoints checked once, one statement per relation type. */
export async function mergeEdges(ctx: Neo4jStoreContext, scope: Scope, inputs: readonly MergeEdgeInput[]): Promise<{ readonly created: number }> {
	assertScope(scope);
	if (inputs.length === 0) return { created: 0 };
	const byType = new Map<string, Record<string, unknown>[]>();
	for (const input of inputs) {
		const rows = byType.get(checkRelationType(input.type)) ?? [];
		rows.push({ from: input.fromId, to: input.toId, seq: nextSeq(), now: input.now, props: encodeProps(input.props ?? {}) });
		byType.set(input.type, rows);
	}
	return ctx.write(async (q) => {
		const ids = [...new Set(inputs.flatMap((i) => [i.fromId, i.toId]))];
		let created = 0;
		let first = true;
		for (const [type, rows] of byType) {
			// The first statement also checks every endpoint of the batch, and writes only when all
			// are there; a statement per relation type (a type cannot be a parameter).
			const check = first
				? `UNWIND $ids AS id OPTIONAL MATCH (n:${NODE_LABEL} {__ns: $ns, engrama_id: id}) WHERE ${SCOPE}
					WITH collect(CASE WHEN n IS NULL THEN id END) AS missing`
				: "WITH [] AS missing";
			const result = await q.run(
				`${check}
				CALL {
					WITH missing
					WITH missing WHERE size(missing) = 0
					UNWIND $rows AS row
					MATCH (a:${NODE_LABEL} {__ns: $ns, engrama_id: row.from}), (b:${NODE_LABEL} {__ns: $ns, engrama_id: row.to})
					MERGE (a)-[r:${type}]->(b)
					ON CREATE SET r.__seq = row.seq, r.__ns = $ns, r.__org = $org, r.__user = $user, r.created_at = row.now
					SET r += row.props
					RETURN count(CASE WHEN r.__seq = row.seq THEN 1 END) AS created
				}
				RETURN missing, created`,
				ctx.params(scope, { rows, ids: first ? ids : [] }),
			);
			first = false;
			const missing = new Set((result[0]?.missing as string[] | undefined) ?? []);
			for (const input of inputs) {
				for (const [id, role] of [[input.fromId, "source"], [input.toId, "target"]] as const) {
					if (missing.has(id)) throw new NotFoundError(`The relation's ${role} node ${id} does not exist in this scope.`, { id });
				}
			}
			created += Number(result[0]?.created ?? 0);
		}
		return { created };
	}, "merge the relations");
}

/** listNodes reading only some props (absent or null ones are undefined). */
export async function listNodeFields(ctx: Neo4jStoreContext, scope: PartialScope, query: ListNodesQuery & { readonly fields: readonly string[] }): Promise<readonly NodeFields[]> {
	if (!isFullScope(scope)) return [];
	const fields = query.fields.filter((f) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(f));
	const { where, params } = listFilter(query);
	const rows = await ctx.conn.read(
		(q) =>
			q.run(
				`MATCH (n:${NODE_LABEL}) WHERE ${where}
				RETURN n.engrama_id AS id, n.__label AS label, n.__key AS key, [f IN $fields | n[f]] AS values
				ORDER BY n.__seq SKIP $offset${query.limit !== undefined && query.limit >= 0 ? " LIMIT $limit" : ""}`,
				ctx.params(scope, { ...params, fields: fields.map(encodeName) }),
			),
		"list node fields",
	);
	return rows.map((row) => {
		const values = row.values as unknown[];
		return {
			id: String(row.id),
			label: String(row.label),
			key: String(row.key),
			fields: Object.fromEntries(
				fields.map((f, i) => {
					const value = values[i] === null || values[i] === undefined ? null : decodeValue(values[i]);
					return [f, value === null ? undefined : value];
				}),
			),
		};
	});
}
