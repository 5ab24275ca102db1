import type { PropValue, Props } from "../../engine/types";

/**
 * Edge props are stored without what almost every edge repeats; `edges.elided` says what was left
 * out, so a read gives back exactly the props that were written (key order included): nothing is
 * guessed for edges another reader wrote (elided 0).
 * Schema 9: the scope (already in the row's org_id / user_id columns) and null provenance
 * (`source_agent`, `source_session`).
 * Schema 10: the source (a code in bits 6–8), a trust level equal to its source's default, a
 * note's `origin: "note"`, and a `note_path` equal to the source node's `obsidian_path` (a sync
 * edge's 100 bytes of props → 2). A trigger (NOTE_PATH_TRIGGERS) writes the path back into those
 * edges before the node's path changes, whoever changes it.
 */
export const ELIDED_SCOPE = 1;
export const ELIDED_AGENT = 2;
export const ELIDED_SESSION = 4;
export const ELIDED_TRUST = 8;
export const ELIDED_ORIGIN = 16;
export const ELIDED_NOTE_PATH = 32;
const SOURCE_SHIFT = 6;
const SOURCE_MASK = 7 << SOURCE_SHIFT;
const V9_BITS = ELIDED_SCOPE | ELIDED_AGENT | ELIDED_SESSION;

/**
 * Part of the file format (schema 10), not the engine's settings: a stored code always means
 * these, even if the engine's trust levels change (write-pipeline TRUST_LEVELS).
 */
const SOURCES: readonly string[] = ["", "sync", "cli", "sdk", "mcp"];
const DEFAULT_TRUST: Readonly<Record<string, number>> = { sync: 1, cli: 1, sdk: 0.8, mcp: 0.5 };
/** The origin of a note's own edges (sync note-edges NOTE_ORIGIN). */
const NOTE_ORIGIN = "note";

/**
 * Where the left-out keys go back: a note's `origin` and `note_path` first (sync writes them before
 * the provenance), then the stored keys, with the provenance as one block in the order the engine
 * writes it (write-pipeline `provenance()`) where the first stored provenance key is, else at the
 * end. A packing is kept only if this gives the written JSON back (packEdgeProps checks).
 */
const PROVENANCE_ORDER: readonly string[] = ["org_id", "user_id", "source", "source_agent", "source_session", "trust_level"];

/** An edge row as a props merge reads it: `STORED_EDGE` by (from_id, rel_type, to_id). */
export interface StoredEdge {
	id: number;
	props: string | null;
	elided: number;
	org_id: string | null;
	user_id: string | null;
	/** The source node's obsidian_path (what an elided note_path is). */
	from_path: PropValue | undefined;
}

export const STORED_EDGE = `SELECT e.id, e.props, e.elided, e.org_id, e.user_id, json_extract(n.props, '$.obsidian_path') AS from_path
	FROM edges e JOIN nodes n ON n.id = e.from_id WHERE e.from_id = ? AND e.rel_type = ? AND e.to_id = ?`;

/** The bit that says note_path was left out, for SQL (the trigger, the migration). */
export const NOTE_PATH_BIT = ELIDED_NOTE_PATH;

/**
 * Keeps an elided note_path true when its node's path changes or goes, and when an edge moves to
 * another source node (the Python engrama may do either): the path is written back into the edge's
 * props first, in front (where a read puts it). Only the bit's edges are touched.
 */
export const NOTE_PATH_TRIGGERS = `
CREATE TRIGGER IF NOT EXISTS engrama_note_path_node AFTER UPDATE OF props ON nodes
WHEN IIF(json_valid(OLD.props), json_extract(OLD.props, '$.obsidian_path'), NULL) IS NOT IIF(json_valid(NEW.props), json_extract(NEW.props, '$.obsidian_path'), NULL)
BEGIN
	UPDATE edges SET elided = elided & ~${ELIDED_NOTE_PATH},
		props = '{"note_path":' || json_quote(json_extract(OLD.props, '$.obsidian_path')) || IIF(props = '{}', '}', ',' || substr(props, 2))
	WHERE from_id = NEW.id AND (elided & ${ELIDED_NOTE_PATH}) != 0;
END;
CREATE TRIGGER IF NOT EXISTS engrama_note_path_edge AFTER UPDATE OF from_id ON edges
WHEN OLD.from_id != NEW.from_id AND (OLD.elided & ${ELIDED_NOTE_PATH}) != 0
BEGIN
	UPDATE edges SET elided = elided & ~${ELIDED_NOTE_PATH},
		props = '{"note_path":' || json_quote((SELECT json_extract(props, '$.obsidian_path') FROM nodes WHERE id = OLD.from_id))
			|| IIF(props = '{}', '}', ',' || substr(props, 2))
	WHERE id = NEW.id;
END;
`;

export interface PackedEdgeProps {
	readonly text: string;
	readonly elided: number;
}

/**
 * The stored form of an edge's props in a row whose scope columns are `orgId` / `userId` and
 * whose source node's obsidian_path is `fromPath`: the most that can be left out such that a read
 * gives the same JSON back.
 */
export function packEdgeProps(props: Props, orgId: string | null, userId: string | null, fromPath?: PropValue): PackedEdgeProps {
	const full = candidateBits(props, orgId, userId, fromPath);
	if (full === 0) return { text: JSON.stringify(props), elided: 0 };
	const written = JSON.stringify(props);
	// Fallbacks for props in an order the reads would not give back: fewer keys left out.
	for (const bits of new Set([full, full & ~(ELIDED_ORIGIN | ELIDED_NOTE_PATH), full & V9_BITS])) {
		if (bits === 0) break;
		const kept = keptProps(props, bits);
		if (JSON.stringify(unpackEdgeProps(kept, bits, orgId, userId, fromPath)) === written) return { text: JSON.stringify(kept), elided: bits };
	}
	return { text: written, elided: 0 };
}

function candidateBits(props: Props, orgId: string | null, userId: string | null, fromPath: PropValue | undefined): number {
	let bits = 0;
	if (typeof props.org_id === "string" && props.org_id === orgId && typeof props.user_id === "string" && props.user_id === userId) bits |= ELIDED_SCOPE;
	if ("source_agent" in props && props.source_agent === null) bits |= ELIDED_AGENT;
	if ("source_session" in props && props.source_session === null) bits |= ELIDED_SESSION;
	const code = typeof props.source === "string" ? SOURCES.indexOf(props.source) : -1;
	if (code > 0) {
		bits |= code << SOURCE_SHIFT;
		if (props.trust_level === DEFAULT_TRUST[SOURCES[code]]) bits |= ELIDED_TRUST;
	}
	if (props.origin === NOTE_ORIGIN) bits |= ELIDED_ORIGIN;
	if (typeof props.note_path === "string" && props.note_path === fromPath) bits |= ELIDED_NOTE_PATH;
	return bits;
}

function keptProps(props: Props, bits: number): Record<string, PropValue> {
	const kept: Record<string, PropValue> = {};
	for (const [name, value] of Object.entries(props)) if (!leftOut(name, bits)) kept[name] = value;
	return kept;
}

function leftOut(name: string, bits: number): boolean {
	switch (name) {
		case "org_id":
		case "user_id":
			return (bits & ELIDED_SCOPE) !== 0;
		case "source_agent":
			return (bits & ELIDED_AGENT) !== 0;
		case "source_session":
			return (bits & ELIDED_SESSION) !== 0;
		case "source":
			return (bits & SOURCE_MASK) !== 0;
		case "trust_level":
			return (bits & ELIDED_TRUST) !== 0;
		case "origin":
			return (bits & ELIDED_ORIGIN) !== 0;
		case "note_path":
			return (bits & ELIDED_NOTE_PATH) !== 0;
		default:
			return false;
	}
}

/** An edge's props as written, from its stored form, its row's scope columns and its source node's obsidian_path. */
export function unpackEdgeProps(
	stored: Record<string, PropValue>,
	elided: number,
	orgId: string | null,
	userId: string | null,
	fromPath?: PropValue,
): Record<string, PropValue> {
	if (!elided) return stored;
	const restored: Record<string, PropValue> = {};
	if (elided & ELIDED_SCOPE) {
		restored.org_id = orgId;
		restored.user_id = userId;
	}
	const source = SOURCES[(elided & SOURCE_MASK) >> SOURCE_SHIFT];
	if (source) restored.source = source;
	if (elided & ELIDED_AGENT) restored.source_agent = null;
	if (elided & ELIDED_SESSION) restored.source_session = null;
	// Left out only with its source (candidateBits).
	if (elided & ELIDED_TRUST && source) restored.trust_level = DEFAULT_TRUST[source];
	const out: Record<string, PropValue> = {};
	if (elided & ELIDED_ORIGIN) out.origin = NOTE_ORIGIN;
	if (elided & ELIDED_NOTE_PATH) out.note_path = typeof fromPath === "string" ? fromPath : null;
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
