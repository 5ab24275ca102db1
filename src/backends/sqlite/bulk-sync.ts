import { ValidationError } from "../../engine/errors";
import type { ListNodesQuery, MergeEdgeInput, MergeNodeInput, MergeNodeResult, MergeNodesOptions, NodeFields, RekeyNodeInput } from "../../engine/backend-kit";
import { isFullScope } from "../../engine/backend-kit";
import type { NodeRecord, PartialScope, PropValue, Props, Scope } from "../../engine/types";
import type { SqliteStoreContext } from "./store-context";
import { STORED_EDGE, packEdgeProps, type StoredEdge } from "./edge-props";
import { mergeEdgeProps, notePathsOf } from "./edges";
import { FTS_COLUMNS, ID_EXPR } from "./schema";
import { ftsValues } from "./fts-values";
import { writeFts } from "./fulltext";
import { indexNames, insertNames, nameRows, type NameRow } from "./names-history";
import { createdProps, createdRecord, mergeNodeNow } from "./nodes";
import { SCOPE_WHERE, assertScope, listFilter, missingEndpoint, parseProps, scopeParams, toRecord } from "./rows";

/** What a vault sync needs beyond one-at-a-time writes (BulkSyncStore): re-identify, many writes in one unit, narrow reads. */

export async function rekeyNode(ctx: SqliteStoreContext, scope: Scope, id: string, input: RekeyNodeInput): Promise<NodeRecord | null> {
	assertScope(scope);
	return ctx.atomic(() => {
		const row = ctx.rowById(scope, id);
		if (!row) return null;
		const holder = ctx.rowByKey(scope, input.label, input.key);
		if (holder && holder.id !== row.id) {
			throw new ValidationError(`Another ${input.label} is already named "${input.key}"; rename one of them.`, {
				label: input.label,
				key: input.key,
			});
		}
		const props: Record<string, PropValue> = parseProps(row.props);
		if (input.newId !== undefined && input.newId !== props.engrama_id) {
			const taken = ctx.conn.get<{ id: number }>(`SELECT id FROM nodes WHERE ${ID_EXPR} = ?`, [input.newId]);
			if (taken) throw new ValidationError(`engrama_id ${input.newId} already belongs to another node.`, { id: input.newId });
			ctx.forgetRowId(props.engrama_id);
			props.engrama_id = input.newId;
		}
		if (input.keyField !== row.key_field) delete props[row.key_field];
		props[input.keyField] = input.key;
		ctx.conn.run("UPDATE nodes SET label = ?, key_field = ?, key_value = ?, props = ?, updated_at = ? WHERE id = ?", [
			input.label,
			input.keyField,
			input.key,
			JSON.stringify(props),
			input.now,
			row.id,
		]);
		writeFts(ctx, row.id, props);
		indexNames(ctx, row.id, scope, input.key, props);
		return toRecord({
			...row,
			label: input.label,
			key_field: input.keyField,
			key_value: input.key,
			props: JSON.stringify(props),
			updated_at: input.now,
		});
	});
}

/**
 * engrama_meta key: the first node row id whose fulltext and name rows a bulk load
 * (`deferIndexes`) left to `buildDeferredIndexes`. Written in the transaction that writes the
 * nodes, removed in the one that indexes the last of them: while it is there, opening the store
 * finishes the job.
 */
export const DEFERRED_INDEXES_META = "indexes_pending_from";

/**
 * Many merges as one unit. When every input is a new node (the bulk of a full vault sync) the
 * nodes, their fulltext rows and their name index are written with one statement each (rows
 * passed as one JSON array), or with `deferIndexes` only the nodes (the rest is left to
 * `buildDeferredIndexes`); otherwise input by input, exactly like mergeNode.
 */
export async function mergeNodes(ctx: SqliteStoreContext, scope: Scope, inputs: readonly MergeNodeInput[], options: MergeNodesOptions = {}): Promise<readonly MergeNodeResult[]> {
	assertScope(scope);
	if (inputs.length === 0) return [];
	return ctx.atomic(() => {
		const identities = inputs.map((i) => [i.label, i.key]);
		let allNew = new Set(identities.map(([label, key]) => `${label}\u0000${key}`)).size === inputs.length;
		if (allNew) {
			const found = ctx.conn.get<{ n: number }>(
				`SELECT count(*) AS n FROM json_each(?) j CROSS JOIN nodes n ON n.label = j.value->>0 AND n.key_value = j.value->>1
				WHERE ${SCOPE_WHERE.replaceAll("props", "n.props")}`,
				[JSON.stringify(identities), ...scopeParams(scope)],
			);
			allNew = Number(found?.n ?? 0) === 0;
		}
		if (!allNew) return inputs.map((input) => mergeNodeNow(ctx, scope, input));
		const texts = inputs.map((input) => JSON.stringify(createdProps(scope, input)));
		const inserted = ctx.conn.all<{ id: number; label: string; key_value: string }>(
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
			const node = createdRecord(rowId, input, texts[i]);
			ctx.rememberRowId(scope, node.props.engrama_id, rowId);
			if (!options.deferIndexes) {
				fts.push([rowId, ...ftsValues(node.props)]);
				names.push(...nameRows(rowId, input.key, node.props));
			}
			return { node, created: true };
		});
		if (options.deferIndexes) {
			// The first deferred row id stays (OR IGNORE); ids only grow, so every later one is above it.
			ctx.conn.run("INSERT OR IGNORE INTO engrama_meta(key, value) VALUES (?, ?)", [DEFERRED_INDEXES_META, String(inserted.reduce((min, r) => Math.min(min, r.id), Infinity))]);
			return results;
		}
		ctx.conn.run(
			`WITH r AS MATERIALIZED (SELECT value AS v FROM json_each(?))
			INSERT INTO nodes_fts(rowid, ${FTS_COLUMNS.join(", ")}) SELECT v->>0, ${FTS_COLUMNS.map((_, i) => `v->>${i + 1}`).join(", ")} FROM r`,
			[JSON.stringify(fts)],
		);
		insertNames(ctx, scope, names);
		return results;
	});
}

/**
 * Fulltext rows and name index for up to `limit` nodes from the deferred mark on (those that have
 * none yet: a node written since by mergeNode or updated has its own), as one unit; moves the mark
 * past them, or removes it after the last. True while nodes remain. Rows are read back from the
 * table, so what is indexed is what is stored, also after a crash.
 */
export function buildDeferredIndexes(ctx: SqliteStoreContext, limit: number): boolean {
	const mark = ctx.conn.get<{ value: string }>("SELECT value FROM engrama_meta WHERE key = ?", [DEFERRED_INDEXES_META]);
	if (!mark) return false;
	return ctx.atomic(() => {
		// One row back (JSON text): per-row reads across the WASM boundary cost more than the query.
		const found = ctx.conn.get<{ rows: string | null }>(
			`SELECT json_group_array(json_array(id, key_value, json(props),
				EXISTS (SELECT 1 FROM nodes_fts f WHERE f.rowid = n.id), EXISTS (SELECT 1 FROM node_names nn WHERE nn.node_id = n.id)) ORDER BY id) AS rows
			FROM (SELECT id, key_value, props FROM nodes WHERE id >= ? ORDER BY id LIMIT ?) n`,
			[Number(mark.value), Math.max(1, limit)],
		);
		const rows = JSON.parse(found?.rows ?? "[]") as [number, string, Props, number, number][];
		const fts: unknown[] = [];
		const names = new Map<string, { scope: Scope; rows: NameRow[] }>();
		for (const [rowId, key, props, hasFts, hasNames] of rows) {
			if (!hasFts) fts.push([rowId, ...ftsValues(props)]);
			if (hasNames) continue;
			const scope = { orgId: typeof props.org_id === "string" ? props.org_id : "", userId: typeof props.user_id === "string" ? props.user_id : "" };
			const group = names.get(`${scope.orgId}\u0000${scope.userId}`) ?? { scope, rows: [] };
			group.rows.push(...nameRows(rowId, key, props));
			names.set(`${scope.orgId}\u0000${scope.userId}`, group);
		}
		if (fts.length > 0) {
			ctx.conn.run(
				`WITH r AS MATERIALIZED (SELECT value AS v FROM json_each(?))
				INSERT INTO nodes_fts(rowid, ${FTS_COLUMNS.join(", ")}) SELECT v->>0, ${FTS_COLUMNS.map((_, i) => `v->>${i + 1}`).join(", ")} FROM r`,
				[JSON.stringify(fts)],
			);
		}
		for (const group of names.values()) insertNames(ctx, group.scope, group.rows);
		const last = rows[rows.length - 1];
		if (rows.length < limit || !last) ctx.conn.run("DELETE FROM engrama_meta WHERE key = ?", [DEFERRED_INDEXES_META]);
		else ctx.conn.run("UPDATE engrama_meta SET value = ? WHERE key = ?", [String(last[0] + 1), DEFERRED_INDEXES_META]);
		return rows.length >= limit && !!last;
	});
}

export async function mergeEdges(ctx: SqliteStoreContext, scope: Scope, inputs: readonly MergeEdgeInput[]): Promise<{ readonly created: number }> {
	assertScope(scope);
	if (inputs.length === 0) return { created: 0 };
	return ctx.atomic(() => {
		const rows = rowIdsOf(ctx, scope, inputs.flatMap((i) => [i.fromId, i.toId]));
		for (const input of inputs) {
			if (!rows.has(input.fromId)) throw missingEndpoint("source", input.fromId);
			if (!rows.has(input.toId)) throw missingEndpoint("target", input.toId);
		}
		// New edges (the common case) in one statement, rows passed as one JSON array. Consecutive
		// edges of one source, type and props (a note's USES list, its links) form one group, so
		// each edge row only reads a scalar; the props text of a group is made once.
		const groups: [number | undefined, string, string, string, number, (number | undefined)[]][] = [];
		let lastProps: Props | undefined;
		let lastFrom: number | undefined;
		let last = packEdgeProps({}, scope.orgId, scope.userId);
		// Sources' note paths, for the note_path a packing may leave out (edge-props.ts).
		const paths = notePathsOf(ctx, inputs.filter((i) => typeof i.props?.note_path === "string").map((i) => rows.get(i.fromId) ?? 0));
		for (const input of inputs) {
			const props = input.props ?? {};
			const from = rows.get(input.fromId);
			if (props !== lastProps || from !== lastFrom) {
				lastProps = props;
				lastFrom = from;
				last = packEdgeProps(props, scope.orgId, scope.userId, from === undefined ? undefined : paths.get(from));
			}
			const group = groups[groups.length - 1];
			if (group && group[0] === from && group[1] === input.type && group[2] === input.now && group[3] === last.text && group[4] === last.elided) {
				group[5].push(rows.get(input.toId));
			} else groups.push([from, input.type, input.now, last.text, last.elided, [rows.get(input.toId)]]);
		}
		const { changes } = ctx.conn.run(
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
				const existing = ctx.conn.get<StoredEdge>(STORED_EDGE, [rows.get(input.fromId) ?? null, input.type, rows.get(input.toId) ?? null]);
				if (existing) mergeEdgeProps(ctx, existing, input.props);
			}
		}
		return { created: changes };
	});
}

/** Row ids of many nodes of the scope by engrama_id (or legacy sqlite-N id), in one statement. */
export function rowIdsOf(ctx: SqliteStoreContext, scope: Scope, ids: readonly string[]): Map<string, number> {
	const out = new Map<string, number>();
	const wanted: string[] = [];
	for (const id of new Set(ids)) {
		const known = ctx.knownRows.get(id);
		if (known && known.orgId === scope.orgId && known.userId === scope.userId) {
			out.set(id, known.rowId);
		} else if (/^sqlite-\d+$/.test(id)) {
			const row = ctx.rowById(scope, id);
			if (row) out.set(id, row.id);
		} else {
			wanted.push(id);
		}
	}
	if (wanted.length === 0) return out;
	// One row back (JSON text): per-row reads across the WASM boundary cost more than the lookups.
	const found = ctx.conn.get<{ rows: string | null }>(
		`SELECT json_group_array(json_array(j.value, n.id)) AS rows FROM json_each(?) j
		CROSS JOIN nodes n ON ${ID_EXPR.replace("props", "n.props")} = j.value
		WHERE ${SCOPE_WHERE.replaceAll("props", "n.props")}`,
		[JSON.stringify(wanted), ...scopeParams(scope)],
	);
	for (const [id, rowId] of JSON.parse(found?.rows ?? "[]") as [string, number][]) {
		out.set(id, rowId);
		ctx.rememberRowId(scope, id, rowId);
	}
	return out;
}

export async function listNodeFields(ctx: SqliteStoreContext, scope: PartialScope, query: ListNodesQuery & { readonly fields: readonly string[] }): Promise<readonly NodeFields[]> {
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
	const row = ctx.conn.get<{ rows: string | null }>(
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
