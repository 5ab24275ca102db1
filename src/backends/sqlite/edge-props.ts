import type { PropValue, Props } from "../../engine/types";

/**
 * Schema 9 stores an edge's props without what every edge the engine writes repeats: its scope
 * (already in the row's org_id / user_id columns) and null provenance (`source_agent`,
 * `source_session`). `edges.elided` says which were left out, so a read gives back exactly the
 * props that were written: nothing is guessed for edges another reader wrote (elided 0).
 */
export const ELIDED_SCOPE = 1;
export const ELIDED_AGENT = 2;
export const ELIDED_SESSION = 4;

/**
 * Where the left-out keys go back: the engine's provenance block, in the order it writes it
 * (write-pipeline `provenance()`), after the edge's own props, so a read is byte-for-byte the
 * JSON it wrote.
 */
const PROVENANCE_ORDER = ["org_id", "user_id", "source", "source_agent", "source_session", "trust_level"] as const;

export interface PackedEdgeProps {
	readonly text: string;
	readonly elided: number;
}

/** The stored form of an edge's props in a row whose scope columns are `orgId` / `userId`. */
export function packEdgeProps(props: Props, orgId: string | null, userId: string | null): PackedEdgeProps {
	let elided = 0;
	if (typeof props.org_id === "string" && props.org_id === orgId && typeof props.user_id === "string" && props.user_id === userId) {
		elided |= ELIDED_SCOPE;
	}
	if ("source_agent" in props && props.source_agent === null) elided |= ELIDED_AGENT;
	if ("source_session" in props && props.source_session === null) elided |= ELIDED_SESSION;
	if (elided === 0) return { text: JSON.stringify(props), elided };
	const kept: Record<string, PropValue> = {};
	for (const [name, value] of Object.entries(props)) {
		if ((elided & ELIDED_SCOPE && (name === "org_id" || name === "user_id")) || (elided & ELIDED_AGENT && name === "source_agent") || (elided & ELIDED_SESSION && name === "source_session")) {
			continue;
		}
		kept[name] = value;
	}
	return { text: JSON.stringify(kept), elided };
}

/** An edge's props as written, from its stored form and its row's scope columns. */
export function unpackEdgeProps(stored: Record<string, PropValue>, elided: number, orgId: string | null, userId: string | null): Record<string, PropValue> {
	if (!elided) return stored;
	const restored: Record<string, PropValue> = {};
	if (elided & ELIDED_SCOPE) {
		restored.org_id = orgId;
		restored.user_id = userId;
	}
	if (elided & ELIDED_AGENT) restored.source_agent = null;
	if (elided & ELIDED_SESSION) restored.source_session = null;
	const out: Record<string, PropValue> = {};
	for (const [name, value] of Object.entries(stored)) if (!(PROVENANCE_ORDER as readonly string[]).includes(name)) out[name] = value;
	for (const name of PROVENANCE_ORDER) {
		if (name in restored) out[name] = restored[name];
		else if (name in stored) out[name] = stored[name];
	}
	return out;
}
