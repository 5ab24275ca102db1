import neo4j from "neo4j-driver";
import { ScopeError } from "../../engine/errors";
import type { ListNodesQuery } from "../../engine/backend-kit";
import { isFullScope } from "../../engine/backend-kit";
import type { NodeRecord, PropValue, Props, Scope } from "../../engine/types";
import { JSON_MARKER, decodeProps, decodeValue, encodeName, encodeValue } from "./props-codec";
import { NODE_LABEL, nodeProjection } from "./schema";

/** Cypher fragments and row helpers every role module of the Neo4j store shares (no state: that lives in context.ts). */

export type StoredMap = Readonly<Record<string, unknown>>;

export const N = nodeProjection("n");

export const OTHER = nodeProjection("other");

export const SCOPE = "n.__ns = $ns AND n.org_id = $org AND n.user_id = $user";

export const LIVE = "coalesce(n.status, '') <> 'archived'";

export const EDGE_SCOPE = "r.__org = $org AND r.__user = $user";

export const SIDE_SCOPE = (v: string) => `${v}.__ns = $ns AND ${v}.org_id = $org AND ${v}.user_id = $user`;

export const NULL_MARKER = `${JSON_MARKER}null`;

/** A prop read as SQLite's json_extract sees it: a stored JSON null counts as absent. */
export const sqlValue = (expr: string) => `CASE WHEN ${expr} = $nullMarker THEN null ELSE ${expr} END`;

export const BY_ID = `(n:${NODE_LABEL} {__ns: $ns, engrama_id: $id})`;

// Stored as the node's own timestamps, never duplicated in props (as SQLite's columns).
export const COLUMN_PROPS = new Set(["created_at", "updated_at"]);

let lastSeq = 0;
/** Insertion order across processes (microsecond clock, strictly increasing in this one). */
export function nextSeq(): number {
	lastSeq = Math.max(lastSeq + 1, Date.now() * 1000);
	return lastSeq;
}

export function int(value: number): ReturnType<typeof neo4j.int> {
	return neo4j.int(Math.max(0, Math.floor(value)));
}

export function stripColumns(props: Props): Record<string, PropValue> {
	const out: Record<string, PropValue> = {};
	for (const [name, value] of Object.entries(props)) if (!COLUMN_PROPS.has(name)) out[name] = value;
	return out;
}

export function toRecord(map: StoredMap): NodeRecord {
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

/** The WHERE of listNodes / listNodeFields: scope, label, status or live, string-prop equality. */
export function listFilter(query: ListNodesQuery): { where: string; params: Record<string, unknown> } {
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

export function parseJson(value: unknown): PropValue {
	if (typeof value !== "string") return null;
	try {
		return JSON.parse(value) as PropValue;
	} catch {
		return decodeValue(value);
	}
}

export function assertScope(scope: Scope): void {
	if (!isFullScope(scope)) throw new ScopeError("Writes need a full scope (org_id and user_id).");
}
