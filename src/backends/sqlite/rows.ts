import { NotFoundError, ScopeError } from "../../engine/errors";
import type { ListNodesQuery } from "../../engine/backend-kit";
import { isFullScope } from "../../engine/backend-kit";
import type { NodeRecord, PropValue, Props, Scope } from "../../engine/types";
import { STATUS_EXPR, ORG_EXPR, USER_EXPR, type NodeRow } from "./schema";
import type { SqlValue } from "./sqlite-connection";

/** Row helpers every role module of the SQLite store shares (no state: that lives in context.ts). */

export const SCOPE_WHERE = `${ORG_EXPR} = ? AND ${USER_EXPR} = ?`;

export const LIVE = `${STATUS_EXPR} != 'archived'`;

export const NODE_COLS = "id, label, key_field, key_value, props, created_at, updated_at";

// Column stored as the row's own timestamp, never duplicated in props.
export const COLUMN_PROPS = new Set(["created_at", "updated_at"]);

export function parseProps(text: string | null): Record<string, PropValue> {
	if (!text) return {};
	try {
		const value: unknown = JSON.parse(text);
		return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, PropValue>) : {};
	} catch {
		return {};
	}
}

export function scopeParams(scope: Scope): [string, string] {
	return [scope.orgId, scope.userId];
}

/** The WHERE terms of a node listing (scope, label, status or live only, exact prop matches). */
export function listFilter(scope: Scope, query: ListNodesQuery): { where: string[]; params: SqlValue[] } {
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

export function assertScope(scope: Scope): void {
	if (!isFullScope(scope)) throw new ScopeError("Writes need a full scope (org_id and user_id).");
}

export function stripColumns(props: Props): Record<string, PropValue> {
	const out: Record<string, PropValue> = {};
	for (const [name, value] of Object.entries(props)) if (!COLUMN_PROPS.has(name)) out[name] = value;
	return out;
}

export function missingEndpoint(role: string, id: string): NotFoundError {
	return new NotFoundError(`The relation's ${role} node ${id} does not exist in this scope.`, { id });
}

/** The engrama_id or the scope of a node changed (the row id cache must forget it). */
export function identityChanged(before: Props, after: Props): boolean {
	return before.engrama_id !== after.engrama_id || before.org_id !== after.org_id || before.user_id !== after.user_id;
}

export function parseValue(text: string | null): PropValue {
	if (text === null) return null;
	try {
		return JSON.parse(text) as PropValue;
	} catch {
		return text;
	}
}

export function toRecord(row: NodeRow): NodeRecord {
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
