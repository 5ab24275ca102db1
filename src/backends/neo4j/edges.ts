import { NotFoundError } from "../../engine/errors";
import type { Adjacency, AdjacentNode, ChainWalk, MergeEdgeInput } from "../../engine/backend-kit";
import { isFullScope } from "../../engine/backend-kit";
import type { Direction, EdgeRecord, NeighbourEdge, Neighbourhood, NeighbourhoodNode, NodeRecord, PartialScope, Scope } from "../../engine/types";
import type { Neo4jStoreContext } from "./store-context";
import type { CypherRunner, Row } from "./neo4j-connection";
import { decodeProps, encodeProps } from "./props-codec";
import { BY_ID, EDGE_SCOPE, LIVE, N, OTHER, SCOPE, type StoredMap, assertScope, int, nextSeq, toRecord } from "./rows";
import { NODE_LABEL, checkRelationType } from "./schema";

/** Relations (EdgeStore): merge, delete, walk, and the graph rerank's neighbour lists. */

export function edgeRecord(dir: "out" | "in", self: NodeRecord, other: NodeRecord, type: string, edge: StoredMap): EdgeRecord {
	const [from, to] = dir === "out" ? [self, other] : [other, self];
	return { fromId: from.id, type, toId: to.id, createdAt: String(edge.created_at), props: decodeProps(edge) };
}

export function edgeUnion(direction: Direction, typed: boolean): string {
	const typeFilter = typed ? " AND type(r) IN $types" : "";
	const parts: string[] = [];
	if (direction !== "in") {
		parts.push(`WITH n MATCH (n)-[r]->(other:${NODE_LABEL}) WHERE ${EDGE_SCOPE}${typeFilter} RETURN 'out' AS dir, 0 AS rank, r, other`);
	}
	if (direction !== "out") {
		parts.push(`WITH n MATCH (n)<-[r]-(other:${NODE_LABEL}) WHERE ${EDGE_SCOPE}${typeFilter} RETURN 'in' AS dir, 1 AS rank, r, other`);
	}
	return parts.join(" UNION ALL ");
}

export async function mergeEdge(ctx: Neo4jStoreContext, scope: Scope, input: MergeEdgeInput): Promise<{ readonly created: boolean }> {
	assertScope(scope);
	const type = checkRelationType(input.type);
	const seq = nextSeq();
	return ctx.write(async (q) => {
		// One statement: both ends looked up in scope, the relation merged only when both are there.
		const rows = await q.run(
			`OPTIONAL MATCH (a:${NODE_LABEL} {__ns: $ns, engrama_id: $from}) WHERE a.org_id = $org AND a.user_id = $user
			WITH a OPTIONAL MATCH (b:${NODE_LABEL} {__ns: $ns, engrama_id: $to}) WHERE b.org_id = $org AND b.user_id = $user
			CALL {
				WITH a, b
				WITH a, b WHERE a IS NOT NULL AND b IS NOT NULL
				MERGE (a)-[r:${type}]->(b)
				ON CREATE SET r.__seq = $seq, r.__ns = $ns, r.__org = $org, r.__user = $user, r.created_at = $now
				SET r += $props
				RETURN collect(r.__seq = $seq) AS made
			}
			RETURN a IS NOT NULL AS hasFrom, b IS NOT NULL AS hasTo, made[0] = true AS created`,
			ctx.params(scope, { from: input.fromId, to: input.toId, seq, now: input.now, props: encodeProps(input.props ?? {}) }),
		);
		if (rows[0]?.hasFrom !== true) {
			throw new NotFoundError(`The relation's source node ${input.fromId} does not exist in this scope.`, { id: input.fromId });
		}
		if (rows[0]?.hasTo !== true) {
			throw new NotFoundError(`The relation's target node ${input.toId} does not exist in this scope.`, { id: input.toId });
		}
		return { created: rows[0]?.created === true };
	}, "merge the relation");
}

export async function deleteEdge(ctx: Neo4jStoreContext, scope: Scope, fromId: string, type: string, toId: string): Promise<boolean> {
	assertScope(scope);
	const relType = checkRelationType(type);
	const rows = await ctx.write(
		(q) =>
			q.run(
				`MATCH (a:${NODE_LABEL} {__ns: $ns, engrama_id: $from}) WHERE a.org_id = $org AND a.user_id = $user
				MATCH (b:${NODE_LABEL} {__ns: $ns, engrama_id: $to}) WHERE b.org_id = $org AND b.user_id = $user
				MATCH (a)-[r:${relType}]->(b) WHERE ${EDGE_SCOPE}
				WITH collect(r) AS found FOREACH (r IN found | DELETE r) RETURN size(found) AS n`,
				ctx.params(scope, { from: fromId, to: toId }),
			),
		"delete the relation",
	);
	return Number(rows[0]?.n ?? 0) > 0;
}

export async function edgesOf(ctx: Neo4jStoreContext, scope: PartialScope, id: string, direction: Direction, types?: readonly string[]): Promise<readonly NeighbourEdge[]> {
	if (!isFullScope(scope)) return [];
	const typed = !!types && types.length > 0;
	const rows = await ctx.conn.read(
		(q) =>
			q.run(
				`MATCH ${BY_ID} WHERE ${SCOPE}
				CALL { ${edgeUnion(direction, typed)} }
				RETURN ${N} AS self, dir, type(r) AS type, properties(r) AS edge, ${OTHER} AS other
				ORDER BY rank, type, r.__seq`,
				ctx.params(scope, { id, types: types ?? [] }),
			),
		"read the relations",
	);
	if (rows.length === 0) return [];
	const self = toRecord(rows[0].self as StoredMap);
	return rows.map((row) => {
		const other = toRecord(row.other as StoredMap);
		const dir = row.dir === "in" ? "in" : "out";
		const type = String(row.type);
		return { type, direction: dir, node: other, edge: edgeRecord(dir, self, other, type, row.edge as StoredMap) };
	});
}

/** Up to `cap` edges of each node, in SQLite's order: outgoing first, then by type and age. */
export async function edgeBatch(ctx: Neo4jStoreContext, q: CypherRunner, scope: Scope, ids: readonly string[], cap: number): Promise<Map<string, Row[]>> {
	const rows = await q.run(
		`UNWIND range(0, size($ids) - 1) AS i
		MATCH (n:${NODE_LABEL} {__ns: $ns, engrama_id: $ids[i]})
		CALL {
			WITH n
			CALL { ${edgeUnion("both", false)} }
			RETURN dir, rank, r, other ORDER BY rank, type(r), r.__seq LIMIT $cap
		}
		RETURN n.engrama_id AS selfId, dir, type(r) AS type, properties(r) AS edge, ${OTHER} AS other
		ORDER BY i, rank, type, r.__seq`,
		ctx.params(scope, { ids, cap: int(cap) }),
	);
	const out = new Map<string, Row[]>();
	for (const row of rows) {
		const key = String(row.selfId);
		const list = out.get(key) ?? [];
		list.push(row);
		out.set(key, list);
	}
	return out;
}

export async function neighbourhood(ctx: Neo4jStoreContext, scope: PartialScope, id: string, hops: number, fanOutCap: number): Promise<Neighbourhood | null> {
	if (!isFullScope(scope)) return null;
	return ctx.conn.read(async (q) => {
		const start = await q.run(`MATCH ${BY_ID} WHERE ${SCOPE} RETURN ${N} AS node`, ctx.params(scope, { id }));
		if (!start[0]) return null;
		const center = toRecord(start[0].node as StoredMap);
		const seen = new Map<string, NeighbourhoodNode>([[center.id, { node: center, depth: 0 }]]);
		const records = new Map<string, NodeRecord>([[center.id, center]]);
		const edges = new Map<string, EdgeRecord>();
		let frontier = [center.id];
		let truncated = false;
		for (let depth = 1; depth <= hops && frontier.length > 0; depth++) {
			const batch = await edgeBatch(ctx, q, scope, frontier, fanOutCap + 1);
			const next: string[] = [];
			for (const selfId of frontier) {
				const self = records.get(selfId);
				const rows = batch.get(selfId) ?? [];
				if (!self) continue;
				if (rows.length > fanOutCap) truncated = true;
				for (const row of rows.slice(0, fanOutCap)) {
					const fresh = toRecord(row.other as StoredMap);
					const other = records.get(fresh.id) ?? fresh;
					records.set(other.id, other);
					if (other.props.status === "archived") continue;
					const edge = edgeRecord(row.dir === "in" ? "in" : "out", self, other, String(row.type), row.edge as StoredMap);
					edges.set(`${edge.fromId}|${edge.type}|${edge.toId}`, edge);
					if (!seen.has(other.id)) {
						seen.set(other.id, { node: other, depth });
						next.push(other.id);
					}
				}
			}
			frontier = next;
		}
		return { center, nodes: [...seen.values()].filter((n) => n.depth > 0), edges: [...edges.values()], truncated };
	}, "walk the neighbourhood");
}

/** The list of `n` as `adjacency` reads it: its relations in the scope, both ways, the first $limit by insertion, and their count. */
const LIST_OF_N = `CALL {
	WITH n
	CALL {
		WITH n MATCH (n)-[r]->(o) WHERE ${EDGE_SCOPE} RETURN o
		UNION ALL
		WITH n MATCH (n)<-[r]-(o) WHERE ${EDGE_SCOPE} RETURN o
	}
	WITH o ORDER BY o.__seq
	WITH collect(o) AS linked
	RETURN size(linked) AS total, linked[0..$limit] AS others
}`;

/**
 * A list's live entries as the rerank reads them, each with its relation count: the client caps
 * it at $limit (the same as capping each direction first, with two degree reads instead of four).
 * An entry is a list, not a map: the driver decodes a map's key strings with every entry.
 */
const NEIGHBOURS = `[o IN others WHERE coalesce(o.status, '') <> 'archived' | [o.engrama_id, o.__label, o.__key, COUNT { (o)-->() } + COUNT { (o)<--() }]] AS neighbours`;

/** The list of `n` as LIST_OF_N reads it, as a map, with its live neighbours of n's own label (never n itself) for the walk's steps. */
const WALK_LIST = `{node: n, total: total, others: others, same: [o IN others WHERE o.__label = n.__label AND o <> n AND coalesce(o.status, '') <> 'archived']}`;

/**
 * `adjacency` with ChainWalk's steps in the same statement: the lists are gathered as WALK_LIST
 * maps, and each step reads the lists of the nodes the step before reached.
 */
function chainWalkStatement(hops: number): string {
	const steps = Array.from({ length: hops }, (_, step) => {
		const walksOn = step === 0 ? "true" : "l.total <= $cap AND size(l.same) <= 2";
		return `WITH lists, level, seen, reduce(acc = [], l IN level | acc + CASE WHEN ${walksOn} THEN l.same ELSE [] END) AS reached
		CALL {
			WITH reached, seen
			UNWIND reached AS n
			WITH DISTINCT n, seen WHERE NOT n.engrama_id IN seen AND ${SCOPE} AND ${LIVE}
			${LIST_OF_N}
			RETURN collect(${WALK_LIST}) AS found
		}
		WITH lists + found AS lists, found AS level, seen + [o IN reached | o.engrama_id] AS seen`;
	});
	return `UNWIND $ids AS id
		MATCH (n:${NODE_LABEL} {__ns: $ns, engrama_id: id}) WHERE ${SCOPE} AND ${LIVE}
		WITH DISTINCT n
		${LIST_OF_N}
		WITH collect(${WALK_LIST}) AS lists
		WITH lists, [l IN lists WHERE l.node.engrama_id IN $along] AS level, $along AS seen
		${steps.join("\n")}
		UNWIND lists AS l
		WITH l.node.engrama_id AS id, l.total AS total, l.others AS others
		RETURN id, total, ${NEIGHBOURS}`;
}

/** The live neighbours of many nodes in one statement, for the graph rerank (same rows as SQLite); with `along`, its walk's lists in the same statement. */
export async function adjacency(ctx: Neo4jStoreContext, scope: PartialScope, ids: readonly string[], cap: number, along?: ChainWalk): Promise<ReadonlyMap<string, Adjacency>> {
	const out = new Map<string, Adjacency>();
	const walk = along && along.hops > 0 && along.ids.length > 0 ? along : undefined;
	const all = [...new Set([...ids, ...(along?.ids ?? [])])];
	if (!isFullScope(scope) || all.length === 0) return out;
	const limit = Math.max(1, cap) + 1;
	const statement = walk
		? chainWalkStatement(walk.hops)
		: `UNWIND $ids AS id
				MATCH (n:${NODE_LABEL} {__ns: $ns, engrama_id: id}) WHERE ${SCOPE} AND ${LIVE}
				${LIST_OF_N}
				RETURN id, total, ${NEIGHBOURS}`;
	const params = { ids: all, limit: int(limit), ...(walk ? { along: [...new Set(walk.ids)], cap: int(cap) } : {}) };
	const rows = await ctx.conn.read((q) => q.run(statement, ctx.params(scope, params)), "read the adjacency");
	for (const row of rows) {
		const neighbours = (row.neighbours as unknown[][]).map(
			([id, label, key, degree]): AdjacentNode => ({ id: String(id), label: String(label), key: String(key), degree: Math.min(Number(degree), limit) }),
		);
		out.set(String(row.id), { degree: Math.min(Number(row.total), limit), neighbours });
	}
	return out;
}
