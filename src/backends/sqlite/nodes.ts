import type { ListNodesQuery, MergeNodeInput, MergeNodeResult } from "../../engine/backend-kit";
import { isFullScope } from "../../engine/backend-kit";
import type { NodeRecord, PartialScope, PropValue, Props, Scope } from "../../engine/types";
import type { SqliteStoreContext } from "./store-context";
import { writeFts } from "./fulltext";
import { dropNameIndex, indexNames, insertNames, nameRows, touchesNames } from "./names-history";
import { LIVE, NODE_COLS, SCOPE_WHERE, assertScope, identityChanged, listFilter, parseProps, scopeParams, stripColumns, toRecord } from "./rows";
import { dropPassages } from "./passages";
import { ID_EXPR, type NodeRow } from "./schema";

/** Nodes one at a time (NodeStore): merge, read, update, delete, list and count. */

export async function mergeNode(ctx: SqliteStoreContext, scope: Scope, input: MergeNodeInput): Promise<MergeNodeResult> {
	assertScope(scope);
	return ctx.atomic(() => mergeNodeNow(ctx, scope, input));
}

export function mergeNodeNow(ctx: SqliteStoreContext, scope: Scope, input: MergeNodeInput): MergeNodeResult {
	const existing = ctx.rowByKey(scope, input.label, input.key);
	if (existing) {
		const previous = parseProps(existing.props);
		const props: Record<string, PropValue> = { ...previous, ...stripColumns(input.set) };
		for (const name of input.unset ?? []) delete props[name];
		props.org_id = scope.orgId;
		props.user_id = scope.userId;
		if (identityChanged(previous, props)) ctx.forgetRowId(previous.engrama_id);
		ctx.conn.run("UPDATE nodes SET props = ?, updated_at = ? WHERE id = ?", [JSON.stringify(props), input.now, existing.id]);
		writeFts(ctx, existing.id, props);
		if (touchesNames(input.set, input.unset)) indexNames(ctx, existing.id, scope, existing.key_value, props);
		return {
			node: toRecord({ ...existing, props: JSON.stringify(props), updated_at: input.now }),
			created: false,
			previous,
		};
	}
	const props = createdProps(scope, input);
	const text = JSON.stringify(props);
	const { lastInsertRowid } = ctx.conn.run(
		"INSERT INTO nodes(label, key_field, key_value, props, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
		[input.label, input.keyField, input.key, text, input.now, input.now],
	);
	// A new row id (AUTOINCREMENT never reuses one) has no fulltext row and no names yet.
	ctx.rememberRowId(scope, props.engrama_id, lastInsertRowid);
	writeFts(ctx, lastInsertRowid, props, true);
	insertNames(ctx, scope, nameRows(lastInsertRowid, input.key, props));
	return { node: createdRecord(lastInsertRowid, input, text), created: true };
}

export function createdRecord(rowId: number, input: MergeNodeInput, propsText: string): NodeRecord {
	return toRecord({
		id: rowId,
		label: input.label,
		key_field: input.keyField,
		key_value: input.key,
		props: propsText,
		created_at: input.now,
		updated_at: input.now,
	});
}

export async function getNode(ctx: SqliteStoreContext, scope: PartialScope, label: string, key: string): Promise<NodeRecord | null> {
	if (!isFullScope(scope)) return null;
	const row = ctx.rowByKey(scope, label, key);
	return row ? toRecord(row) : null;
}

export async function getNodeById(ctx: SqliteStoreContext, scope: PartialScope, id: string): Promise<NodeRecord | null> {
	if (!isFullScope(scope)) return null;
	const row = ctx.rowById(scope, id);
	return row ? toRecord(row) : null;
}

/** In-process reads cost no round trip: one lookup per id (the row-id cache answers most). */
export async function getNodesByIds(ctx: SqliteStoreContext, scope: PartialScope, ids: readonly string[]): Promise<ReadonlyMap<string, NodeRecord>> {
	const out = new Map<string, NodeRecord>();
	if (!isFullScope(scope)) return out;
	for (const id of new Set(ids)) {
		const row = ctx.rowById(scope, id);
		if (row) out.set(id, toRecord(row));
	}
	return out;
}

export async function idsOutsideScope(ctx: SqliteStoreContext, scope: Scope, ids: readonly string[]): Promise<ReadonlySet<string>> {
	assertScope(scope);
	if (ids.length === 0) return new Set();
	const rows = ctx.conn.all<{ id: string }>(
		`SELECT ${ID_EXPR} AS id FROM json_each(?) j CROSS JOIN nodes ON ${ID_EXPR} = j.value WHERE NOT (${SCOPE_WHERE})`,
		[JSON.stringify(ids), ...scopeParams(scope)],
	);
	return new Set(rows.map((r) => r.id));
}

export async function findByKey(ctx: SqliteStoreContext, scope: PartialScope, key: string): Promise<readonly NodeRecord[]> {
	if (!isFullScope(scope)) return [];
	return ctx.conn
		.all<NodeRow>(`SELECT ${NODE_COLS} FROM nodes WHERE ${SCOPE_WHERE} AND key_value = ?`, [...scopeParams(scope), key])
		.map((row) => toRecord(row));
}

export async function updateNode(ctx: SqliteStoreContext, scope: Scope, id: string, set: Props, unset: readonly string[], now: string): Promise<NodeRecord | null> {
	assertScope(scope);
	return ctx.atomic(() => {
		const row = ctx.rowById(scope, id);
		if (!row) return null;
		const before = parseProps(row.props);
		const props: Record<string, PropValue> = { ...before, ...stripColumns(set) };
		for (const name of unset) delete props[name];
		if (identityChanged(before, props)) ctx.forgetRowId(before.engrama_id);
		ctx.conn.run("UPDATE nodes SET props = ?, updated_at = ? WHERE id = ?", [JSON.stringify(props), now, row.id]);
		writeFts(ctx, row.id, props);
		if (touchesNames(set, unset)) indexNames(ctx, row.id, scope, row.key_value, props);
		return toRecord({ ...row, props: JSON.stringify(props), updated_at: now });
	});
}

export async function deleteNode(ctx: SqliteStoreContext, scope: Scope, id: string): Promise<boolean> {
	assertScope(scope);
	return ctx.atomic(() => {
		const row = ctx.rowById(scope, id);
		if (!row) return false;
		ctx.forgetRowId(parseProps(row.props).engrama_id);
		ctx.conn.run("DELETE FROM edges WHERE from_id = ? OR to_id = ?", [row.id, row.id]);
		ctx.conn.run("DELETE FROM nodes_fts WHERE rowid = ?", [row.id]);
		dropNameIndex(ctx, row.id);
		ctx.conn.run("DELETE FROM node_history WHERE org_id = ? AND user_id = ? AND engrama_id = ?", [
			...scopeParams(scope),
			toRecord(row).id,
		]);
		// The cascade would take the passages, not their vectors.
		dropPassages(ctx, "SELECT ?", [row.id]);
		ctx.conn.run("DELETE FROM nodes WHERE id = ?", [row.id]);
		return true;
	});
}

export async function listNodes(ctx: SqliteStoreContext, scope: PartialScope, query: ListNodesQuery): Promise<readonly NodeRecord[]> {
	if (!isFullScope(scope)) return [];
	const { where, params } = listFilter(scope, query);
	params.push(query.limit ?? -1, query.offset ?? 0);
	return ctx.conn
		.all<NodeRow>(`SELECT ${NODE_COLS} FROM nodes WHERE ${where.join(" AND ")} ORDER BY id LIMIT ? OFFSET ?`, params)
		.map((row) => toRecord(row));
}

export async function labelCounts(ctx: SqliteStoreContext, scope: PartialScope): Promise<Readonly<Record<string, number>>> {
	if (!isFullScope(scope)) return {};
	const rows = ctx.conn.all<{ label: string; n: number }>(
		`SELECT label, count(*) AS n FROM nodes WHERE ${SCOPE_WHERE} AND ${LIVE} AND label != 'Insight' GROUP BY label ORDER BY label`,
		scopeParams(scope),
	);
	return Object.fromEntries(rows.map((r) => [r.label, Number(r.n)]));
}

export async function counts(ctx: SqliteStoreContext, scope: PartialScope): Promise<{ readonly nodes: number; readonly edges: number }> {
	if (!isFullScope(scope)) return { nodes: 0, edges: 0 };
	const nodes = ctx.conn.get<{ n: number }>(`SELECT count(*) AS n FROM nodes WHERE ${SCOPE_WHERE}`, scopeParams(scope))?.n ?? 0;
	const edges =
		ctx.conn.get<{ n: number }>("SELECT count(*) AS n FROM edges WHERE org_id = ? AND user_id = ?", scopeParams(scope))?.n ?? 0;
	return { nodes: Number(nodes), edges: Number(edges) };
}

/** A new node's props: setOnCreate, then set, then identity and scope; `unset` removed. */
export function createdProps(scope: Scope, input: MergeNodeInput): Record<string, PropValue> {
	const props: Record<string, PropValue> = {
		...stripColumns(input.setOnCreate),
		...stripColumns(input.set),
		engrama_id: input.setOnCreate.engrama_id ?? null,
		org_id: scope.orgId,
		user_id: scope.userId,
	};
	for (const name of input.unset ?? []) delete props[name];
	return props;
}
