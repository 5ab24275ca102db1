import type { PropValue, Props } from "../../engine/types";

/**
 * Neo4j stores scalars and homogeneous lists of scalars, never null or maps, so props are
 * encoded to round-trip exactly as they do on SQLite's JSON column:
 * - strings, finite numbers, booleans and homogeneous (or empty) lists are stored natively;
 * - null, maps, mixed or nested lists become a JSON string behind JSON_MARKER, and so does any
 *   string that itself starts with the marker (so decoding is never ambiguous).
 * Internal properties start with "__"; a user prop with a reserved name is stored as "__p_" + name.
 */
export const JSON_MARKER = "\u0000json:";

/** Node properties the store owns (never part of NodeRecord.props). */
export const INTERNAL_PREFIX = "__";
export const ESCAPED_PREFIX = "__p_";
const RESERVED = new Set(["embedding", "created_at", "updated_at"]);

export type StoredValue = string | number | boolean | readonly string[] | readonly number[] | readonly boolean[];

export function encodeName(name: string): string {
	return name.startsWith(INTERNAL_PREFIX) || RESERVED.has(name) ? `${ESCAPED_PREFIX}${name}` : name;
}

/** The user-visible name of a stored property, or null for internal ones. */
export function decodeName(stored: string): string | null {
	if (stored.startsWith(ESCAPED_PREFIX)) return stored.slice(ESCAPED_PREFIX.length);
	if (stored.startsWith(INTERNAL_PREFIX) || RESERVED.has(stored)) return null;
	return stored;
}

function homogeneous(list: readonly PropValue[]): boolean {
	if (list.length === 0) return true;
	const kind = typeof list[0];
	if (kind !== "string" && kind !== "number" && kind !== "boolean") return false;
	return list.every((item) => typeof item === kind && (kind !== "string" || !(item as string).startsWith(JSON_MARKER)));
}

export function encodeValue(value: PropValue): StoredValue {
	if (typeof value === "string") return value.startsWith(JSON_MARKER) ? JSON_MARKER + JSON.stringify(value) : value;
	if (typeof value === "boolean") return value;
	if (typeof value === "number" && Number.isFinite(value)) return value;
	if (Array.isArray(value) && homogeneous(value)) return value as StoredValue;
	return JSON_MARKER + JSON.stringify(value);
}

export function decodeValue(stored: unknown): PropValue {
	if (typeof stored === "string") {
		if (!stored.startsWith(JSON_MARKER)) return stored;
		try {
			return JSON.parse(stored.slice(JSON_MARKER.length)) as PropValue;
		} catch {
			return stored;
		}
	}
	if (typeof stored === "number" || typeof stored === "boolean") return stored;
	if (Array.isArray(stored)) return stored.map((item) => decodeValue(item));
	if (stored === null || stored === undefined) return null;
	// Values written by other tools (temporal, spatial, Integer objects) keep their text form.
	return typeof stored === "object" && "toString" in stored ? (stored as { toString(): string }).toString() : JSON.stringify(stored);
}

/** Props → a map for `SET n += $map`; names in `unset` map to null, which removes them. */
export function encodeProps(props: Props, unset: readonly string[] = []): Record<string, StoredValue | null> {
	const out: Record<string, StoredValue | null> = {};
	for (const [name, value] of Object.entries(props)) out[encodeName(name)] = encodeValue(value);
	for (const name of unset) out[encodeName(name)] = null;
	return out;
}

/** A stored property map → Props, dropping internal properties and nulls (never stored). */
export function decodeProps(stored: Readonly<Record<string, unknown>>): Record<string, PropValue> {
	const out: Record<string, PropValue> = {};
	for (const [storedName, value] of Object.entries(stored)) {
		if (value === null || value === undefined) continue;
		const name = decodeName(storedName);
		if (name !== null) out[name] = decodeValue(value);
	}
	return out;
}
