import neo4j from "neo4j-driver";
import { NotFoundError, ScopeError, ValidationError } from "../../engine/errors";
import type {
	Adjacency,
	AdjacentNode,
	FulltextQuery,
	GraphCapabilities,
	GraphStore,
	HealthReport,
	ListNodesQuery,
	MergeEdgeInput,
	MergeNodeInput,
	MergeNodeResult,
	NodeFields,
	ScopeForgetReport,
	HistoryEntry,
	IntegrityCheck,
	NameCandidatesQuery,
	NodeHistoryQuery,
	ReflectDetectorId,
	ReflectParams,
	ReflectRowMap,
	RekeyNodeInput,
	ScopeFootprint,
	ValidAtQuery,
} from "../../engine/protocols";
import { isFullScope } from "../../engine/scope";
import type {
	Direction,
	EdgeRecord,
	FulltextHit,
	NeighbourEdge,
	Neighbourhood,
	NeighbourhoodNode,
	NodeRecord,
	PartialScope,
	PropValue,
	Props,
	Scope,
} from "../../engine/types";
import {
	FT_COLUMNS,
	FT_LENGTH_PROPERTY,
	ftProperty,
	bm25Clauses,
	fulltextProperties,
	idf,
	luceneMatch,
	phraseKey,
	phraseOf,
	phrasePattern,
	queryWords,
	tokens,
	type Phrase,
} from "./fulltext";
import type { CypherRunner, Neo4jConnection, Row } from "./neo4j-connection";
import { REPLACE_POSTINGS, candidateIds, createPostings, dropNamePostings, postingParams, touchesNames } from "./neo4j-name-index";
import { neo4jReflectRows } from "./neo4j-reflect-queries";
import { JSON_MARKER, decodeProps, decodeValue, encodeName, encodeProps, encodeValue } from "./props-codec";
import {
	DEFAULT_NAMESPACE,
	FRAGMENT_LABEL,
	FULLTEXT_INDEX,
	HISTORY_LABEL,
	META_LABEL,
	NAME_LABEL,
	NODE_LABEL,
	checkLabel,
	checkRelationType,
	ensureSchema,
	nodeProjection,
} from "./schema";

type StoredMap = Readonly<Record<string, unknown>>;

const N = nodeProjection("n");
const OTHER = nodeProjection("other");
const SCOPE = "n.__ns = $ns AND n.org_id = $org AND n.user_id = $user";
const LIVE = "coalesce(n.status, '') <> 'archived'";
const EDGE_SCOPE = "r.__org = $org AND r.__user = $user";
const SIDE_SCOPE = (v: string) => `${v}.__ns = $ns AND ${v}.org_id = $org AND ${v}.user_id = $user`;
const NULL_MARKER = `${JSON_MARKER}null`;
/** A prop read as SQLite's json_extract sees it: a stored JSON null counts as absent. */
const sqlValue = (expr: string) => `CASE WHEN ${expr} = $nullMarker THEN null ELSE ${expr} END`;
const BY_ID = `(n:${NODE_LABEL} {__ns: $ns, engrama_id: $id})`;
// Stored as the node's own timestamps, never duplicated in props (as SQLite's columns).
const COLUMN_PROPS = new Set(["created_at", "updated_at"]);

/** Same as SQLite: below this many documents per word, no word counts as common. */
const COMMON_TERM_FLOOR = 200;
/** Fulltext statistics are re-read after this store writes, and at least this often. */
const STATS_TTL_MS = 30_000;
/** Rows per delete statement: keeps big forgets under the server's per-transaction memory limit. */
const DELETE_BATCH = 2000;

let lastSeq = 0;
/** Insertion order across processes (microsecond clock, strictly increasing in this one). */
function nextSeq(): number {
	lastSeq = Math.max(lastSeq + 1, Date.now() * 1000);
	return lastSeq;
}

function int(value: number): ReturnType<typeof neo4j.int> {
	return neo4j.int(Math.max(0, Math.floor(value)));
}

function stripColumns(props: Props): Record<string, PropValue> {
	const out: Record<string, PropValue> = {};
	for (const [name, value] of Object.entries(props)) if (!COLUMN_PROPS.has(name)) out[name] = value;
	return out;
}

/** A stored node's props after a merge: the new values over the old, minus what is unset, in its scope. */
function updatedProps(scope: Scope, before: Props, input: MergeNodeInput): Record<string, PropValue> {
	const props: Record<string, PropValue> = { ...before, ...stripColumns(input.set) };
	for (const name of input.unset ?? []) delete props[name];
	return { ...props, org_id: scope.orgId, user_id: scope.userId };
}

/** A new node's props: what the write sets on create, its engrama_id and its scope (SQLite's arithmetic). */
function createdProps(scope: Scope, input: MergeNodeInput, id: string): Record<string, PropValue> & { engrama_id: string } {
	const props: Record<string, PropValue> = { ...stripColumns(input.setOnCreate), ...stripColumns(input.set) };
	for (const name of input.unset ?? []) delete props[name];
	return { ...props, engrama_id: id, org_id: scope.orgId, user_id: scope.userId };
}

/** The engrama_id a new node gets: the one the write brings, else a new UUID. */
function createdId(input: MergeNodeInput): string {
	const given = input.setOnCreate.engrama_id;
	return typeof given === "string" && given ? given : crypto.randomUUID();
}

function toRecord(map: StoredMap): NodeRecord {
	const props = decodeProps(map);
	return {
		id: String(map.engrama_id),
		label: String(map.__label),
		keyField: map.__key_field === "title" ? "title" : "name",
		key: String(map.__key),
		props,
		createdAt: String(map.created_at),
		updatedAt: String(map.updated_at),
	};
}

function edgeRecord(dir: "out" | "in", self: NodeRecord, other: NodeRecord, type: string, edge: StoredMap): EdgeRecord {
	const [from, to] = dir === "out" ? [self, other] : [other, self];
	return { fromId: from.id, type, toId: to.id, createdAt: String(edge.created_at), props: decodeProps(edge) };
}

function edgeUnion(direction: Direction, typed: boolean): string {
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

export interface Neo4jGraphStoreOptions {
	/** Which memory in the database (several can share one Neo4j; tests use one each). */
	readonly namespace?: string;
}

/**
 * The Neo4j graph backend: native labels and relationship types, MERGE on
 * (label, key, org_id, user_id) under a uniqueness constraint, a Lucene fulltext index that
 * tokenises like SQLite's FTS5, every query parameterised and scoped.
 */
export class Neo4jGraphStore implements GraphStore {
	readonly name = "neo4j";
	// Atomic, durable, but without savepoints: a failed nested transaction keeps its partial writes.
	readonly capabilities: GraphCapabilities = { atomicTransactions: true, durable: true, noSavepoints: true };
	readonly namespace: string;
	/** Bumped by every write of this store, so cached fulltext statistics never lag its own writes. */
	private writeVersion = 0;
	private ftStats: { rows: number; tokens: number; version: number; at: number } | undefined;
	/** Documents per query phrase (for idf), kept like ftStats. */
	private hitCache: { version: number; at: number; hits: Map<string, number> } | undefined;

	constructor(
		readonly conn: Neo4jConnection,
		options: Neo4jGraphStoreOptions = {},
	) {
		this.namespace = options.namespace ?? DEFAULT_NAMESPACE;
	}

	async init(): Promise<void> {
		await this.conn.verify();
		await ensureSchema(this.conn);
	}

	async close(): Promise<void> {
		await this.conn.close();
	}

	private params(scope: Scope, extra: Record<string, unknown> = {}): Record<string, unknown> {
		return { ns: this.namespace, org: scope.orgId, user: scope.userId, ...extra };
	}

	async health(): Promise<HealthReport> {
		try {
			const rows = await this.conn.read(
				(q) =>
					q.run(
						`MATCH (n:${NODE_LABEL} {__ns: $ns}) WITH count(n) AS nodes
						OPTIONAL MATCH (a:${NODE_LABEL} {__ns: $ns})-[r]->() RETURN nodes, count(r) AS edges`,
						{ ns: this.namespace },
					),
				"check health",
			);
			return {
				ok: true,
				backend: this.name,
				nodes: Number(rows[0]?.nodes ?? 0),
				edges: Number(rows[0]?.edges ?? 0),
				detail: this.conn.describe(),
			};
		} catch (error) {
			return { ok: false, backend: this.name, detail: error instanceof Error ? error.message : String(error) };
		}
	}

	/** Relations always have both endpoints and the fulltext index follows the nodes: storage and scope remain. */
	async checkIntegrity(): Promise<readonly IntegrityCheck[]> {
		const indexes = await this.conn.read(
			(q) => q.run("SHOW INDEXES YIELD name, state WHERE name STARTS WITH 'engrama_' AND state <> 'ONLINE' RETURN name, state ORDER BY name"),
			"check the indexes",
		);
		const scope = await this.conn.read(
			(q) =>
				q.run(
					`MATCH (a:${NODE_LABEL} {__ns: $ns})-[r]->(b:${NODE_LABEL})
					WHERE r.__org IS NOT NULL AND (r.__org <> a.org_id OR r.__user <> a.user_id) OR a.org_id <> b.org_id OR a.user_id <> b.user_id OR b.__ns <> $ns
					WITH r, a, b ORDER BY r.__seq
					RETURN count(r) AS n, collect(a.engrama_id + ' -' + type(r) + '-> ' + b.engrama_id)[0..5] AS samples`,
					{ ns: this.namespace },
				),
			"check relation scopes",
		);
		return [
			{ check: "storage", problems: indexes.length, samples: indexes.slice(0, 5).map((r) => `index ${String(r.name)} is ${String(r.state)}`) },
			{ check: "edge_scope", problems: Number(scope[0]?.n ?? 0), samples: (scope[0]?.samples as string[] | undefined) ?? [] },
		];
	}

	async transaction<T>(fn: () => Promise<T>): Promise<T> {
		try {
			return await this.conn.transaction(fn);
		} finally {
			// A rolled-back transaction may have been seen by cached statistics.
			this.writeVersion++;
		}
	}

	private async write<T>(work: (q: CypherRunner) => Promise<T>, what: string): Promise<T> {
		this.writeVersion++;
		try {
			return await this.conn.write(work, what);
		} finally {
			this.writeVersion++;
		}
	}

	/**
	 * Second half of every node write, after the node is locked and its props read: stores the
	 * final props (removing what is gone), the fulltext columns and, when asked, the name postings.
	 */
	private async writeNode(
		q: CypherRunner,
		node: { eid: string; key: string; before: Props; final: Props; now: string; reindex: boolean; dropPostings: boolean },
	): Promise<NodeRecord> {
		const gone = Object.keys(node.before).filter((name) => !(name in node.final));
		const rows = await q.run(
			`MATCH (n) WHERE elementId(n) = $eid
			SET n += $props, n += $ft, n.updated_at = $now
			WITH n
			${REPLACE_POSTINGS}
			RETURN ${N} AS after`,
			{
				ns: this.namespace,
				eid: node.eid,
				props: encodeProps(node.final, gone),
				ft: fulltextProperties(node.final),
				now: node.now,
				...postingParams(node.reindex, node.dropPostings, node.key, node.final),
			},
		);
		return toRecord(rows[0].after as StoredMap);
	}

	async mergeNode(scope: Scope, input: MergeNodeInput): Promise<MergeNodeResult> {
		assertScope(scope);
		checkLabel(input.label);
		return this.write((q) => this.mergeNodeIn(q, scope, input), "merge the node");
	}

	/**
	 * `mergeNode` for a batch in one transaction. New nodes (the batch's identities all distinct and
	 * none stored yet: a first sync) are created with one statement per label; otherwise each input
	 * goes through mergeNode's steps in order. On an error nothing is written.
	 */
	async mergeNodes(scope: Scope, inputs: readonly MergeNodeInput[]): Promise<readonly MergeNodeResult[]> {
		assertScope(scope);
		if (inputs.length === 0) return [];
		for (const input of inputs) checkLabel(input.label);
		return this.write(async (q) => {
			const identities = inputs.map((i) => ({ label: i.label, key: i.key }));
			let allNew = new Set(identities.map((i) => `${i.label}\u0000${i.key}`)).size === inputs.length;
			if (allNew) {
				const found = await q.run(
					`UNWIND $ids AS k MATCH (n:${NODE_LABEL} {__ns: $ns, __label: k.label, __key: k.key, org_id: $org, user_id: $user}) RETURN count(n) AS n`,
					this.params(scope, { ids: identities }),
				);
				allNew = Number(found[0]?.n ?? 0) === 0;
			}
			const results: MergeNodeResult[] = [];
			if (!allNew) {
				for (const input of inputs) results.push(await this.mergeNodeIn(q, scope, input));
				return results;
			}
			const byLabel = new Map<string, number[]>();
			inputs.forEach((input, i) => byLabel.set(input.label, [...(byLabel.get(input.label) ?? []), i]));
			for (const [label, indexes] of byLabel) {
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
						...postingParams(true, false, input.key, final),
					};
				});
				// A label cannot be a parameter: one statement per label of the batch.
				const created = await q.run(
					`UNWIND $rows AS r
					CREATE (n:${NODE_LABEL}:${label} {__ns: $ns, __label: $label, __key: r.key, org_id: $org, user_id: $user})
					SET n.__seq = r.seq, n.__key_field = r.keyField, n.created_at = r.now, n.engrama_id = r.id, n += r.props, n += r.ft, n.updated_at = r.now
					WITH n, r
					${createPostings("r.names", "r.fragments")}
					RETURN r.i AS i, ${N} AS after`,
					this.params(scope, { label, rows }),
				);
				for (const row of created) results[Number(row.i)] = { node: toRecord(row.after as StoredMap), created: true };
			}
			return results;
		}, "merge the nodes");
	}

	private async mergeNodeIn(q: CypherRunner, scope: Scope, input: MergeNodeInput): Promise<MergeNodeResult> {
		const label = checkLabel(input.label);
		const id = createdId(input);
		const seq = nextSeq();
		// MERGE under the identity constraint, and a write on a match too: either way this
		// transaction now holds the node's lock, so the read-compute-write below cannot interleave.
		const rows = await q.run(
			`MERGE (n:${NODE_LABEL} {__ns: $ns, __label: $label, __key: $key, org_id: $org, user_id: $user})
			ON CREATE SET n:${label}, n.__seq = $seq, n.__key_field = $keyField, n.created_at = $now, n.engrama_id = $id
			ON MATCH SET n.__seq = n.__seq
			RETURN ${N} AS before, n.__seq = $seq AS created, elementId(n) AS eid`,
			this.params(scope, { label, key: input.key, keyField: input.keyField, seq, now: input.now, id }),
		);
		const row = rows[0];
		const created = row.created === true;
		const before = decodeProps(row.before as StoredMap);
		// The same arithmetic as SQLite's mergeNode.
		const final = created ? createdProps(scope, input, id) : updatedProps(scope, before, input);
		const node = await this.writeNode(q, {
			eid: String(row.eid),
			key: input.key,
			before,
			final,
			now: input.now,
			reindex: created || touchesNames(input.set, input.unset),
			dropPostings: !created,
		});
		return created ? { node, created } : { node, created, previous: before };
	}

	private async one(scope: PartialScope, match: string, params: Record<string, unknown>, what: string): Promise<NodeRecord | null> {
		if (!isFullScope(scope)) return null;
		const rows = await this.conn.read((q) => q.run(`${match} RETURN ${N} AS node LIMIT 1`, this.params(scope, params)), what);
		return rows[0] ? toRecord(rows[0].node as StoredMap) : null;
	}

	getNode(scope: PartialScope, label: string, key: string): Promise<NodeRecord | null> {
		return this.one(
			scope,
			`MATCH (n:${NODE_LABEL} {__ns: $ns, __label: $label, __key: $key, org_id: $org, user_id: $user})`,
			{ label, key },
			"read the node",
		);
	}

	getNodeById(scope: PartialScope, id: string): Promise<NodeRecord | null> {
		return this.one(scope, `MATCH ${BY_ID} WHERE ${SCOPE}`, { id }, "read the node");
	}

	async idsOutsideScope(scope: Scope, ids: readonly string[]): Promise<ReadonlySet<string>> {
		assertScope(scope);
		if (ids.length === 0) return new Set();
		const rows = await this.conn.read(
			(q) =>
				q.run(
					`UNWIND $ids AS id MATCH (n:${NODE_LABEL} {__ns: $ns, engrama_id: id}) WHERE NOT (n.org_id = $org AND n.user_id = $user) RETURN n.engrama_id AS id`,
					this.params(scope, { ids: [...ids] }),
				),
			"look up engrama ids",
		);
		return new Set(rows.map((row) => String(row.id)));
	}

	async findByKey(scope: PartialScope, key: string): Promise<readonly NodeRecord[]> {
		if (!isFullScope(scope)) return [];
		const rows = await this.conn.read(
			(q) => q.run(`MATCH (n:${NODE_LABEL}) WHERE ${SCOPE} AND n.__key = $key RETURN ${N} AS node ORDER BY n.__seq`, this.params(scope, { key })),
			"find nodes by key",
		);
		return rows.map((row) => toRecord(row.node as StoredMap));
	}

	async updateNode(scope: Scope, id: string, set: Props, unset: readonly string[], now: string): Promise<NodeRecord | null> {
		assertScope(scope);
		return this.write(async (q) => {
			const rows = await q.run(
				`MATCH ${BY_ID} WHERE ${SCOPE} SET n.__seq = n.__seq RETURN ${N} AS before, elementId(n) AS eid`,
				this.params(scope, { id }),
			);
			if (!rows[0]) return null;
			const current = toRecord(rows[0].before as StoredMap);
			const final: Record<string, PropValue> = { ...current.props, ...stripColumns(set) };
			for (const name of unset) delete final[name];
			return this.writeNode(q, {
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

	async deleteNode(scope: Scope, id: string): Promise<boolean> {
		assertScope(scope);
		return this.write(async (q) => {
			const rows = await q.run(
				`MATCH ${BY_ID} WHERE ${SCOPE} WITH collect(n) AS found FOREACH (n IN found | DETACH DELETE n) RETURN size(found) AS n`,
				this.params(scope, { id }),
			);
			if (Number(rows[0]?.n ?? 0) === 0) return false;
			await dropNamePostings(q, this.namespace, [id]);
			await q.run(`MATCH (h:${HISTORY_LABEL} {__ns: $ns, org_id: $org, user_id: $user, node: $id}) DELETE h`, this.params(scope, { id }));
			return true;
		}, "delete the node");
	}

	async mergeEdge(scope: Scope, input: MergeEdgeInput): Promise<{ readonly created: boolean }> {
		assertScope(scope);
		const type = checkRelationType(input.type);
		const seq = nextSeq();
		return this.write(async (q) => {
			const params = this.params(scope, { from: input.fromId, to: input.toId });
			const ends = await q.run(
				`OPTIONAL MATCH (a:${NODE_LABEL} {__ns: $ns, engrama_id: $from}) WHERE a.org_id = $org AND a.user_id = $user
				WITH a OPTIONAL MATCH (b:${NODE_LABEL} {__ns: $ns, engrama_id: $to}) WHERE b.org_id = $org AND b.user_id = $user
				RETURN a IS NOT NULL AS hasFrom, b IS NOT NULL AS hasTo`,
				params,
			);
			if (ends[0]?.hasFrom !== true) {
				throw new NotFoundError(`The relation's source node ${input.fromId} does not exist in this scope.`, { id: input.fromId });
			}
			if (ends[0]?.hasTo !== true) {
				throw new NotFoundError(`The relation's target node ${input.toId} does not exist in this scope.`, { id: input.toId });
			}
			const rows = await q.run(
				`MATCH (a:${NODE_LABEL} {__ns: $ns, engrama_id: $from}), (b:${NODE_LABEL} {__ns: $ns, engrama_id: $to})
				MERGE (a)-[r:${type}]->(b)
				ON CREATE SET r.__seq = $seq, r.__ns = $ns, r.__org = $org, r.__user = $user, r.created_at = $now
				SET r += $props
				RETURN r.__seq = $seq AS created`,
				{ ...params, seq, now: input.now, props: encodeProps(input.props ?? {}) },
			);
			return { created: rows[0]?.created === true };
		}, "merge the relation");
	}

	async deleteEdge(scope: Scope, fromId: string, type: string, toId: string): Promise<boolean> {
		assertScope(scope);
		const relType = checkRelationType(type);
		const rows = await this.write(
			(q) =>
				q.run(
					`MATCH (a:${NODE_LABEL} {__ns: $ns, engrama_id: $from}) WHERE a.org_id = $org AND a.user_id = $user
					MATCH (b:${NODE_LABEL} {__ns: $ns, engrama_id: $to}) WHERE b.org_id = $org AND b.user_id = $user
					MATCH (a)-[r:${relType}]->(b) WHERE ${EDGE_SCOPE}
					WITH collect(r) AS found FOREACH (r IN found | DELETE r) RETURN size(found) AS n`,
					this.params(scope, { from: fromId, to: toId }),
				),
			"delete the relation",
		);
		return Number(rows[0]?.n ?? 0) > 0;
	}

	async edgesOf(scope: PartialScope, id: string, direction: Direction, types?: readonly string[]): Promise<readonly NeighbourEdge[]> {
		if (!isFullScope(scope)) return [];
		const typed = !!types && types.length > 0;
		const rows = await this.conn.read(
			(q) =>
				q.run(
					`MATCH ${BY_ID} WHERE ${SCOPE}
					CALL { ${edgeUnion(direction, typed)} }
					RETURN ${N} AS self, dir, type(r) AS type, properties(r) AS edge, ${OTHER} AS other
					ORDER BY rank, type, r.__seq`,
					this.params(scope, { id, types: types ?? [] }),
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
	private async edgeBatch(q: CypherRunner, scope: Scope, ids: readonly string[], cap: number): Promise<Map<string, Row[]>> {
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
			this.params(scope, { ids, cap: int(cap) }),
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

	async neighbourhood(scope: PartialScope, id: string, hops: number, fanOutCap: number): Promise<Neighbourhood | null> {
		if (!isFullScope(scope)) return null;
		return this.conn.read(async (q) => {
			const start = await q.run(`MATCH ${BY_ID} WHERE ${SCOPE} RETURN ${N} AS node`, this.params(scope, { id }));
			if (!start[0]) return null;
			const center = toRecord(start[0].node as StoredMap);
			const seen = new Map<string, NeighbourhoodNode>([[center.id, { node: center, depth: 0 }]]);
			const records = new Map<string, NodeRecord>([[center.id, center]]);
			const edges = new Map<string, EdgeRecord>();
			let frontier = [center.id];
			let truncated = false;
			for (let depth = 1; depth <= hops && frontier.length > 0; depth++) {
				const batch = await this.edgeBatch(q, scope, frontier, fanOutCap + 1);
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

	/**
	 * FTS5-identical ranking: Lucene finds the candidates, Cypher scores them with bm25 over the
	 * same tokens and statistics as SQLite's nodes_fts, including its common-word planning
	 * (above 4,000 nodes a word in more than 5% of them only ranks documents a rarer word matched).
	 */
	async fulltext(scope: PartialScope, query: FulltextQuery): Promise<readonly FulltextHit[]> {
		if (!isFullScope(scope) || query.limit <= 0) return [];
		const words = queryWords(query.text).filter((word) => tokens(word).length > 0);
		if (words.length === 0) return [];
		const labels = query.labels ?? [];
		return this.conn.read(async (q) => {
			const stats = await this.fulltextStats(q);
			if (stats.rows === 0) return [];
			const phrases = words.map((word) => phraseOf(word, query.prefix === true));
			const hits = await this.phraseHits(q, phrases);
			const hitsOf = (phrase: Phrase) => hits.get(phraseKey(phrase)) ?? 0;
			let match = phrases;
			let scored = phrases;
			const threshold = Math.max(COMMON_TERM_FLOOR, stats.rows * 0.05);
			if (threshold > COMMON_TERM_FLOOR) {
				// SQLite looks the lower-cased word up in fts5vocab: a word that is not exactly one token counts as rare.
				const vocab = (i: number) => (phrases[i].tokens.length === 1 && phrases[i].tokens[0] === words[i] ? hitsOf({ ...phrases[i], prefix: false }) : 0);
				const rare = phrases.filter((_, i) => vocab(i) <= threshold);
				const common = phrases.filter((_, i) => vocab(i) > threshold);
				// FTS5 scores every phrase of `rare OR (common) AND (rare)`: the rare ones count twice.
				if (rare.length > 0 && common.length > 0) {
					match = rare;
					scored = [...rare, ...common, ...rare];
				}
			}
			const lucene = luceneMatch(match);
			if (!lucene) return [];
			const rows = await q.run(
				`CALL db.index.fulltext.queryNodes($index, $query) YIELD node AS n
				WITH n WHERE ${SCOPE} AND ${LIVE}${labels.length > 0 ? " AND n.__label IN $labels" : ""}
				${bm25Clauses()}
				WHERE any(i IN range(0, $matchCount - 1) WHERE ftFreq[i] > 0)
				RETURN ${N} AS node, score ORDER BY score DESC, n.__seq LIMIT $limit`,
				this.params(scope, {
					index: FULLTEXT_INDEX,
					query: lucene,
					labels,
					limit: int(query.limit),
					ftPatterns: scored.map((phrase) => phrasePattern(phrase)),
					matchCount: int(match.length),
					ftIdf: scored.map((phrase) => idf(stats.rows, hitsOf(phrase))),
					ftAvgdl: stats.tokens > 0 ? stats.tokens / stats.rows : 1,
				}),
			);
			return rows.map((row) => ({ node: toRecord(row.node as StoredMap), score: Number(row.score) }));
		}, "search the fulltext index");
	}

	/** Rows and tokens of this memory's fulltext "table" (every node, any scope or status), as FTS5 keeps them. */
	private async fulltextStats(q: CypherRunner): Promise<{ rows: number; tokens: number }> {
		const cached = this.ftStats;
		if (cached && cached.version === this.writeVersion && Date.now() - cached.at < STATS_TTL_MS) return cached;
		const rows = await q.run(
			`MATCH (n:${NODE_LABEL}) WHERE n.__ns = $ns RETURN count(n) AS rows, sum(coalesce(n.${FT_LENGTH_PROPERTY}, 0)) AS tokens`,
			{ ns: this.namespace },
		);
		const stats = { rows: Number(rows[0]?.rows ?? 0), tokens: Number(rows[0]?.tokens ?? 0), version: this.writeVersion, at: Date.now() };
		if (!this.conn.inTransaction()) this.ftStats = stats;
		return stats;
	}

	/** Nodes of this memory containing each phrase (FTS5's per-phrase hit count for idf). */
	private async phraseHits(q: CypherRunner, phrases: readonly Phrase[]): Promise<Map<string, number>> {
		// The vocabulary lookup of common-word planning needs the exact (not prefix) counts too.
		const all = [...phrases, ...phrases.filter((p) => p.prefix).map((p) => ({ ...p, prefix: false }))];
		const fresh = this.hitCache?.version === this.writeVersion && Date.now() - this.hitCache.at < STATS_TTL_MS;
		if (!fresh || this.conn.inTransaction()) this.hitCache = { version: this.writeVersion, at: Date.now(), hits: new Map() };
		const cache = this.hitCache as NonNullable<typeof this.hitCache>;
		const missing = [...new Map(all.map((p) => [phraseKey(p), p])).entries()].filter(([key]) => !cache.hits.has(key));
		if (missing.length > 0) {
			// Lucene matches a phrase exactly, except a prefix phrase of several tokens (a superset): only
			// those are checked against the stored columns.
			const rows = await q.run(
				`UNWIND $items AS item
				CALL {
					WITH item CALL db.index.fulltext.queryNodes($index, item.query) YIELD node AS n
					WITH n WHERE n.__ns = $ns
						AND (NOT item.verify OR ${FT_COLUMNS.map((c) => `coalesce(n.${ftProperty(c)}, '') CONTAINS item.pattern`).join(" OR ")})
					RETURN count(n) AS hits
				}
				RETURN item.key AS key, hits`,
				{
					ns: this.namespace,
					index: FULLTEXT_INDEX,
					items: missing.map(([key, phrase]) => ({
						key,
						query: luceneMatch([phrase]),
						pattern: phrasePattern(phrase),
						verify: phrase.prefix && phrase.tokens.length > 1,
					})),
				},
			);
			for (const row of rows) cache.hits.set(String(row.key), Number(row.hits));
		}
		return cache.hits;
	}

	async listNodes(scope: PartialScope, query: ListNodesQuery): Promise<readonly NodeRecord[]> {
		if (!isFullScope(scope)) return [];
		const { where, params } = listFilter(query);
		const limit = query.limit !== undefined && query.limit >= 0 ? " LIMIT $limit" : "";
		const rows = await this.conn.read(
			(q) => q.run(`MATCH (n:${NODE_LABEL}) WHERE ${where} RETURN ${N} AS node ORDER BY n.__seq SKIP $offset${limit}`, this.params(scope, params)),
			"list nodes",
		);
		return rows.map((row) => toRecord(row.node as StoredMap));
	}

	async labelCounts(scope: PartialScope): Promise<Readonly<Record<string, number>>> {
		if (!isFullScope(scope)) return {};
		const rows = await this.conn.read(
			(q) =>
				q.run(
					`MATCH (n:${NODE_LABEL}) WHERE ${SCOPE} AND ${LIVE} AND n.__label <> 'Insight'
					RETURN n.__label AS label, count(*) AS n ORDER BY label`,
					this.params(scope),
				),
			"count labels",
		);
		return Object.fromEntries(rows.map((row) => [String(row.label), Number(row.n)]));
	}

	async counts(scope: PartialScope): Promise<{ readonly nodes: number; readonly edges: number }> {
		if (!isFullScope(scope)) return { nodes: 0, edges: 0 };
		const rows = await this.conn.read(
			(q) =>
				q.run(
					`MATCH (n:${NODE_LABEL}) WHERE ${SCOPE} WITH count(n) AS nodes
					OPTIONAL MATCH (n:${NODE_LABEL})-[r]->() WHERE ${SCOPE} AND ${EDGE_SCOPE}
					RETURN nodes, count(r) AS edges`,
					this.params(scope),
				),
			"count the memory",
		);
		return { nodes: Number(rows[0]?.nodes ?? 0), edges: Number(rows[0]?.edges ?? 0) };
	}

	/**
	 * Removes the scope in batches (a transaction's memory is bounded on the server): inside an
	 * open transaction every batch joins it (atomic); otherwise each batch commits on its own and
	 * an interrupted forget is finished by running it again.
	 */
	async forgetScope(scope: Scope): Promise<ScopeForgetReport> {
		assertScope(scope);
		const params = this.params(scope);
		// Every relation touching the scope's nodes, then the scope-stamped ones whose ends moved elsewhere.
		const edges =
			(await this.deleteInBatches(`MATCH (n:${NODE_LABEL}) WHERE ${SCOPE} MATCH (n)-[r]-() WITH DISTINCT r AS x`, params, "forget the scope's relations")) +
			(await this.deleteInBatches(`MATCH ()-[r]->() WHERE r.__ns = $ns AND ${EDGE_SCOPE} WITH r AS x`, params, "forget the scope's relations"));
		const nodes = await this.deleteInBatches(`MATCH (n:${NODE_LABEL}) WHERE ${SCOPE} WITH n AS x`, params, "forget the scope's nodes", true);
		const nameIndex =
			(await this.deleteInBatches(`MATCH (p:${NAME_LABEL}) WHERE ${SIDE_SCOPE("p")} WITH p AS x`, params, "forget the scope's names")) +
			(await this.deleteInBatches(`MATCH (p:${FRAGMENT_LABEL}) WHERE ${SIDE_SCOPE("p")} WITH p AS x`, params, "forget the scope's names"));
		const history = await this.deleteInBatches(`MATCH (h:${HISTORY_LABEL}) WHERE ${SIDE_SCOPE("h")} WITH h AS x`, params, "forget the scope's history");
		// Every node is one document of the fulltext index, removed with it.
		return { nodes, edges, fulltext: nodes, history, nameIndex };
	}

	/** Deletes what `match` binds to x, DELETE_BATCH at a time; returns how many. */
	private async deleteInBatches(match: string, params: Record<string, unknown>, what: string, detach = false): Promise<number> {
		let total = 0;
		for (;;) {
			const rows = await this.write(
				(q) => q.run(`${match} LIMIT $batch ${detach ? "DETACH " : ""}DELETE x RETURN count(*) AS n`, { ...params, batch: int(DELETE_BATCH) }),
				what,
			);
			const n = Number(rows[0]?.n ?? 0);
			total += n;
			if (n < DELETE_BATCH) return total;
		}
	}

	async listScopes(): Promise<readonly Scope[]> {
		const rows = await this.conn.read(
			(q) =>
				q.run(
					`MATCH (n:${NODE_LABEL} {__ns: $ns}) WITH DISTINCT n.org_id AS org, n.user_id AS usr WHERE org <> '' AND usr <> '' RETURN org, usr ORDER BY org, usr`,
					{ ns: this.namespace },
				),
			"list scopes",
		);
		return rows.map((r) => ({ orgId: String(r.org), userId: String(r.usr) }));
	}

	async listMeta(): Promise<readonly (readonly [string, string])[]> {
		const rows = await this.conn.read(
			(q) => q.run(`MATCH (m:${META_LABEL} {__ns: $ns}) RETURN m.key AS key, m.value AS value ORDER BY key`, { ns: this.namespace }),
			"list settings",
		);
		return rows.map((r) => [String(r.key), String(r.value)] as const);
	}

	async getMeta(key: string): Promise<string | null> {
		const rows = await this.conn.read(
			(q) => q.run(`MATCH (m:${META_LABEL} {__ns: $ns, key: $key}) RETURN m.value AS value`, { ns: this.namespace, key }),
			"read a setting",
		);
		return typeof rows[0]?.value === "string" ? rows[0].value : null;
	}

	async deleteMeta(key: string): Promise<void> {
		await this.write((q) => q.run(`MATCH (m:${META_LABEL} {__ns: $ns, key: $key}) DELETE m`, { ns: this.namespace, key }), "remove a setting");
	}

	async setMeta(key: string, value: string): Promise<void> {
		await this.write(
			(q) => q.run(`MERGE (m:${META_LABEL} {__ns: $ns, key: $key}) SET m.value = $value`, { ns: this.namespace, key, value }),
			"write a setting",
		);
	}

	// --- Entity resolver name index, history and temporal reads (issue 5) ---

	async nameCandidates(scope: PartialScope, query: NameCandidatesQuery): Promise<readonly NodeRecord[]> {
		if (!isFullScope(scope) || !query.normalised || query.limit <= 0) return [];
		return this.conn.read(async (q) => {
			const ids = await candidateIds(q, this.namespace, scope, query);
			if (ids.length === 0) return [];
			const rows = await q.run(
				`MATCH (n:${NODE_LABEL}) WHERE n.__ns = $ns AND n.engrama_id IN $ids AND n.org_id = $org AND n.user_id = $user RETURN ${N} AS node`,
				this.params(scope, { ids }),
			);
			const byId = new Map(rows.map((row) => [String((row.node as StoredMap).engrama_id), toRecord(row.node as StoredMap)]));
			return ids.flatMap((id) => {
				const node = byId.get(id);
				return node ? [node] : [];
			});
		}, "find name candidates");
	}

	async recordHistory(scope: Scope, entries: readonly HistoryEntry[]): Promise<void> {
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
		await this.write(
			(q) =>
				q.run(
					`UNWIND $rows AS e CREATE (h:${HISTORY_LABEL} {__ns: $ns, org_id: $org, user_id: $user})
					SET h.node = e.node, h.at = e.at, h.prop = e.prop, h.before = e.before, h.after = e.after, h.source = e.source, h.seq = e.seq`,
					this.params(scope, { rows }),
				),
			"record history",
		);
	}

	async nodeHistory(scope: PartialScope, nodeId: string, query: NodeHistoryQuery): Promise<readonly HistoryEntry[]> {
		if (!isFullScope(scope) || query.limit <= 0) return [];
		const rows = await this.conn.read(
			(q) =>
				q.run(
					`MATCH (h:${HISTORY_LABEL} {__ns: $ns, org_id: $org, user_id: $user, node: $id}) WHERE h.at > $since
					RETURN h.at AS at, h.prop AS prop, h.before AS before, h.after AS after, h.source AS source
					ORDER BY h.seq DESC LIMIT $limit`,
					this.params(scope, { id: nodeId, since: query.since ?? "", limit: int(query.limit) }),
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

	async nodesValidAt(scope: PartialScope, query: ValidAtQuery): Promise<readonly NodeRecord[]> {
		if (!isFullScope(scope) || query.limit <= 0) return [];
		const from = `coalesce(${sqlValue("n.valid_from")}, n.created_at)`;
		const to = sqlValue("n.valid_to");
		const archivedAt = `coalesce(${sqlValue("n.archived_at")}, n.updated_at)`;
		const rows = await this.conn.read(
			(q) =>
				q.run(
					`MATCH (n:${NODE_LABEL}) WHERE ${SCOPE}${query.label ? " AND n.__label = $label" : ""}
					AND ${from} <= $at AND (${to} IS NULL OR ${to} >= $at)
					AND NOT (coalesce(n.status, '') = 'archived' AND ${archivedAt} <= $at)
					RETURN ${N} AS node ORDER BY n.__label, n.__key LIMIT $limit`,
					this.params(scope, { label: query.label ?? null, at: query.at, limit: int(query.limit), nullMarker: NULL_MARKER }),
				),
			"read nodes valid at a date",
		);
		return rows.map((row) => toRecord(row.node as StoredMap));
	}

	async scopeFootprint(scope: PartialScope): Promise<ScopeFootprint> {
		if (!isFullScope(scope)) return { nodes: 0, edges: 0, fulltext: 0, history: 0, nameIndex: 0 };
		const rows = await this.conn.read(
			(q) =>
				q.run(
					`CALL { MATCH (n:${NODE_LABEL}) WHERE ${SCOPE} RETURN count(n) AS nodes }
					CALL { MATCH (n:${NODE_LABEL}) WHERE ${SCOPE} OPTIONAL MATCH (n)-[r]-() RETURN count(DISTINCT r) AS touching }
					CALL { MATCH ()-[r]->() WHERE r.__ns = $ns AND ${EDGE_SCOPE}
						AND NOT (startNode(r).org_id = $org AND startNode(r).user_id = $user)
						AND NOT (endNode(r).org_id = $org AND endNode(r).user_id = $user) RETURN count(r) AS stray }
					CALL { MATCH (p:${NAME_LABEL}) WHERE ${SIDE_SCOPE("p")} RETURN count(p) AS names }
					CALL { MATCH (p:${FRAGMENT_LABEL}) WHERE ${SIDE_SCOPE("p")} RETURN count(p) AS fragments }
					CALL { MATCH (h:${HISTORY_LABEL}) WHERE ${SIDE_SCOPE("h")} RETURN count(h) AS history }
					RETURN nodes, touching + stray AS edges, names + fragments AS nameIndex, history`,
					this.params(scope),
				),
			"measure the scope",
		);
		const row = rows[0] ?? {};
		return {
			nodes: Number(row.nodes ?? 0),
			edges: Number(row.edges ?? 0),
			fulltext: Number(row.nodes ?? 0),
			history: Number(row.history ?? 0),
			nameIndex: Number(row.nameIndex ?? 0),
		};
	}

	// --- Vault sync (issue 3) ---

	async rekeyNode(scope: Scope, id: string, input: RekeyNodeInput): Promise<NodeRecord | null> {
		assertScope(scope);
		const label = checkLabel(input.label);
		return this.write(async (q) => {
			const found = await q.run(
				`MATCH ${BY_ID} WHERE ${SCOPE} SET n.__seq = n.__seq RETURN ${N} AS node, elementId(n) AS eid`,
				this.params(scope, { id }),
			);
			if (!found[0]) return null;
			const current = found[0].node as StoredMap;
			const eid = String(found[0].eid);
			const holder = await q.run(
				`MATCH (n:${NODE_LABEL} {__ns: $ns, __label: $label, __key: $key, org_id: $org, user_id: $user}) WHERE elementId(n) <> $eid RETURN count(n) AS n`,
				this.params(scope, { label, key: input.key, eid }),
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
					ns: this.namespace,
					newId: input.newId,
				});
				if (Number(taken[0]?.n ?? 0) > 0) throw new ValidationError(`engrama_id ${input.newId} already belongs to another node.`, { id: input.newId });
				newId = input.newId;
			}
			const oldLabel = checkLabel(String(current.__label));
			const oldKeyField = current.__key_field === "title" ? "title" : "name";
			// Postings hang off the engrama_id: drop them under the old one before it changes.
			await dropNamePostings(q, this.namespace, [String(current.engrama_id)]);
			await q.run(
				`MATCH (n) WHERE elementId(n) = $eid
				REMOVE n:${oldLabel} SET n:${label}
				SET n.__label = $label, n.__key = $key, n.__key_field = $keyField, n.engrama_id = $newId`,
				{ eid, label, key: input.key, keyField: input.keyField, newId },
			);
			const before = decodeProps(current);
			const final: Record<string, PropValue> = { ...before };
			if (input.keyField !== oldKeyField) delete final[oldKeyField];
			final[input.keyField] = input.key;
			if (newId !== current.engrama_id) final.engrama_id = newId;
			return this.writeNode(q, { eid, key: input.key, before, final, now: input.now, reindex: true, dropPostings: false });
		}, "re-key the node");
	}

	// --- Bulk reads and writes for sync and search (optional in the protocol) ---

	/** mergeEdge for many edges in one transaction: endpoints checked once, one statement per relation type. */
	async mergeEdges(scope: Scope, inputs: readonly MergeEdgeInput[]): Promise<{ readonly created: number }> {
		assertScope(scope);
		if (inputs.length === 0) return { created: 0 };
		const byType = new Map<string, Record<string, unknown>[]>();
		for (const input of inputs) {
			const rows = byType.get(checkRelationType(input.type)) ?? [];
			rows.push({ from: input.fromId, to: input.toId, seq: nextSeq(), now: input.now, props: encodeProps(input.props ?? {}) });
			byType.set(input.type, rows);
		}
		return this.write(async (q) => {
			const ids = [...new Set(inputs.flatMap((i) => [i.fromId, i.toId]))];
			const found = await q.run(
				`UNWIND $ids AS id MATCH (n:${NODE_LABEL} {__ns: $ns, engrama_id: id}) WHERE ${SCOPE} RETURN collect(id) AS found`,
				this.params(scope, { ids }),
			);
			const present = new Set((found[0]?.found as string[] | undefined) ?? []);
			for (const input of inputs) {
				for (const [id, role] of [[input.fromId, "source"], [input.toId, "target"]] as const) {
					if (!present.has(id)) throw new NotFoundError(`The relation's ${role} node ${id} does not exist in this scope.`, { id });
				}
			}
			let created = 0;
			for (const [type, rows] of byType) {
				const result = await q.run(
					`UNWIND $rows AS row
					MATCH (a:${NODE_LABEL} {__ns: $ns, engrama_id: row.from}), (b:${NODE_LABEL} {__ns: $ns, engrama_id: row.to})
					MERGE (a)-[r:${type}]->(b)
					ON CREATE SET r.__seq = row.seq, r.__ns = $ns, r.__org = $org, r.__user = $user, r.created_at = row.now
					SET r += row.props
					RETURN count(CASE WHEN r.__seq = row.seq THEN 1 END) AS created`,
					this.params(scope, { rows }),
				);
				created += Number(result[0]?.created ?? 0);
			}
			return { created };
		}, "merge the relations");
	}

	/** listNodes reading only some props (absent or null ones are undefined). */
	async listNodeFields(scope: PartialScope, query: ListNodesQuery & { readonly fields: readonly string[] }): Promise<readonly NodeFields[]> {
		if (!isFullScope(scope)) return [];
		const fields = query.fields.filter((f) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(f));
		const { where, params } = listFilter(query);
		const rows = await this.conn.read(
			(q) =>
				q.run(
					`MATCH (n:${NODE_LABEL}) WHERE ${where}
					RETURN n.engrama_id AS id, n.__label AS label, n.__key AS key, [f IN $fields | n[f]] AS values
					ORDER BY n.__seq SKIP $offset${query.limit !== undefined && query.limit >= 0 ? " LIMIT $limit" : ""}`,
					this.params(scope, { ...params, fields: fields.map(encodeName) }),
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

	/** The live neighbours of many nodes in one statement, for the graph rerank (same rows as SQLite). */
	async adjacency(scope: PartialScope, ids: readonly string[], cap: number): Promise<ReadonlyMap<string, Adjacency>> {
		const out = new Map<string, Adjacency>();
		if (!isFullScope(scope) || ids.length === 0) return out;
		const limit = Math.max(1, cap) + 1;
		const rows = await this.conn.read(
			(q) =>
				q.run(
					`UNWIND $ids AS id
					MATCH (n:${NODE_LABEL} {__ns: $ns, engrama_id: id}) WHERE ${SCOPE} AND ${LIVE}
					CALL {
						WITH n
						CALL {
							WITH n MATCH (n)-[r]->(o) WHERE ${EDGE_SCOPE} RETURN o
							UNION ALL
							WITH n MATCH (n)<-[r]-(o) WHERE ${EDGE_SCOPE} RETURN o
						}
						WITH o ORDER BY o.__seq
						WITH collect(o) AS linked
						RETURN size(linked) AS total, linked[0..$limit] AS others
					}
					RETURN id, total, [o IN others WHERE coalesce(o.status, '') <> 'archived' | {
						id: o.engrama_id, label: o.__label, key: o.__key,
						degree: CASE WHEN COUNT { (o)-->() } < $limit THEN COUNT { (o)-->() } ELSE $limit END
							+ CASE WHEN COUNT { (o)<--() } < $limit THEN COUNT { (o)<--() } ELSE $limit END
					}] AS neighbours`,
					this.params(scope, { ids: [...new Set(ids)], limit: int(limit) }),
				),
			"read the adjacency",
		);
		for (const row of rows) {
			const neighbours = (row.neighbours as Record<string, unknown>[]).map(
				(n): AdjacentNode => ({ id: String(n.id), label: String(n.label), key: String(n.key), degree: Math.min(Number(n.degree), limit) }),
			);
			out.set(String(row.id), { degree: Math.min(Number(row.total), limit), neighbours });
		}
		return out;
	}

	// --- Reflect (issue 6) ---

	async reflectRows<D extends ReflectDetectorId>(scope: PartialScope, detector: D, params: ReflectParams): Promise<readonly ReflectRowMap[D][]> {
		if (!isFullScope(scope) || params.limit <= 0) return [];
		return this.conn.read((q) => neo4jReflectRows(q, this.namespace, scope, detector, params), `run the ${detector} detector`);
	}

	/** Removes every node, relation and setting of this store's namespace (tests, `migrate --replace`). */
	async dropNamespace(): Promise<number> {
		const ns = { ns: this.namespace };
		const removed = await this.deleteInBatches(`MATCH (n:${NODE_LABEL} {__ns: $ns}) WITH n AS x`, ns, "drop the memory", true);
		for (const label of [META_LABEL, NAME_LABEL, FRAGMENT_LABEL, HISTORY_LABEL]) {
			await this.deleteInBatches(`MATCH (m:${label} {__ns: $ns}) WITH m AS x`, ns, "drop the memory");
		}
		return removed;
	}
}

/** The WHERE of listNodes / listNodeFields: scope, label, status or live, string-prop equality. */
function listFilter(query: ListNodesQuery): { where: string; params: Record<string, unknown> } {
	const where = [SCOPE];
	const params: Record<string, unknown> = { offset: int(query.offset ?? 0), limit: int(query.limit ?? 0) };
	if (query.label) {
		where.push("n.__label = $label");
		params.label = query.label;
	}
	if (query.status && query.status.length > 0) {
		where.push("coalesce(n.status, '') IN $status");
		params.status = [...query.status];
	} else if (!query.includeArchived) {
		where.push(LIVE);
	}
	let i = 0;
	for (const [field, value] of Object.entries(query.where ?? {})) {
		if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(field)) continue;
		where.push(`n[$f${i}] = $v${i}`);
		params[`f${i}`] = encodeName(field);
		params[`v${i}`] = encodeValue(value);
		i++;
	}
	return { where: where.join(" AND "), params };
}

function parseJson(value: unknown): PropValue {
	if (typeof value !== "string") return null;
	try {
		return JSON.parse(value) as PropValue;
	} catch {
		return decodeValue(value);
	}
}

function assertScope(scope: Scope): void {
	if (!isFullScope(scope)) throw new ScopeError("Writes need a full scope (org_id and user_id).");
}
