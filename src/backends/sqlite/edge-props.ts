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
 * Where the left-out keys go back: as one provenance block in the order the engine writes it
 * (write-pipeline `provenance()`), where the first stored provenance key is, else at the end (the
 * engine writes the block after the edge's own props), so a read gives the JSON that was written.
 */
const PROVENANCE_ORDER: readonly string[] = ["org_id", "user_id", "source", "source_agent", "source_session", "trust_level"];

/** An edge row as a props merge reads it: `STORED_EDGE` by (from_id, rel_type, to_id). */
export interface StoredEdge {
	id: number;
	props: string | null;
	elided: number;
	org_id: string | null;
	user_id: string | null;
}

export const STORED_EDGE = "SELECT id, props, elided, org_id, user_id FROM edges WHERE from_id = ? AND rel_type = ? AND to_id = ?";

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
	let placed = false;
	const block = () => {
		placed = true;
		for (const name of PROVENANCE_ORDER) {
			if (name in restored) out[name] = restored[name];
			else if (name in stored) out[name] = stored[name];
		}
	};
	for (const [name, value] of Object.entries(stored)) {
		if (!PROVENANCE_ORDER.includes(name)) out[name] = value;
		else if (!placed) block();
	}
	if (!placed) block();
	return out;
}
