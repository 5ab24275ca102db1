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
	IntegrityCheckId,
	NameCandidatesQuery,
	NodeHistoryQuery,
	ReflectDetectorId,
	ReflectParams,
	ReflectRowMap,
	RekeyNodeInput,
	ScopeFootprint,
	ValidAtQuery,
} from "../../engine/protocols";
import { NAME_INDEX_LIMITS, indexedNames, nameFragments } from "../../engine/resolver/normalise";
import { isFullScope } from "../../engine/scope";
import { NOT_SEARCHED } from "../../engine/system-props";
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
import { SqliteFulltext } from "./sqlite-fulltext";
import { sqliteReflectRows } from "./sqlite-reflect-queries";
import { repairAfterPython } from "./python-file";
import { STORED_EDGE, packEdgeProps, unpackEdgeProps, type StoredEdge } from "./edge-props";
import { FTS_COLUMNS, ID_EXPR, ORG_EXPR, SCOPES_TABLE, SCOPE_NUMBER, STATUS_EXPR, USER_EXPR, migrate, ownSchemaVersion, type NodeRow } from "./schema";
import type { SqlValue, SqliteConnection } from "./wasm/sqlite-connection";

interface EdgeRow {
	from_id: number;
	rel_type: string;
	to_id: number;
	edge_created_at: string;
	edge_props: string | null;
	edge_elided: number;
	edge_org: string | null;
	edge_user: string | null;
}


// Entries of the engrama_id → row id cache (a few MB at most).
const ROW_ID_CACHE_SIZE = 200_000;
/** Neighbour lists kept between searches (each holds up to cap + 1 neighbours). */
const ADJACENCY_CACHE_SIZE = 20_000;
const SCOPE_WHERE = `${ORG_EXPR} = ? AND ${USER_EXPR} = ?`;
const LIVE = `${STATUS_EXPR} != 'archived'`;
const NODE_COLS = "id, label, key_field, key_value, props, created_at, updated_at";
// Column stored as the row's own timestamp, never duplicated in props.
const COLUMN_PROPS = new Set(["created_at", "updated_at"]);

function parseProps(text: string | null): Record<string, PropValue> {
	if (!text) return {};
	try {
		const value: unknown = JSON.parse(text);
		return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, PropValue>) : {};
	} catch {
		return {};
	}
}

function scopeParams(scope: Scope): [string, string] {
	return [scope.orgId, scope.userId];
}

function ftsText(value: PropValue | undefined): string | null {
	if (value === undefined || value === null) return null;
	if (Array.isArray(value)) return value.map(String).join(" ");
	return typeof value === "object" ? null : String(value);
}

/** The WHERE terms of a node listing (scope, label, status or live only, exact prop matches). */
function listFilter(scope: Scope, query: ListNodesQuery): { where: string[]; params: SqlValue[] } {
	const where = [SCOPE_WHERE];
	const params: SqlValue[] = [...scopeParams(scope)];
	if (query.label) {
		where.push("label = ?");
		params.push(query.label);
	}
	if (query.status && query.status.length > 0) {
		where.push(`${STATUS_EXPR} IN (${query.status.map(() => "?").join(", ")})`);
		params.push(...query.status);
	} else if (!query.includeArchived) {
		where.push(LIVE);
	}
	for (const [field, value] of Object.entries(query.where ?? {})) {
		if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(field)) continue;
		where.push(`json_extract(props, '$.${field}') = ?`);
		params.push(value);
	}
	return { where, params };
}

/**
 * The default graph backend: nodes, edges and FTS5 in one SQLite database (WASM).
 * All statements are parameterised; only constant SQL fragments are interpolated.
 */
export class SqliteGraphStore implements GraphStore {
	readonly name = "sqlite";
	readonly capabilities: GraphCapabilities;
	private depth = 0;
	private closed = false;
	/**
	 * engrama_id → row id (and scope) of nodes this store created or looked up, so bulk edge writes
	 * do not look up the same endpoints batch after batch. Only this store changes nodes in this
	 * file (the lock file keeps other writers out); it forgets an id when the node is deleted or
	 * re-identified, and everything on a rollback, on forgetScope or past a size bound.
	 */
	private readonly knownRows = new Map<string, { readonly rowId: number; readonly orgId: string; readonly userId: string }>();
	private readonly fulltextIndex: SqliteFulltext;
	/**
	 * The graph rerank's reads, kept between searches: neighbour lists by scope and node, and
	 * neighbours' names and degrees by row id. Every write starts with a savepoint, which empties
	 * both (as does a rollback), so they never outlive the rows they were read from.
	 */
	private readonly adjacencyCache = new Map<string, Adjacency>();
	private readonly neighbourCache = new Map<string, AdjacentNode>();

	constructor(private readonly conn: SqliteConnection) {
		this.capabilities = { atomicTransactions: true, durable: conn.path !== ":memory:" };
		this.fulltextIndex = new SqliteFulltext(conn);
	}

	async init(): Promise<void> {
		this.conn.exec("PRAGMA foreign_keys = ON");
		// Temp tables and sorts in memory, not in temp files through the VFS (reflect's snapshot uses them).
		this.conn.exec("PRAGMA temp_store = MEMORY");
		// Deleted and overwritten content is zeroed, not left in the file's free space: a hard delete
		// or a GDPR forget must not stay readable with a hex editor.
		this.conn.exec("PRAGMA secure_delete = ON");
		migrate(this.conn);
		repairAfterPython(this.conn);
		this.backfillNameIndex();
	}

	async close(): Promise<void> {
		if (this.closed) return;
		this.closed = true;
		// Snapshot mode: the last snapshot is written before close resolves, so a new instance that
		// opens right after (a plugin reload on mobile) reads it. Files: nothing to wait for.
		try {
			await this.conn.flush();
		} catch (error) {
			console.error("Engrama: writing the last snapshot failed; closing anyway", error);
		}
		this.conn.close();
	}

	/** The connection, for the vector store that shares the same file. */
	connection(): SqliteConnection {
		return this.conn;
	}

	async health(): Promise<HealthReport> {
		try {
			const nodes = this.conn.get<{ n: number }>("SELECT count(*) AS n FROM nodes")?.n ?? 0;
			const edges = this.conn.get<{ n: number }>("SELECT count(*) AS n FROM edges")?.n ?? 0;
			const schemaVersion = ownSchemaVersion(this.conn);
			return { ok: true, backend: this.name, nodes: Number(nodes), edges: Number(edges), schemaVersion, detail: this.conn.path };
		} catch (error) {
			return { ok: false, backend: this.name, detail: error instanceof Error ? error.message : String(error) };
		}
	}

	/**
	 * Savepoints through the connection's cached statements: `exec` would prepare and finalise
	 * SAVEPOINT/RELEASE on every call (≈0.1–0.2 ms a pair in WASM, paid by every write).
	 */
	private savepoint(): string {
		this.forgetAdjacency();
		const name = `sp${this.depth}`;
		this.conn.run(`SAVEPOINT ${name}`);
		this.depth++;
		return name;
	}

	private release(name: string): void {
		// Only once it succeeded: a failed outermost RELEASE (the commit: disk full, a write
		// refused) leaves the savepoint open for the caller's rollbackTo().
		this.conn.run(`RELEASE ${name}`);
		this.depth--;
	}

	private rollbackTo(name: string): void {
		// Rows inserted since the savepoint vanish and their row ids may be given out again.
		this.knownRows.clear();
		this.forgetAdjacency();
		this.depth--;
		this.conn.run(`ROLLBACK TO ${name}`);
		this.conn.run(`RELEASE ${name}`);
	}

	/** Runs sync work atomically: a savepoint nests inside an open transaction, or starts one. */
	private atomic<T>(work: () => T): T {
		const name = this.savepoint();
		try {
			const result = work();
			this.release(name);
			return result;
		} catch (error) {
			this.rollbackTo(name);
			throw error;
		}
	}

	async transaction<T>(fn: () => Promise<T>): Promise<T> {
		const name = this.savepoint();
		try {
			const result = await fn();
			this.release(name);
			return result;
		} catch (error) {
			this.rollbackTo(name);
			throw error;
		}
	}

	private toRecord(row: NodeRow): NodeRecord {
		const props = parseProps(row.props);
		const id = typeof props.engrama_id === "string" ? props.engrama_id : `sqlite-${row.id}`;
		return {
			id,
			label: row.label,
			keyField: row.key_field === "title" ? "title" : "name",
			key: row.key_value,
			props,
			createdAt: row.created_at,
			updatedAt: row.updated_at,
		};
	}

	private rowById(scope: Scope, id: string): NodeRow | undefined {
		const legacy = /^sqlite-(\d+)$/.exec(id);
		if (legacy) {
			return this.conn.get<NodeRow>(`SELECT ${NODE_COLS} FROM nodes WHERE id = ? AND ${SCOPE_WHERE}`, [
				Number(legacy[1]),
				...scopeParams(scope),
			]);
		}
		return this.conn.get<NodeRow>(`SELECT ${NODE_COLS} FROM nodes WHERE ${ID_EXPR} = ? AND ${SCOPE_WHERE}`, [
			id,
			...scopeParams(scope),
		]);
	}

	private rowByKey(scope: Scope, label: string, key: string): NodeRow | undefined {
		return this.conn.get<NodeRow>(
			`SELECT ${NODE_COLS} FROM nodes WHERE label = ? AND key_value = ? AND ${SCOPE_WHERE}`,
			[label, key, ...scopeParams(scope)],
		);
	}

	/**
	 * Replaces a node's fulltext row; `fresh`: the row id was just inserted, there is no old row. A
	 * stored row that already holds these values is left alone (sync's bookkeeping updates, such as
	 * a note's new hash and mtime, change no searchable text): rewriting it costs an FTS5 delete and
	 * insert, and inside a transaction every later savepoint flushes it as a segment of its own.
	 */
	private writeFts(rowId: number, props: Props, fresh = false): void {
		const values = ftsValues(props);
		if (!fresh) {
			const stored = this.conn.get<Record<string, SqlValue>>(`SELECT ${FTS_COLUMNS.join(", ")} FROM nodes_fts WHERE rowid = ?`, [rowId]);
			if (stored && FTS_COLUMNS.every((column, i) => stored[column] === values[i])) return;
			if (stored) this.conn.run("DELETE FROM nodes_fts WHERE rowid = ?", [rowId]);
		}
		this.conn.run(
			`INSERT INTO nodes_fts(rowid, ${FTS_COLUMNS.join(", ")}) VALUES (?, ${FTS_COLUMNS.map(() => "?").join(", ")})`,
			[rowId, ...values],
		);
	}

	async mergeNode(scope: Scope, input: MergeNodeInput): Promise<MergeNodeResult> {
		assertScope(scope);
		return this.atomic(() => this.mergeNodeNow(scope, input));
	}

	private mergeNodeNow(scope: Scope, input: MergeNodeInput): MergeNodeResult {
		const existing = this.rowByKey(scope, input.label, input.key);
		if (existing) {
			const previous = parseProps(existing.props);
			const props: Record<string, PropValue> = { ...previous, ...stripColumns(input.set) };
			for (const name of input.unset ?? []) delete props[name];
			props.org_id = scope.orgId;
			props.user_id = scope.userId;
			if (identityChanged(previous, props)) this.forgetRowId(previous.engrama_id);
			this.conn.run("UPDATE nodes SET props = ?, updated_at = ? WHERE id = ?", [JSON.stringify(props), input.now, existing.id]);
			this.writeFts(existing.id, props);
			if (touchesNames(input.set, input.unset)) this.indexNames(existing.id, scope, existing.key_value, props);
			return {
				node: this.toRecord({ ...existing, props: JSON.stringify(props), updated_at: input.now }),
				created: false,
				previous,
			};
		}
		const props = createdProps(scope, input);
		const text = JSON.stringify(props);
		const { lastInsertRowid } = this.conn.run(
			"INSERT INTO nodes(label, key_field, key_value, props, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
			[input.label, input.keyField, input.key, text, input.now, input.now],
		);
		// A new row id (AUTOINCREMENT never reuses one) has no fulltext row and no names yet.
		this.rememberRowId(scope, props.engrama_id, lastInsertRowid);
		this.writeFts(lastInsertRowid, props, true);
		this.insertNames(scope, nameRows(lastInsertRowid, input.key, props));
		return { node: this.createdRecord(lastInsertRowid, input, text), created: true };
	}

	private createdRecord(rowId: number, input: MergeNodeInput, propsText: string): NodeRecord {
		return this.toRecord({
			id: rowId,
			label: input.label,
			key_field: input.keyField,
			key_value: input.key,
			props: propsText,
			created_at: input.now,
			updated_at: input.now,
		});
	}

	/**
	 * Many merges as one unit. When every input is a new node (the bulk of a full vault sync) the
	 * nodes, their fulltext rows and their name index are written with one statement each (rows
	 * passed as one JSON array); otherwise input by input, exactly like mergeNode.
	 */
	async mergeNodes(scope: Scope, inputs: readonly MergeNodeInput[]): Promise<readonly MergeNodeResult[]> {
		assertScope(scope);
		if (inputs.length === 0) return [];
		return this.atomic(() => {
			const identities = inputs.map((i) => [i.label, i.key]);
			let allNew = new Set(identities.map(([label, key]) => `${label}\u0000${key}`)).size === inputs.length;
			if (allNew) {
				const found = this.conn.get<{ n: number }>(
					`SELECT count(*) AS n FROM json_each(?) j CROSS JOIN nodes n ON n.label = j.value->>0 AND n.key_value = j.value->>1
					WHERE ${SCOPE_WHERE.replaceAll("props", "n.props")}`,
					[JSON.stringify(identities), ...scopeParams(scope)],
				);
				allNew = Number(found?.n ?? 0) === 0;
			}
			if (!allNew) return inputs.map((input) => this.mergeNodeNow(scope, input));
			const texts = inputs.map((input) => JSON.stringify(createdProps(scope, input)));
			const inserted = this.conn.all<{ id: number; label: string; key_value: string }>(
				// Each row's JSON is rendered once (MATERIALIZED); value->>k would render it once per use.
				`WITH r AS MATERIALIZED (SELECT value AS v FROM json_each(?))
				INSERT INTO nodes(label, key_field, key_value, props, created_at, updated_at)
				SELECT v->>0, v->>1, v->>2, v->>3, v->>4, v->>4 FROM r
				RETURNING id, label, key_value`,
				[JSON.stringify(inputs.map((input, i) => [input.label, input.keyField, input.key, texts[i], input.now]))],
			);
			const rowIds = new Map(inserted.map((r) => [`${r.label}\u0000${r.key_value}`, r.id]));
			const fts: unknown[] = [];
			const names: NameRow[] = [];
			const results = inputs.map((input, i) => {
				const rowId = rowIds.get(`${input.label}\u0000${input.key}`);
				if (rowId === undefined) throw new Error(`mergeNodes: no row id came back for ${input.label} "${input.key}".`);
				const node = this.createdRecord(rowId, input, texts[i]);
				this.rememberRowId(scope, node.props.engrama_id, rowId);
				fts.push([rowId, ...ftsValues(node.props)]);
				names.push(...nameRows(rowId, input.key, node.props));
				return { node, created: true };
			});
			this.conn.run(
				`WITH r AS MATERIALIZED (SELECT value AS v FROM json_each(?))
				INSERT INTO nodes_fts(rowid, ${FTS_COLUMNS.join(", ")}) SELECT v->>0, ${FTS_COLUMNS.map((_, i) => `v->>${i + 1}`).join(", ")} FROM r`,
				[JSON.stringify(fts)],
			);
			this.insertNames(scope, names);
			return results;
		});
	}

	async getNode(scope: PartialScope, label: string, key: string): Promise<NodeRecord | null> {
		if (!isFullScope(scope)) return null;
		const row = this.rowByKey(scope, label, key);
		return row ? this.toRecord(row) : null;
	}

	async getNodeById(scope: PartialScope, id: string): Promise<NodeRecord | null> {
		if (!isFullScope(scope)) return null;
		const row = this.rowById(scope, id);
		return row ? this.toRecord(row) : null;
	}

	async idsOutsideScope(scope: Scope, ids: readonly string[]): Promise<ReadonlySet<string>> {
		assertScope(scope);
		if (ids.length === 0) return new Set();
		const rows = this.conn.all<{ id: string }>(
			`SELECT ${ID_EXPR} AS id FROM json_each(?) j CROSS JOIN nodes ON ${ID_EXPR} = j.value WHERE NOT (${SCOPE_WHERE})`,
			[JSON.stringify(ids), ...scopeParams(scope)],
		);
		return new Set(rows.map((r) => r.id));
	}

	async findByKey(scope: PartialScope, key: string): Promise<readonly NodeRecord[]> {
		if (!isFullScope(scope)) return [];
		return this.conn
			.all<NodeRow>(`SELECT ${NODE_COLS} FROM nodes WHERE ${SCOPE_WHERE} AND key_value = ?`, [...scopeParams(scope), key])
			.map((row) => this.toRecord(row));
	}

	async updateNode(scope: Scope, id: string, set: Props, unset: readonly string[], now: string): Promise<NodeRecord | null> {
		assertScope(scope);
		return this.atomic(() => {
			const row = this.rowById(scope, id);
			if (!row) return null;
			const before = parseProps(row.props);
			const props: Record<string, PropValue> = { ...before, ...stripColumns(set) };
			for (const name of unset) delete props[name];
			if (identityChanged(before, props)) this.forgetRowId(before.engrama_id);
			this.conn.run("UPDATE nodes SET props = ?, updated_at = ? WHERE id = ?", [JSON.stringify(props), now, row.id]);
			this.writeFts(row.id, props);
			if (touchesNames(set, unset)) this.indexNames(row.id, scope, row.key_value, props);
			return this.toRecord({ ...row, props: JSON.stringify(props), updated_at: now });
		});
	}

	async deleteNode(scope: Scope, id: string): Promise<boolean> {
		assertScope(scope);
		return this.atomic(() => {
			const row = this.rowById(scope, id);
			if (!row) return false;
			this.forgetRowId(parseProps(row.props).engrama_id);
			this.conn.run("DELETE FROM edges WHERE from_id = ? OR to_id = ?", [row.id, row.id]);
			this.conn.run("DELETE FROM nodes_fts WHERE rowid = ?", [row.id]);
			this.dropNameIndex(row.id);
			this.conn.run("DELETE FROM node_history WHERE org_id = ? AND user_id = ? AND engrama_id = ?", [
				...scopeParams(scope),
				this.toRecord(row).id,
			]);
			this.conn.run("DELETE FROM nodes WHERE id = ?", [row.id]);
			return true;
		});
	}

	private requireRow(scope: Scope, id: string, role: string): NodeRow {
		const row = this.rowById(scope, id);
		if (!row) throw missingEndpoint(role, id);
		return row;
	}

	async mergeEdge(scope: Scope, input: MergeEdgeInput): Promise<{ readonly created: boolean }> {
		assertScope(scope);
		return this.atomic(() => {
			const from = this.requireRow(scope, input.fromId, "source");
			const to = this.requireRow(scope, input.toId, "target");
			const existing = this.conn.get<StoredEdge>(STORED_EDGE, [from.id, input.type, to.id]);
			if (existing) {
				if (input.props && Object.keys(input.props).length > 0) this.mergeEdgeProps(existing, input.props);
				return { created: false };
			}
			const packed = packEdgeProps(input.props ?? {}, scope.orgId, scope.userId);
			this.conn.run(
				"INSERT INTO edges(from_id, rel_type, to_id, created_at, org_id, user_id, props, elided) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
				[from.id, input.type, to.id, input.now, scope.orgId, scope.userId, packed.text, packed.elided],
			);
			return { created: true };
		});
	}

	/** An existing edge's props with `props` merged over them, stored packed again. */
	private mergeEdgeProps(existing: StoredEdge, props: Props): void {
		const merged = { ...this.edgeProps(existing.props, existing.elided, existing.org_id, existing.user_id), ...props };
		const packed = packEdgeProps(merged, existing.org_id, existing.user_id);
		this.conn.run("UPDATE edges SET props = ?, elided = ? WHERE id = ?", [packed.text, packed.elided, existing.id]);
	}

	private edgeProps(text: string | null, elided: number, orgId: string | null, userId: string | null): Record<string, PropValue> {
		return unpackEdgeProps(parseProps(text), Number(elided ?? 0), orgId, userId);
	}

	async deleteEdge(scope: Scope, fromId: string, type: string, toId: string): Promise<boolean> {
		assertScope(scope);
		return this.atomic(() => {
			const from = this.rowById(scope, fromId);
			const to = this.rowById(scope, toId);
			if (!from || !to) return false;
			const { changes } = this.conn.run(
				"DELETE FROM edges WHERE from_id = ? AND rel_type = ? AND to_id = ? AND +org_id = ? AND +user_id = ?",
				[from.id, type, to.id, ...scopeParams(scope)],
			);
			return changes > 0;
		});
	}

	private edgeRows(scope: Scope, rowId: number, direction: Direction, types?: readonly string[], limit = -1) {
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
		return this.conn.all<EdgeRow & NodeRow & { dir: "out" | "in" }>(sql, [
			...parts.flatMap((p) => p.params),
			limit,
		]);
	}

	private edgeOf(row: EdgeRow & { dir: "out" | "in" }, self: NodeRecord, other: NodeRecord): EdgeRecord {
		const [from, to] = row.dir === "out" ? [self, other] : [other, self];
		return { fromId: from.id, type: row.rel_type, toId: to.id, createdAt: row.edge_created_at, props: this.edgeProps(row.edge_props, row.edge_elided, row.edge_org, row.edge_user) };
	}

	async edgesOf(scope: PartialScope, id: string, direction: Direction, types?: readonly string[]): Promise<readonly NeighbourEdge[]> {
		if (!isFullScope(scope)) return [];
		const self = this.rowById(scope, id);
		if (!self) return [];
		const selfRecord = this.toRecord(self);
		return this.edgeRows(scope, self.id, direction, types).map((row) => {
			const other = this.toRecord(row);
			return { type: row.rel_type, direction: row.dir, node: other, edge: this.edgeOf(row, selfRecord, other) };
		});
	}

	async neighbourhood(scope: PartialScope, id: string, hops: number, fanOutCap: number): Promise<Neighbourhood | null> {
		if (!isFullScope(scope)) return null;
		const start = this.rowById(scope, id);
		if (!start) return null;
		const center = this.toRecord(start);
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
				const rows = this.edgeRows(scope, rowId, "both", undefined, fanOutCap + 1);
				if (rows.length > fanOutCap) truncated = true;
				for (const row of rows.slice(0, fanOutCap)) {
					const otherRowId = row.dir === "out" ? row.to_id : row.from_id;
					let other = records.get(otherRowId);
					if (!other) {
						other = this.toRecord(row);
						records.set(otherRowId, other);
					}
					if (other.props.status === "archived") continue;
					const edge = this.edgeOf(row, self, other);
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

	async fulltext(scope: PartialScope, query: FulltextQuery): Promise<readonly FulltextHit[]> {
		if (!isFullScope(scope)) return [];
		// bm25 is lower-is-better and negative; flip it so higher is better.
		return this.fulltextIndex.search(scope, query).map((row) => ({ node: this.toRecord(row), score: -Number(row.rank) }));
	}

	async listNodes(scope: PartialScope, query: ListNodesQuery): Promise<readonly NodeRecord[]> {
		if (!isFullScope(scope)) return [];
		const { where, params } = listFilter(scope, query);
		params.push(query.limit ?? -1, query.offset ?? 0);
		return this.conn
			.all<NodeRow>(`SELECT ${NODE_COLS} FROM nodes WHERE ${where.join(" AND ")} ORDER BY id LIMIT ? OFFSET ?`, params)
			.map((row) => this.toRecord(row));
	}

	async labelCounts(scope: PartialScope): Promise<Readonly<Record<string, number>>> {
		if (!isFullScope(scope)) return {};
		const rows = this.conn.all<{ label: string; n: number }>(
			`SELECT label, count(*) AS n FROM nodes WHERE ${SCOPE_WHERE} AND ${LIVE} AND label != 'Insight' GROUP BY label ORDER BY label`,
			scopeParams(scope),
		);
		return Object.fromEntries(rows.map((r) => [r.label, Number(r.n)]));
	}

	async checkIntegrity(): Promise<readonly IntegrityCheck[]> {
		const check = (id: IntegrityCheck["check"], countSql: string, sampleSql: string): IntegrityCheck => ({
			check: id,
			problems: Number(this.conn.get<{ n: number }>(countSql)?.n ?? 0),
			samples: this.conn.all<{ s: SqlValue }>(`${sampleSql} LIMIT 5`).map((r) => String(r.s)),
		});
		const messages = this.conn.all<{ integrity_check: string }>("PRAGMA integrity_check").map((r) => String(r.integrity_check));
		const broken = messages.filter((m) => m !== "ok");
		const endpointsMissing = "NOT EXISTS (SELECT 1 FROM nodes n WHERE n.id = e.from_id) OR NOT EXISTS (SELECT 1 FROM nodes n WHERE n.id = e.to_id)";
		const nodeScope = (alias: string) => `${ORG_EXPR.replace("props", `${alias}.props`)} || char(31) || ${USER_EXPR.replace("props", `${alias}.props`)}`;
		// An edge without org_id (written by an older reader) takes its endpoints' scope: not a problem.
		const scopeDiffers = `(e.org_id IS NOT NULL AND (e.org_id || char(31) || COALESCE(e.user_id, '')) != ${nodeScope("a")}) OR ${nodeScope("a")} != ${nodeScope("b")}`;
		return [
			{ check: "storage", problems: broken.length, samples: broken.slice(0, 5) },
			check(
				"fulltext_missing",
				`SELECT count(*) AS n FROM nodes WHERE ${LIVE} AND id NOT IN (SELECT rowid FROM nodes_fts)`,
				`SELECT ${ID_EXPR} AS s FROM nodes WHERE ${LIVE} AND id NOT IN (SELECT rowid FROM nodes_fts) ORDER BY id`,
			),
			check(
				"fulltext_orphans",
				"SELECT count(*) AS n FROM nodes_fts WHERE rowid NOT IN (SELECT id FROM nodes)",
				"SELECT 'fulltext row ' || rowid AS s FROM nodes_fts WHERE rowid NOT IN (SELECT id FROM nodes) ORDER BY rowid",
			),
			check(
				"dangling_edges",
				`SELECT count(*) AS n FROM edges e WHERE ${endpointsMissing}`,
				`SELECT 'edge ' || e.id || ' (' || e.from_id || ' -' || e.rel_type || '-> ' || e.to_id || ')' AS s FROM edges e WHERE ${endpointsMissing} ORDER BY e.id`,
			),
			check(
				"edge_scope",
				`SELECT count(*) AS n FROM edges e JOIN nodes a ON a.id = e.from_id JOIN nodes b ON b.id = e.to_id WHERE ${scopeDiffers}`,
				`SELECT 'edge ' || e.id || ' (' || e.rel_type || ')' AS s FROM edges e JOIN nodes a ON a.id = e.from_id JOIN nodes b ON b.id = e.to_id WHERE ${scopeDiffers} ORDER BY e.id`,
			),
		];
	}

	async repairIntegrity(): Promise<Partial<Record<IntegrityCheckId, number>>> {
		return this.atomic(() => {
			const missing = this.conn.all<{ id: number; props: string }>(`SELECT id, props FROM nodes WHERE ${LIVE} AND id NOT IN (SELECT rowid FROM nodes_fts)`);
			for (const row of missing) this.writeFts(row.id, parseProps(row.props), true);
			const fulltextOrphans = this.conn.run("DELETE FROM nodes_fts WHERE rowid NOT IN (SELECT id FROM nodes)").changes;
			const dangling = this.conn.run(
				"DELETE FROM edges WHERE from_id NOT IN (SELECT id FROM nodes) OR to_id NOT IN (SELECT id FROM nodes)",
			).changes;
			return { fulltext_missing: missing.length, fulltext_orphans: fulltextOrphans, dangling_edges: dangling };
		});
	}

	async counts(scope: PartialScope): Promise<{ readonly nodes: number; readonly edges: number }> {
		if (!isFullScope(scope)) return { nodes: 0, edges: 0 };
		const nodes = this.conn.get<{ n: number }>(`SELECT count(*) AS n FROM nodes WHERE ${SCOPE_WHERE}`, scopeParams(scope))?.n ?? 0;
		const edges =
			this.conn.get<{ n: number }>("SELECT count(*) AS n FROM edges WHERE org_id = ? AND user_id = ?", scopeParams(scope))?.n ?? 0;
		return { nodes: Number(nodes), edges: Number(edges) };
	}

	async forgetScope(scope: Scope): Promise<ScopeForgetReport> {
		assertScope(scope);
		this.knownRows.clear();
		return this.atomic(() => this.forgetScopeRows(scope));
	}

	private forgetScopeRows(scope: Scope): ScopeForgetReport {
		// Set-based: one statement per table, whatever the size of the scope.
		const mine = `SELECT id FROM nodes WHERE ${SCOPE_WHERE}`;
		const params = scopeParams(scope);
		let edges = this.conn.run(`DELETE FROM edges WHERE from_id IN (${mine}) OR to_id IN (${mine})`, [...params, ...params]).changes;
		const fulltext = this.conn.run(`DELETE FROM nodes_fts WHERE rowid IN (${mine})`, params).changes;
		edges += this.conn.run("DELETE FROM edges WHERE org_id = ? AND user_id = ?", params).changes;
		const nameIndex =
			this.conn.run(`DELETE FROM node_name_fragments WHERE scope = ${SCOPE_NUMBER}`, params).changes +
			this.conn.run(`DELETE FROM node_names WHERE scope = ${SCOPE_NUMBER}`, params).changes;
		// The scope's strings go too (a forget leaves none of its ids in the file).
		this.conn.run(`DELETE FROM ${SCOPES_TABLE} WHERE org_id = ? AND user_id = ?`, params);
		const history = this.conn.run("DELETE FROM node_history WHERE org_id = ? AND user_id = ?", params).changes;
		const nodes = this.conn.run(`DELETE FROM nodes WHERE ${SCOPE_WHERE}`, params).changes;
		// FTS5 keeps deleted terms in its segments until they are merged: merge them all now.
		if (fulltext > 0) this.conn.run("INSERT INTO nodes_fts(nodes_fts) VALUES ('optimize')");
		return { nodes, edges, fulltext, history, nameIndex };
	}

	async getMeta(key: string): Promise<string | null> {
		return this.conn.get<{ value: string }>("SELECT value FROM engrama_meta WHERE key = ?", [key])?.value ?? null;
	}

	async listScopes(): Promise<readonly Scope[]> {
		return this.conn
			.all<{ org: string; usr: string }>(
				`SELECT DISTINCT COALESCE(json_extract(props, '$.org_id'), '') AS org, COALESCE(json_extract(props, '$.user_id'), '') AS usr FROM nodes ORDER BY org, usr`,
			)
			.filter((r) => r.org && r.usr)
			.map((r) => ({ orgId: String(r.org), userId: String(r.usr) }));
	}

	async listMeta(): Promise<readonly (readonly [string, string])[]> {
		return this.conn.all<{ key: string; value: string }>("SELECT key, value FROM engrama_meta ORDER BY key").map((r) => [r.key, r.value] as const);
	}

	async setMeta(key: string, value: string): Promise<void> {
		this.conn.run("INSERT OR REPLACE INTO engrama_meta(key, value) VALUES (?, ?)", [key, value]);
	}

	async deleteMeta(key: string): Promise<void> {
		this.conn.run("DELETE FROM engrama_meta WHERE key = ?", [key]);
	}

	async purgeDeleted(): Promise<void> {
		// Older frames of the WAL still hold the pages as they were before the forget.
		this.conn.exec("PRAGMA wal_checkpoint(TRUNCATE)");
	}

	// --- Entity resolver name index and temporal reads (issue 5) ---

	/** Re-indexes one node's names (key + aliases) and their fragments. */
	private indexNames(rowId: number, scope: Scope, key: string, props: Props): void {
		this.dropNameIndex(rowId);
		this.insertNames(scope, nameRows(rowId, key, props));
	}

	/**
	 * Name-index rows (of one node or many): one statement for the names, one for their fragments.
	 * Rows travel as one JSON array; fragments grouped per name so each row only reads a scalar.
	 */
	private insertNames(scope: Scope, rows: readonly NameRow[]): void {
		if (rows.length === 0) return;
		this.conn.run(`INSERT OR IGNORE INTO ${SCOPES_TABLE}(org_id, user_id) VALUES (?, ?)`, scopeParams(scope));
		this.conn.run(
			`INSERT OR IGNORE INTO node_names(node_id, scope, norm, len) SELECT value->>0, ${SCOPE_NUMBER}, value->>1, value->>2 FROM json_each(?)`,
			[...scopeParams(scope), JSON.stringify(rows.map(([rowId, norm]) => [rowId, norm, norm.length]))],
		);
		this.conn.run(
			`WITH n AS MATERIALIZED (SELECT value->>0 AS id, value->>1 AS len, value->2 AS fragments FROM json_each(?))
			INSERT OR IGNORE INTO node_name_fragments(scope, fragment, len, node_id)
			SELECT ${SCOPE_NUMBER}, f.value, n.len, n.id FROM n, json_each(n.fragments) f`,
			[JSON.stringify(rows.map(([rowId, norm]) => [rowId, norm.length, nameFragments(norm)])), ...scopeParams(scope)],
		);
	}

	private dropNameIndex(rowId: number): void {
		this.conn.run("DELETE FROM node_name_fragments WHERE node_id = ?", [rowId]);
		this.conn.run("DELETE FROM node_names WHERE node_id = ?", [rowId]);
	}

	/** Nodes written by a reader that does not keep the name index (the Python engrama) get indexed on open. */
	private backfillNameIndex(): void {
		const missing = this.conn.all<NodeRow>(
			`SELECT ${NODE_COLS} FROM nodes n WHERE NOT EXISTS (SELECT 1 FROM node_names nn WHERE nn.node_id = n.id)`,
		);
		if (missing.length === 0) return;
		this.atomic(() => {
			for (const row of missing) {
				const props = parseProps(row.props);
				const orgId = typeof props.org_id === "string" ? props.org_id : "";
				const userId = typeof props.user_id === "string" ? props.user_id : "";
				this.indexNames(row.id, { orgId, userId }, row.key_value, props);
			}
		});
	}

	async nameCandidates(scope: PartialScope, query: NameCandidatesQuery): Promise<readonly NodeRecord[]> {
		if (!isFullScope(scope) || !query.normalised || query.limit <= 0) return [];
		const limit = Math.min(query.limit, 1000);
		const params = scopeParams(scope);
		const exact = this.conn
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
				...this.conn.all<{ node_id: number; len: number }>(
					`SELECT node_id, len FROM node_name_fragments WHERE scope = ${SCOPE_NUMBER} AND fragment = ? AND len >= ? AND len <= ? ORDER BY len LIMIT ?`,
					[...params, fragment, len, Math.ceil(len * LENGTH_WINDOW_HIGH), POSTINGS_PER_FRAGMENT],
				),
				...this.conn.all<{ node_id: number; len: number }>(
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
		const rows = this.conn.all<NodeRow>(
			`SELECT ${NODE_COLS.split(", ").map((c) => `n.${c}`).join(", ")} FROM json_each(?) j CROSS JOIN nodes n ON n.id = j.value
			WHERE ${SCOPE_WHERE.replaceAll("props", "n.props")}`,
			[JSON.stringify(ids), ...params],
		);
		const byId = new Map(rows.map((r) => [r.id, r]));
		return ids.flatMap((id) => {
			const row = byId.get(id);
			return row ? [this.toRecord(row)] : [];
		});
	}

	async recordHistory(scope: Scope, entries: readonly HistoryEntry[]): Promise<void> {
		assertScope(scope);
		if (entries.length === 0) return;
		this.atomic(() => {
			for (const e of entries) {
				this.conn.run(
					"INSERT INTO node_history(engrama_id, org_id, user_id, at, prop, before_value, after_value, source) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
					[e.nodeId, ...scopeParams(scope), e.at, e.prop, JSON.stringify(e.before ?? null), JSON.stringify(e.after ?? null), e.source],
				);
			}
		});
	}

	async nodeHistory(scope: PartialScope, nodeId: string, query: NodeHistoryQuery): Promise<readonly HistoryEntry[]> {
		if (!isFullScope(scope) || query.limit <= 0) return [];
		const rows = this.conn.all<{ at: string; prop: string; before_value: string | null; after_value: string | null; source: string | null }>(
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

	async nodesValidAt(scope: PartialScope, query: ValidAtQuery): Promise<readonly NodeRecord[]> {
		if (!isFullScope(scope) || query.limit <= 0) return [];
		const labelFilter = query.label ? " AND label = ?" : "";
		const rows = this.conn.all<NodeRow>(
			`SELECT ${NODE_COLS} FROM nodes WHERE ${SCOPE_WHERE}${labelFilter}
			AND COALESCE(json_extract(props, '$.valid_from'), created_at) <= ?
			AND (json_extract(props, '$.valid_to') IS NULL OR json_extract(props, '$.valid_to') >= ?)
			AND NOT (${STATUS_EXPR} = 'archived' AND COALESCE(json_extract(props, '$.archived_at'), updated_at) <= ?)
			ORDER BY label, key_value LIMIT ?`,
			[...scopeParams(scope), ...(query.label ? [query.label] : []), query.at, query.at, query.at, query.limit],
		);
		return rows.map((row) => this.toRecord(row));
	}

	async scopeFootprint(scope: PartialScope): Promise<ScopeFootprint> {
		if (!isFullScope(scope)) return { nodes: 0, edges: 0, fulltext: 0, history: 0, nameIndex: 0 };
		const params = scopeParams(scope);
		const count = (sql: string, extra: readonly SqlValue[] = []) => Number(this.conn.get<{ n: number }>(sql, [...params, ...extra])?.n ?? 0);
		const nodes = count(`SELECT count(*) AS n FROM nodes WHERE ${SCOPE_WHERE}`);
		const fulltext = count(`SELECT count(*) AS n FROM nodes_fts WHERE rowid IN (SELECT id FROM nodes WHERE ${SCOPE_WHERE})`);
		const ownEdges = count("SELECT count(*) AS n FROM edges WHERE org_id = ? AND user_id = ?");
		// Edges stamped with another scope but touching this scope's nodes go too (forgetScope removes them).
		const foreignEdges = count(
			`WITH mine AS (SELECT id FROM nodes WHERE ${SCOPE_WHERE})
			SELECT count(*) AS n FROM edges
			WHERE NOT (COALESCE(org_id, '') = ? AND COALESCE(user_id, '') = ?)
			AND (from_id IN (SELECT id FROM mine) OR to_id IN (SELECT id FROM mine))`,
			params,
		);
		const nameIndex =
			count(`SELECT count(*) AS n FROM node_names WHERE scope = ${SCOPE_NUMBER}`) +
			count(`SELECT count(*) AS n FROM node_name_fragments WHERE scope = ${SCOPE_NUMBER}`);
		const history = count("SELECT count(*) AS n FROM node_history WHERE org_id = ? AND user_id = ?");
		return { nodes, edges: ownEdges + foreignEdges, fulltext, history, nameIndex };
	}

	/** Internal row ids of the given engrama ids (for the vector store on the same file). */
	rowIds(scope: Scope, ids: readonly string[]): Map<string, number> {
		const out = new Map<string, number>();
		for (const id of ids) {
			const row = this.rowById(scope, id);
			if (row) out.set(id, row.id);
		}
		return out;
	}

	// --- Vault sync (issue 3) ---

	async rekeyNode(scope: Scope, id: string, input: RekeyNodeInput): Promise<NodeRecord | null> {
		assertScope(scope);
		return this.atomic(() => {
			const row = this.rowById(scope, id);
			if (!row) return null;
			const holder = this.rowByKey(scope, input.label, input.key);
			if (holder && holder.id !== row.id) {
				throw new ValidationError(`Another ${input.label} is already named "${input.key}"; rename one of them.`, {
					label: input.label,
					key: input.key,
				});
			}
			const props: Record<string, PropValue> = parseProps(row.props);
			if (input.newId !== undefined && input.newId !== props.engrama_id) {
				const taken = this.conn.get<{ id: number }>(`SELECT id FROM nodes WHERE ${ID_EXPR} = ?`, [input.newId]);
				if (taken) throw new ValidationError(`engrama_id ${input.newId} already belongs to another node.`, { id: input.newId });
				this.forgetRowId(props.engrama_id);
				props.engrama_id = input.newId;
			}
			if (input.keyField !== row.key_field) delete props[row.key_field];
			props[input.keyField] = input.key;
			this.conn.run("UPDATE nodes SET label = ?, key_field = ?, key_value = ?, props = ?, updated_at = ? WHERE id = ?", [
				input.label,
				input.keyField,
				input.key,
				JSON.stringify(props),
				input.now,
				row.id,
			]);
			this.writeFts(row.id, props);
			this.indexNames(row.id, scope, input.key, props);
			return this.toRecord({
				...row,
				label: input.label,
				key_field: input.keyField,
				key_value: input.key,
				props: JSON.stringify(props),
				updated_at: input.now,
			});
		});
	}

	async mergeEdges(scope: Scope, inputs: readonly MergeEdgeInput[]): Promise<{ readonly created: number }> {
		assertScope(scope);
		if (inputs.length === 0) return { created: 0 };
		return this.atomic(() => {
			const rows = this.rowIdsOf(scope, inputs.flatMap((i) => [i.fromId, i.toId]));
			for (const input of inputs) {
				if (!rows.has(input.fromId)) throw missingEndpoint("source", input.fromId);
				if (!rows.has(input.toId)) throw missingEndpoint("target", input.toId);
			}
			// New edges (the common case) in one statement, rows passed as one JSON array. Consecutive
			// edges of one source, type and props (a note's USES list, its links) form one group, so
			// each edge row only reads a scalar; the props text of a group is made once.
			const groups: [number | undefined, string, string, string, number, (number | undefined)[]][] = [];
			let lastProps: Props | undefined;
			let last = packEdgeProps({}, scope.orgId, scope.userId);
			for (const input of inputs) {
				const props = input.props ?? {};
				if (props !== lastProps) {
					lastProps = props;
					last = packEdgeProps(props, scope.orgId, scope.userId);
				}
				const from = rows.get(input.fromId);
				const group = groups[groups.length - 1];
				if (group && group[0] === from && group[1] === input.type && group[2] === input.now && group[3] === last.text && group[4] === last.elided) {
					group[5].push(rows.get(input.toId));
				} else groups.push([from, input.type, input.now, last.text, last.elided, [rows.get(input.toId)]]);
			}
			const { changes } = this.conn.run(
				// The groups are read once (MATERIALIZED): referenced from the inner loop, g.value would be
				// rendered and parsed again for every edge.
				`WITH g AS MATERIALIZED (SELECT value->>0 AS f, value->>1 AS ty, value->>2 AS at, value->>3 AS props, value->>4 AS el, value->5 AS tos FROM json_each(?))
				INSERT OR IGNORE INTO edges(from_id, rel_type, to_id, created_at, org_id, user_id, props, elided)
				SELECT g.f, g.ty, t.value, g.at, ?, ?, g.props, g.el FROM g, json_each(g.tos) t`,
				[JSON.stringify(groups), ...scopeParams(scope)],
			);
			if (changes < inputs.length) {
				// Some edges existed (or came twice): merge their props like mergeEdge, in input order. An
				// edge inserted just now gets its own props merged into themselves, which changes nothing.
				for (const input of inputs) {
					if (!input.props || Object.keys(input.props).length === 0) continue;
					const existing = this.conn.get<StoredEdge>(STORED_EDGE, [rows.get(input.fromId) ?? null, input.type, rows.get(input.toId) ?? null]);
					if (existing) this.mergeEdgeProps(existing, input.props);
				}
			}
			return { created: changes };
		});
	}

	/** Row ids of many nodes of the scope by engrama_id (or legacy sqlite-N id), in one statement. */
	private rowIdsOf(scope: Scope, ids: readonly string[]): Map<string, number> {
		const out = new Map<string, number>();
		const wanted: string[] = [];
		for (const id of new Set(ids)) {
			const known = this.knownRows.get(id);
			if (known && known.orgId === scope.orgId && known.userId === scope.userId) {
				out.set(id, known.rowId);
			} else if (/^sqlite-\d+$/.test(id)) {
				const row = this.rowById(scope, id);
				if (row) out.set(id, row.id);
			} else {
				wanted.push(id);
			}
		}
		if (wanted.length === 0) return out;
		// One row back (JSON text): per-row reads across the WASM boundary cost more than the lookups.
		const found = this.conn.get<{ rows: string | null }>(
			`SELECT json_group_array(json_array(j.value, n.id)) AS rows FROM json_each(?) j
			CROSS JOIN nodes n ON ${ID_EXPR.replace("props", "n.props")} = j.value
			WHERE ${SCOPE_WHERE.replaceAll("props", "n.props")}`,
			[JSON.stringify(wanted), ...scopeParams(scope)],
		);
		for (const [id, rowId] of JSON.parse(found?.rows ?? "[]") as [string, number][]) {
			out.set(id, rowId);
			this.rememberRowId(scope, id, rowId);
		}
		return out;
	}

	private rememberRowId(scope: Scope, id: PropValue | undefined, rowId: number): void {
		if (typeof id !== "string") return;
		if (this.knownRows.size >= ROW_ID_CACHE_SIZE) this.knownRows.clear();
		this.knownRows.set(id, { rowId, orgId: scope.orgId, userId: scope.userId });
	}

	private forgetRowId(id: PropValue | undefined): void {
		if (typeof id === "string") this.knownRows.delete(id);
	}

	async listNodeFields(scope: PartialScope, query: ListNodesQuery & { readonly fields: readonly string[] }): Promise<readonly NodeFields[]> {
		if (!isFullScope(scope)) return [];
		const fields = query.fields.filter((f) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(f));
		const { where, params } = listFilter(scope, query);
		// One row back, one JSON text: per-row, per-column reads across the WASM boundary cost more
		// than the query (10k nodes: ≈80 ms instead of ≈300 ms). One multi-path json_extract per row
		// parses props once (with two or more paths it returns a JSON array). Without limit/offset
		// there is no subquery to materialise.
		const paths = ["$.engrama_id", ...fields.map((f) => `$.${f}`)].map((p) => `'${p}'`).join(", ");
		const paged = query.limit !== undefined || query.offset !== undefined;
		if (paged) params.push(query.limit ?? -1, query.offset ?? 0);
		const row = this.conn.get<{ rows: string | null }>(
			paged
				? `SELECT json_group_array(json_array(id, label, key_value, json(v)) ORDER BY id) AS rows
				FROM (SELECT id, label, key_value, json_extract(props, ${paths}) AS v FROM nodes WHERE ${where.join(" AND ")} ORDER BY id LIMIT ? OFFSET ?)`
				: `SELECT json_group_array(json_array(id, label, key_value, json_extract(props, ${paths})) ORDER BY id) AS rows
				FROM nodes WHERE ${where.join(" AND ")}`,
			params,
		);
		const list = JSON.parse(row?.rows ?? "[]") as [number, string, string, PropValue[]][];
		return list.map(([rowId, label, key, values]) => ({
			id: typeof values[0] === "string" ? values[0] : `sqlite-${rowId}`,
			label,
			key,
			fields: Object.fromEntries(fields.map((f, i) => [f, values[i + 1] === null ? undefined : values[i + 1]])),
		}));
	}

	// --- Reflect (issue 6): the detectors' SQL lives in sqlite-reflect-queries.ts ---

	async reflectRows<D extends ReflectDetectorId>(scope: PartialScope, detector: D, params: ReflectParams): Promise<readonly ReflectRowMap[D][]> {
		return sqliteReflectRows(this.conn, scope, detector, params);
	}

	// --- Search (issue 4): the graph rerank reads many neighbour lists in one statement ---

	private forgetAdjacency(): void {
		this.adjacencyCache.clear();
		this.neighbourCache.clear();
	}

	/** Neighbour lists (cached until the next write; see adjacencyCache), the missing ones read in one statement. */
	async adjacency(scope: PartialScope, ids: readonly string[], cap: number): Promise<ReadonlyMap<string, Adjacency>> {
		const out = new Map<string, Adjacency>();
		if (!isFullScope(scope) || ids.length === 0) return out;
		const cacheKey = (id: string) => `${scope.orgId}\u0000${scope.userId}\u0000${cap}\u0000${id}`;
		const missing: string[] = [];
		for (const id of new Set(ids)) {
			const cached = this.adjacencyCache.get(cacheKey(id));
			if (cached) out.set(id, cached);
			else missing.push(id);
		}
		if (missing.length === 0) return out;
		if (this.adjacencyCache.size + missing.length > ADJACENCY_CACHE_SIZE) this.forgetAdjacency();
		for (const [id, adjacency] of this.readAdjacency(scope, missing, cap)) {
			this.adjacencyCache.set(cacheKey(id), adjacency);
			out.set(id, adjacency);
		}
		return out;
	}

	private readAdjacency(scope: Scope, ids: readonly string[], cap: number): Map<string, { degree: number; neighbours: AdjacentNode[] }> {
		const out = new Map<string, { degree: number; neighbours: AdjacentNode[] }>();
		const limit = Math.max(1, cap) + 1;
		const marks = (n: number) => Array.from({ length: n }, () => "?").join(", ");
		const candidates = [...this.rowIds(scope, ids)];
		if (candidates.length === 0) return out;
		// Archived nodes are never walked: they have no neighbours here.
		const live = new Set(
			this.conn
				.all<{ id: number }>(`SELECT id FROM nodes WHERE id IN (${marks(candidates.length)}) AND ${LIVE}`, candidates.map(([, row]) => row))
				.map((r) => r.id),
		);
		const rowToId = new Map(candidates.filter(([, row]) => live.has(row)).map(([id, row]) => [row, id]));
		const rows = [...rowToId.keys()];
		if (rows.length === 0) return out;
		// Each source's first cap + 1 relations (both directions) and its relation count. The unary
		// "+" keeps the planner on the from_id/to_id indexes instead of scanning the scope's edges.
		const links = this.conn.all<{ src: number; other: number; total: number }>(
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
			const cached = this.neighbourCache.get(`${limit}:${other}`);
			if (cached) info.set(other, cached);
			else others.push(other);
		}
		for (let start = 0; start < others.length; start += 500) {
			const batch = others.slice(start, start + 500);
			const found = this.conn.all<{ id: number; eid: string; label: string; key: string; degree: number }>(
				`SELECT n.id AS id, COALESCE(${ID_EXPR.replace("props", "n.props")}, 'sqlite-' || n.id) AS eid, n.label AS label, n.key_value AS key,
					(SELECT count(*) FROM (SELECT 1 FROM edges WHERE from_id = n.id LIMIT ?)) + (SELECT count(*) FROM (SELECT 1 FROM edges WHERE to_id = n.id LIMIT ?)) AS degree
				FROM nodes n WHERE n.id IN (${marks(batch.length)}) AND ${LIVE.replace("props", "n.props")}`,
				[limit, limit, ...batch],
			);
			for (const f of found) {
				const neighbour = { id: f.eid, label: f.label, key: f.key, degree: Math.min(Number(f.degree), limit) };
				info.set(f.id, neighbour);
				this.neighbourCache.set(`${limit}:${f.id}`, neighbour);
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
}

// The name index's read bounds (shared with every backend, see NAME_INDEX_LIMITS).
const POSTINGS_PER_FRAGMENT = NAME_INDEX_LIMITS.postingsPerFragment;
const LENGTH_WINDOW_LOW = NAME_INDEX_LIMITS.lengthWindowLow;
const LENGTH_WINDOW_HIGH = NAME_INDEX_LIMITS.lengthWindowHigh;

/** The engrama_id or the scope of a node changed (the row id cache must forget it). */
function identityChanged(before: Props, after: Props): boolean {
	return before.engrama_id !== after.engrama_id || before.org_id !== after.org_id || before.user_id !== after.user_id;
}

function missingEndpoint(role: string, id: string): NotFoundError {
	return new NotFoundError(`The relation's ${role} node ${id} does not exist in this scope.`, { id });
}

/** A new node's props: setOnCreate, then set, then identity and scope; `unset` removed. */
function createdProps(scope: Scope, input: MergeNodeInput): Record<string, PropValue> {
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

/** A node's values for the FTS columns; text props outside them go into body. */
function ftsValues(props: Props): (string | null)[] {
	const extra: string[] = [];
	// Text props outside the Python FTS columns still deserve to be found: they go into body.
	for (const [name, value] of Object.entries(props)) {
		if ((FTS_COLUMNS as readonly string[]).includes(name)) continue;
		if (typeof value === "string" && value.length > 0 && !isSystemish(name)) extra.push(value);
	}
	return FTS_COLUMNS.map((column) => {
		const text = ftsText(props[column]);
		if (column === "body" && extra.length > 0) return [text, ...extra].filter(Boolean).join("\n");
		return text;
	});
}

/** [row id, normalised name] for each name a node is found by (see indexedNames). */
type NameRow = readonly [number, string];

function nameRows(rowId: number, key: string, props: Props): NameRow[] {
	return indexedNames(key, props).map((norm) => [rowId, norm]);
}

function touchesNames(set: Props, unset: readonly string[] | undefined): boolean {
	return "aliases" in set || (unset ?? []).includes("aliases");
}

function parseValue(text: string | null): PropValue {
	if (text === null) return null;
	try {
		return JSON.parse(text) as PropValue;
	} catch {
		return text;
	}
}

function assertScope(scope: Scope): void {
	if (!isFullScope(scope)) throw new ScopeError("Writes need a full scope (org_id and user_id).");
}

function stripColumns(props: Props): Record<string, PropValue> {
	const out: Record<string, PropValue> = {};
	for (const [name, value] of Object.entries(props)) if (!COLUMN_PROPS.has(name)) out[name] = value;
	return out;
}

function isSystemish(name: string): boolean {
	return NOT_SEARCHED.has(name);
}
