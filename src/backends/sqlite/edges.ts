import type { Adjacency, AdjacentNode, ChainWalk, MergeEdgeInput } from "../../engine/backend-kit";
import { isFullScope } from "../../engine/backend-kit";
import type { Direction, EdgeRecord, NeighbourEdge, Neighbourhood, NeighbourhoodNode, NodeRecord, PartialScope, PropValue, Props, Scope } from "../../engine/types";
import type { SqliteStoreContext } from "./store-context";
import { STORED_EDGE, packEdgeProps, unpackEdgeProps, type StoredEdge } from "./edge-props";
import { LIVE, NODE_COLS, assertScope, parseProps, scopeParams, toRecord } from "./rows";
import { ID_EXPR, type NodeRow } from "./schema";
import type { SqlValue } from "./sqlite-connection";

/** Relations (EdgeStore): merge, delete, walk, and the graph rerank's neighbour lists. */

export interface EdgeRow {
	from_id: number;
	rel_type: string;
	to_id: number;
	edge_created_at: string;
	edge_props: string | null;
	edge_elided: number;
	edge_org: string | null;
	edge_user: string | null;
}

/** Neighbour lists kept between searches (each holds up to cap + 1 neighbours). */
export const ADJACENCY_CACHE_SIZE = 20_000;

export async function mergeEdge(ctx: SqliteStoreContext, scope: Scope, input: MergeEdgeInput): Promise<{ readonly created: boolean }> {
	assertScope(scope);
	return ctx.atomic(() => {
		const from = ctx.requireRow(scope, input.fromId, "source");
		const to = ctx.requireRow(scope, input.toId, "target");
		const existing = ctx.conn.get<StoredEdge>(STORED_EDGE, [from.id, input.type, to.id]);
		if (existing) {
			if (input.props && Object.keys(input.props).length > 0) mergeEdgeProps(ctx, existing, input.props);
			return { created: false };
		}
		const props = input.props ?? {};
		const packed = packEdgeProps(props, scope.orgId, scope.userId, typeof props.note_path === "string" ? notePathOf(from.props) : undefined);
		ctx.conn.run(
			"INSERT INTO edges(from_id, rel_type, to_id, created_at, org_id, user_id, props, elided) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
			[from.id, input.type, to.id, input.now, scope.orgId, scope.userId, packed.text, packed.elided],
		);
		return { created: true };
	});
}

/** An existing edge's props with `props` merged over them, stored packed again (schema 9, edge-props.ts). */
export function mergeEdgeProps(ctx: SqliteStoreContext, existing: StoredEdge, props: Props): void {
	const merged = { ...storedEdgeProps(existing.props, existing.elided, existing.org_id, existing.user_id, existing.from_path), ...props };
	const packed = packEdgeProps(merged, existing.org_id, existing.user_id, existing.from_path);
	ctx.conn.run("UPDATE edges SET props = ?, elided = ? WHERE id = ?", [packed.text, packed.elided, existing.id]);
}

function storedEdgeProps(text: string | null, elided: number, orgId: string | null, userId: string | null, fromPath: PropValue | undefined): Record<string, PropValue> {
	return unpackEdgeProps(parseProps(text), Number(elided ?? 0), orgId, userId, fromPath);
}

/** The obsidian_path of many nodes by row id, in one statement (for packing their edges' note_path). */
export function notePathsOf(ctx: SqliteStoreContext, rowIds: readonly number[]): Map<number, PropValue> {
	if (rowIds.length === 0) return new Map();
	const found = ctx.conn.get<{ rows: string | null }>(
		`SELECT json_group_array(json_array(n.id, json_extract(n.props, '$.obsidian_path'))) AS rows FROM json_each(?) j CROSS JOIN nodes n ON n.id = j.value`,
		[JSON.stringify([...new Set(rowIds)])],
	);
	return new Map(JSON.parse(found?.rows ?? "[]") as [number, PropValue][]);
}

/** A node's obsidian_path from its props text (what an edge's elided note_path is). */
export function notePathOf(propsText: string): PropValue | undefined {
	return parseProps(propsText).obsidian_path;
}

export async function deleteEdge(ctx: SqliteStoreContext, scope: Scope, fromId: string, type: string, toId: string): Promise<boolean> {
	assertScope(scope);
	return ctx.atomic(() => {
		const from = ctx.rowById(scope, fromId);
		const to = ctx.rowById(scope, toId);
		if (!from || !to) return false;
		const { changes } = ctx.conn.run(
			"DELETE FROM edges WHERE from_id = ? AND rel_type = ? AND to_id = ? AND +org_id = ? AND +user_id = ?",
			[from.id, type, to.id, ...scopeParams(scope)],
		);
		return changes > 0;
	});
}

export function edgeRows(ctx: SqliteStoreContext, scope: Scope, rowId: number, direction: Direction, types?: readonly string[], limit = -1) {
	const typeFilter = types && types.length > 0 ? ` AND e.rel_type IN (${types.map(() => "?").join(", ")})` : "";
	const parts: { sql: string; params: SqlValue[] }[] = [];
	if (direction !== "in") {
		parts.push({
			sql: `SELECT 'out' AS dir, e.from_id, e.rel_type, e.to_id, e.created_at AS edge_created_at, e.props AS edge_props, e.elided AS edge_elided, e.org_id AS edge_org, e.user_id AS edge_user, n.${NODE_COLS.split(", ").join(", n.")}
				FROM edges e JOIN nodes n ON n.id = e.to_id
				WHERE e.from_id = ? AND +e.org_id = ? AND +e.user_id = ?${typeFilter}`,
			params: [rowId, ...scopeParams(scope), ...(types ?? [])],
		});
	}
	if (direction !== "out") {
		parts.push({
			sql: `SELECT 'in' AS dir, e.from_id, e.rel_type, e.to_id, e.created_at AS edge_created_at, e.props AS edge_props, e.elided AS edge_elided, e.org_id AS edge_org, e.user_id AS edge_user, n.${NODE_COLS.split(", ").join(", n.")}
				FROM edges e JOIN nodes n ON n.id = e.from_id
				WHERE e.to_id = ? AND +e.org_id = ? AND +e.user_id = ?${typeFilter}`,
			params: [rowId, ...scopeParams(scope), ...(types ?? [])],
		});
	}
	const sql = `${parts.map((p) => p.sql).join(" UNION ALL ")} LIMIT ?`;
	return ctx.conn.all<EdgeRow & NodeRow & { dir: "out" | "in" }>(sql, [
		...parts.flatMap((p) => p.params),
		limit,
	]);
}

export function edgeOf(row: EdgeRow & { dir: "out" | "in" }, self: NodeRecord, other: NodeRecord): EdgeRecord {
	const [from, to] = row.dir === "out" ? [self, other] : [other, self];
	return { fromId: from.id, type: row.rel_type, toId: to.id, createdAt: row.edge_created_at, props: storedEdgeProps(row.edge_props, row.edge_elided, row.edge_org, row.edge_user, from.props.obsidian_path) };
}

export async function edgesOf(ctx: SqliteStoreContext, scope: PartialScope, id: string, direction: Direction, types?: readonly string[]): Promise<readonly NeighbourEdge[]> {
	if (!isFullScope(scope)) return [];
	const self = ctx.rowById(scope, id);
	if (!self) return [];
	const selfRecord = toRecord(self);
	return edgeRows(ctx, scope, self.id, direction, types).map((row) => {
		const other = toRecord(row);
		return { type: row.rel_type, direction: row.dir, node: other, edge: edgeOf(row, selfRecord, other) };
	});
}

export async function neighbourhood(ctx: SqliteStoreContext, scope: PartialScope, id: string, hops: number, fanOutCap: number): Promise<Neighbourhood | null> {
	if (!isFullScope(scope)) return null;
	const start = ctx.rowById(scope, id);
	if (!start) return null;
	const center = toRecord(start);
	const seen = new Map<number, NeighbourhoodNode>([[start.id, { node: center, depth: 0 }]]);
	const records = new Map<number, NodeRecord>([[start.id, center]]);
	const edges = new Map<string, EdgeRecord>();
	let frontier = [start.id];
	let truncated = false;
	for (let depth = 1; depth <= hops && frontier.length > 0; depth++) {
		const next: number[] = [];
		for (const rowId of frontier) {
			const self = records.get(rowId);
			if (!self) continue;
			const rows = edgeRows(ctx, scope, rowId, "both", undefined, fanOutCap + 1);
			if (rows.length > fanOutCap) truncated = true;
			for (const row of rows.slice(0, fanOutCap)) {
				const otherRowId = row.dir === "out" ? row.to_id : row.from_id;
				let other = records.get(otherRowId);
				if (!other) {
					other = toRecord(row);
					records.set(otherRowId, other);
				}
				if (other.props.status === "archived") continue;
				const edge = edgeOf(row, self, other);
				edges.set(`${edge.fromId}|${edge.type}|${edge.toId}`, edge);
				if (!seen.has(otherRowId)) {
					seen.set(otherRowId, { node: other, depth });
					next.push(otherRowId);
				}
			}
		}
		frontier = next;
	}
	return { center, nodes: [...seen.values()].filter((n) => n.depth > 0), edges: [...edges.values()], truncated };
}

/** Neighbour lists (cached until the next write; see adjacencyCache), the missing ones read in one statement; with `along`, its walk's too. */
export async function adjacency(ctx: SqliteStoreContext, scope: PartialScope, ids: readonly string[], cap: number, along?: ChainWalk): Promise<ReadonlyMap<string, Adjacency>> {
	if (!isFullScope(scope)) return new Map();
	const out = cachedAdjacency(ctx, scope, [...ids, ...(along?.ids ?? [])], cap);
	if (along && along.hops > 0 && along.ids.length > 0) walkChains(ctx, scope, out, along, cap);
	return out;
}

/**
 * ChainWalk's steps over lists read in process (no round trip to save: each step reads its lists
 * from the cache or in one statement). `out` holds the starts' lists and takes the reached ones.
 */
function walkChains(ctx: SqliteStoreContext, scope: Scope, out: Map<string, Adjacency>, along: ChainWalk, cap: number): void {
	// The starts with a list (live, in the scope) and their labels.
	const rowOf = ctx.rowIds(scope, along.ids.filter((id) => out.has(id)));
	const rows = [...new Set(rowOf.values())];
	const labelOfRow = new Map(
		rows.length === 0 ? [] : ctx.conn.all<{ row: number; label: string }>(`SELECT id AS row, label FROM nodes WHERE id IN (${rows.map(() => "?").join(", ")})`, rows).map((r) => [r.row, r.label]),
	);
	const seen = new Set(along.ids);
	let level = [...new Set(along.ids)].flatMap((id) => {
		const label = labelOfRow.get(rowOf.get(id) ?? -1);
		return label === undefined ? [] : [{ id, label }];
	});
	for (let step = 0; step < along.hops && level.length > 0; step++) {
		const next: { id: string; label: string }[] = [];
		for (const { id, label } of level) {
			const list = out.get(id);
			const same = (list?.neighbours ?? []).filter((n) => n.label === label && n.id !== id);
			if (!list || (step > 0 && (list.degree > cap || same.length > 2))) continue;
			for (const n of same) {
				if (seen.has(n.id)) continue;
				seen.add(n.id);
				next.push({ id: n.id, label });
			}
		}
		for (const [id, list] of cachedAdjacency(ctx, scope, next.map((n) => n.id), cap)) out.set(id, list);
		level = next;
	}
}

function cachedAdjacency(ctx: SqliteStoreContext, scope: Scope, ids: readonly string[], cap: number): Map<string, Adjacency> {
	const out = new Map<string, Adjacency>();
	if (ids.length === 0) return out;
	const cacheKey = (id: string) => `${scope.orgId}\u0000${scope.userId}\u0000${cap}\u0000${id}`;
	const missing: string[] = [];
	for (const id of new Set(ids)) {
		const cached = ctx.adjacencyCache.get(cacheKey(id));
		if (cached) out.set(id, cached);
		else missing.push(id);
	}
	if (missing.length === 0) return out;
	if (ctx.adjacencyCache.size + missing.length > ADJACENCY_CACHE_SIZE) ctx.forgetAdjacency();
	for (const [id, adjacency] of readAdjacency(ctx, scope, missing, cap)) {
		ctx.adjacencyCache.set(cacheKey(id), adjacency);
		out.set(id, adjacency);
	}
	return out;
}

export function readAdjacency(ctx: SqliteStoreContext, scope: Scope, ids: readonly string[], cap: number): Map<string, { degree: number; neighbours: AdjacentNode[] }> {
	const out = new Map<string, { degree: number; neighbours: AdjacentNode[] }>();
	const limit = Math.max(1, cap) + 1;
	const marks = (n: number) => Array.from({ length: n }, () => "?").join(", ");
	const candidates = [...ctx.rowIds(scope, ids)];
	if (candidates.length === 0) return out;
	// Archived nodes are never walked: they have no neighbours here.
	const live = new Set(
		ctx.conn
			.all<{ id: number }>(`SELECT id FROM nodes WHERE id IN (${marks(candidates.length)}) AND ${LIVE}`, candidates.map(([, row]) => row))
			.map((r) => r.id),
	);
	const rowToId = new Map(candidates.filter(([, row]) => live.has(row)).map(([id, row]) => [row, id]));
	const rows = [...rowToId.keys()];
	if (rows.length === 0) return out;
	// Each source's first cap + 1 relations (both directions) and its relation count. The unary
	// "+" keeps the planner on the from_id/to_id indexes instead of scanning the scope's edges.
	const links = ctx.conn.all<{ src: number; other: number; total: number }>(
		`SELECT src, other, total FROM (
			SELECT src, other, ROW_NUMBER() OVER (PARTITION BY src ORDER BY other) AS k, COUNT(*) OVER (PARTITION BY src) AS total FROM (
				SELECT from_id AS src, to_id AS other FROM edges WHERE from_id IN (${marks(rows.length)}) AND +org_id = ? AND +user_id = ?
				UNION ALL
				SELECT to_id, from_id FROM edges WHERE to_id IN (${marks(rows.length)}) AND +org_id = ? AND +user_id = ?
			)
		) WHERE k <= ?`,
		[...rows, ...scopeParams(scope), ...rows, ...scopeParams(scope), limit],
	);
	for (const row of rows) out.set(rowToId.get(row) ?? "", { degree: 0, neighbours: [] });
	// Neighbours' names and degrees: hubs and popular nodes recur from search to search.
	const info = new Map<number, AdjacentNode>();
	const others: number[] = [];
	for (const other of new Set(links.map((l) => l.other))) {
		const cached = ctx.neighbourCache.get(`${limit}:${other}`);
		if (cached) info.set(other, cached);
		else others.push(other);
	}
	for (let start = 0; start < others.length; start += 500) {
		const batch = others.slice(start, start + 500);
		const found = ctx.conn.all<{ id: number; eid: string; label: string; key: string; degree: number }>(
			`SELECT n.id AS id, COALESCE(${ID_EXPR.replace("props", "n.props")}, 'sqlite-' || n.id) AS eid, n.label AS label, n.key_value AS key,
				(SELECT count(*) FROM (SELECT 1 FROM edges WHERE from_id = n.id LIMIT ?)) + (SELECT count(*) FROM (SELECT 1 FROM edges WHERE to_id = n.id LIMIT ?)) AS degree
			FROM nodes n WHERE n.id IN (${marks(batch.length)}) AND ${LIVE.replace("props", "n.props")}`,
			[limit, limit, ...batch],
		);
		for (const f of found) {
			const neighbour = { id: f.eid, label: f.label, key: f.key, degree: Math.min(Number(f.degree), limit) };
			info.set(f.id, neighbour);
			ctx.neighbourCache.set(`${limit}:${f.id}`, neighbour);
		}
	}
	for (const link of links) {
		const entry = out.get(rowToId.get(link.src) ?? "");
		if (!entry) continue;
		entry.degree = Math.min(Number(link.total), limit);
		const neighbour = info.get(link.other);
		if (neighbour) entry.neighbours.push(neighbour);
	}
	return out;
}
