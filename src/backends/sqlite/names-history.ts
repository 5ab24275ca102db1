import type { HistoryEntry, NameCandidatesQuery, NodeHistoryQuery, ValidAtQuery } from "../../engine/backend-kit";
import { NAME_INDEX_LIMITS, indexedNames, nameFragments } from "../../engine/backend-kit";
import { isFullScope } from "../../engine/backend-kit";
import type { NodeRecord, PartialScope, Props, Scope } from "../../engine/types";
import type { SqliteStoreContext } from "./store-context";
import { NODE_COLS, SCOPE_WHERE, assertScope, parseProps, parseValue, scopeParams, toRecord } from "./rows";
import { SCOPES_TABLE, SCOPE_NUMBER, STATUS_EXPR, type NodeRow } from "./schema";

/** The entity resolver's name index, property history and temporal reads (NameHistoryStore). */

// The name index's read bounds (shared with every backend, see NAME_INDEX_LIMITS).
export const POSTINGS_PER_FRAGMENT = NAME_INDEX_LIMITS.postingsPerFragment;

export const LENGTH_WINDOW_LOW = NAME_INDEX_LIMITS.lengthWindowLow;

export const LENGTH_WINDOW_HIGH = NAME_INDEX_LIMITS.lengthWindowHigh;

/** [row id, normalised name] for each name a node is found by (see indexedNames). */
export type NameRow = readonly [number, string];

export function nameRows(rowId: number, key: string, props: Props): NameRow[] {
	return indexedNames(key, props).map((norm) => [rowId, norm]);
}

export function touchesNames(set: Props, unset: readonly string[] | undefined): boolean {
	return "aliases" in set || (unset ?? []).includes("aliases");
}

/** Re-indexes one node's names (key + aliases) and their fragments. */
export function indexNames(ctx: SqliteStoreContext, rowId: number, scope: Scope, key: string, props: Props): void {
	dropNameIndex(ctx, rowId);
	insertNames(ctx, scope, nameRows(rowId, key, props));
}

/**
 * Name-index rows (of one node or many): one statement for the names, one for their fragments.
 * Rows travel as one JSON array; fragments grouped per name so each row only reads a scalar.
 */
export function insertNames(ctx: SqliteStoreContext, scope: Scope, rows: readonly NameRow[]): void {
	if (rows.length === 0) return;
	ctx.conn.run(`INSERT OR IGNORE INTO ${SCOPES_TABLE}(org_id, user_id) VALUES (?, ?)`, scopeParams(scope));
	ctx.conn.run(
		`INSERT OR IGNORE INTO node_names(node_id, scope, norm, len) SELECT value->>0, ${SCOPE_NUMBER}, value->>1, value->>2 FROM json_each(?)`,
		[...scopeParams(scope), JSON.stringify(rows.map(([rowId, norm]) => [rowId, norm, norm.length]))],
	);
	ctx.conn.run(
		`WITH n AS MATERIALIZED (SELECT value->>0 AS id, value->>1 AS len, value->2 AS fragments FROM json_each(?))
		INSERT OR IGNORE INTO node_name_fragments(scope, fragment, len, node_id)
		SELECT ${SCOPE_NUMBER}, f.value, n.len, n.id FROM n, json_each(n.fragments) f`,
		[JSON.stringify(rows.map(([rowId, norm]) => [rowId, norm.length, nameFragments(norm)])), ...scopeParams(scope)],
	);
}

export function dropNameIndex(ctx: SqliteStoreContext, rowId: number): void {
	ctx.conn.run("DELETE FROM node_name_fragments WHERE node_id = ?", [rowId]);
	ctx.conn.run("DELETE FROM node_names WHERE node_id = ?", [rowId]);
}

/** Nodes written by a reader that does not keep the name index (the Python engrama) get indexed on open. */
export function backfillNameIndex(ctx: SqliteStoreContext): void {
	const missing = ctx.conn.all<NodeRow>(
		`SELECT ${NODE_COLS} FROM nodes n WHERE NOT EXISTS (SELECT 1 FROM node_names nn WHERE nn.node_id = n.id)`,
	);
	if (missing.length === 0) return;
	ctx.atomic(() => {
		for (const row of missing) {
			const props = parseProps(row.props);
			const orgId = typeof props.org_id === "string" ? props.org_id : "";
			const userId = typeof props.user_id === "string" ? props.user_id : "";
			indexNames(ctx, row.id, { orgId, userId }, row.key_value, props);
		}
	});
}

export async function nameCandidates(ctx: SqliteStoreContext, scope: PartialScope, query: NameCandidatesQuery): Promise<readonly NodeRecord[]> {
	if (!isFullScope(scope) || !query.normalised || query.limit <= 0) return [];
	const limit = Math.min(query.limit, 1000);
	const params = scopeParams(scope);
	const exact = ctx.conn
		.all<{ node_id: number }>(`SELECT node_id FROM node_names WHERE scope = ${SCOPE_NUMBER} AND norm = ? LIMIT ?`, [
			...params,
			query.normalised,
			limit,
		])
		.map((r) => r.node_id);
	// Fragments: two index range scans per fragment, outward from the target's length, each
	// capped, so a common fragment costs the same at 1k or 50k nodes.
	const len = query.normalised.length;
	const tally = new Map<number, { shared: number; distance: number }>();
	for (const fragment of new Set(query.fragments)) {
		const rows = [
			...ctx.conn.all<{ node_id: number; len: number }>(
				`SELECT node_id, len FROM node_name_fragments WHERE scope = ${SCOPE_NUMBER} AND fragment = ? AND len >= ? AND len <= ? ORDER BY len LIMIT ?`,
				[...params, fragment, len, Math.ceil(len * LENGTH_WINDOW_HIGH), POSTINGS_PER_FRAGMENT],
			),
			...ctx.conn.all<{ node_id: number; len: number }>(
				`SELECT node_id, len FROM node_name_fragments WHERE scope = ${SCOPE_NUMBER} AND fragment = ? AND len < ? AND len >= ? ORDER BY len DESC LIMIT ?`,
				[...params, fragment, len, Math.floor(len * LENGTH_WINDOW_LOW), POSTINGS_PER_FRAGMENT],
			),
		];
		const counted = new Set<number>();
		for (const row of rows) {
			const distance = Math.abs(Number(row.len) - len);
			const entry = tally.get(row.node_id);
			if (!entry) tally.set(row.node_id, { shared: 1, distance });
			else {
				if (!counted.has(row.node_id)) entry.shared++;
				entry.distance = Math.min(entry.distance, distance);
			}
			counted.add(row.node_id);
		}
	}
	const ranked = [...tally.entries()]
		.filter(([id]) => !exact.includes(id))
		.sort((a, b) => b[1].shared - a[1].shared || a[1].distance - b[1].distance || a[0] - b[0])
		.map(([id]) => id);
	const ids = [...exact, ...ranked].slice(0, limit);
	if (ids.length === 0) return [];
	// CROSS JOIN keeps the id list driving (primary-key lookups); with IN (...) and the scope
	// filter the planner picks the scope index and walks every node of the scope.
	const rows = ctx.conn.all<NodeRow>(
		`SELECT ${NODE_COLS.split(", ").map((c) => `n.${c}`).join(", ")} FROM json_each(?) j CROSS JOIN nodes n ON n.id = j.value
		WHERE ${SCOPE_WHERE.replaceAll("props", "n.props")}`,
		[JSON.stringify(ids), ...params],
	);
	const byId = new Map(rows.map((r) => [r.id, r]));
	return ids.flatMap((id) => {
		const row = byId.get(id);
		return row ? [toRecord(row)] : [];
	});
}

export async function recordHistory(ctx: SqliteStoreContext, scope: Scope, entries: readonly HistoryEntry[]): Promise<void> {
	assertScope(scope);
	if (entries.length === 0) return;
	ctx.atomic(() => {
		for (const e of entries) {
			ctx.conn.run(
				"INSERT INTO node_history(engrama_id, org_id, user_id, at, prop, before_value, after_value, source) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
				[e.nodeId, ...scopeParams(scope), e.at, e.prop, JSON.stringify(e.before ?? null), JSON.stringify(e.after ?? null), e.source],
			);
		}
	});
}

export async function nodeHistory(ctx: SqliteStoreContext, scope: PartialScope, nodeId: string, query: NodeHistoryQuery): Promise<readonly HistoryEntry[]> {
	if (!isFullScope(scope) || query.limit <= 0) return [];
	const rows = ctx.conn.all<{ at: string; prop: string; before_value: string | null; after_value: string | null; source: string | null }>(
		`SELECT at, prop, before_value, after_value, source FROM node_history
		WHERE org_id = ? AND user_id = ? AND engrama_id = ? AND at > ? ORDER BY id DESC LIMIT ?`,
		[...scopeParams(scope), nodeId, query.since ?? "", query.limit],
	);
	return rows.reverse().map((r) => ({
		nodeId,
		at: r.at,
		prop: r.prop,
		before: parseValue(r.before_value),
		after: parseValue(r.after_value),
		source: r.source,
	}));
}

export async function nodesValidAt(ctx: SqliteStoreContext, scope: PartialScope, query: ValidAtQuery): Promise<readonly NodeRecord[]> {
	if (!isFullScope(scope) || query.limit <= 0) return [];
	const labelFilter = query.label ? " AND label = ?" : "";
	const rows = ctx.conn.all<NodeRow>(
		`SELECT ${NODE_COLS} FROM nodes WHERE ${SCOPE_WHERE}${labelFilter}
		AND COALESCE(json_extract(props, '$.valid_from'), created_at) <= ?
		AND (json_extract(props, '$.valid_to') IS NULL OR json_extract(props, '$.valid_to') >= ?)
		AND NOT (${STATUS_EXPR} = 'archived' AND COALESCE(json_extract(props, '$.archived_at'), updated_at) <= ?)
		ORDER BY label, key_value LIMIT ?`,
		[...scopeParams(scope), ...(query.label ? [query.label] : []), query.at, query.at, query.at, query.limit],
	);
	return rows.map((row) => toRecord(row));
}
