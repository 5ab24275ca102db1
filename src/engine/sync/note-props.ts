import type { NodeRecord, PropValue } from "../types";
import { carriesAgentMarks, PERSON_OWN, provenanceOf, type NodeProvenance } from "../write/provenance";
import { NOTE_PROPS } from "./note-index";
import type { ParsedNote } from "./note-parser";
import type { VaultFileInfo } from "./vault-source";

const BOOKKEEPING = new Set<string>(Object.values(NOTE_PROPS));

/**
 * Props to set and unset: what the note states, sync bookkeeping, and a revived status; and the
 * provenance the node takes (undefined: keep the node's, see notedProvenance).
 */
export function noteProps(
	note: ParsedNote,
	info: VaultFileInfo,
	node: NodeRecord | null,
	defaultStatus: string,
): { set: Record<string, PropValue>; unset: string[]; provenance?: NodeProvenance } {
	const set: Record<string, PropValue> = { ...note.props };
	const unset: string[] = [];
	if (node) {
		const before = node.props[NOTE_PROPS.stated];
		if (Array.isArray(before)) {
			for (const name of before) {
				if (typeof name !== "string" || name in set || BOOKKEEPING.has(name)) continue;
				// A status the note stopped stating falls back to the label's default, not to nothing.
				if (name === "status") set.status = defaultStatus;
				else unset.push(name);
			}
		}
		const status = node.props.status;
		if ((status === "archived" || status === "stub") && set.status === undefined) {
			const previous = node.props.previous_status;
			set.status =
				status === "archived" && typeof previous === "string" && previous !== "stub" && previous !== "archived" ? previous : defaultStatus;
		}
		if (status === "archived") unset.push("archived_at", "previous_status");
	}
	set[NOTE_PROPS.path] = note.path;
	set[NOTE_PROPS.hash] = note.hash;
	// Broken frontmatter: no time recorded, so every sync reads the note again and reports it.
	set[NOTE_PROPS.mtime] = note.frontmatterBroken ? 0 : info.mtime;
	set[NOTE_PROPS.size] = info.size;
	set[NOTE_PROPS.stated] = Object.keys(note.props);
	const stated = note.provenance;
	if (stated) set[NOTE_PROPS.provenance] = provenanceRecord(stated);
	else unset.push(NOTE_PROPS.provenance);
	return { set, unset: unset.filter((name) => !(name in set)), provenance: notedProvenance(node, stated) };
}

/**
 * The provenance a note gives its node: what its engrama_* keys state (none: the person's own),
 * but only when they differ from what the note stated at its last sync. Unchanged keys leave the
 * node's provenance as it is, so an agent's write that never reached the note (nothing replicated
 * into the vault, or writing the note failed) is not laundered by the person's next edit of the
 * text: only the person's edit of the keys vouches. A new node, or a stub (a placeholder), simply
 * takes the note's.
 */
export function notedProvenance(node: NodeRecord | null, stated: NodeProvenance | undefined): NodeProvenance | undefined {
	const fromNote = stated ?? PERSON_OWN;
	if (!node || node.props.status === "stub") return fromNote;
	const before = node.props[NOTE_PROPS.provenance];
	if ((stated ? provenanceRecord(stated) : undefined) !== (typeof before === "string" ? before : undefined)) return fromNote;
	const current = provenanceOf(node);
	return current && carriesAgentMarks(current) ? undefined : fromNote;
}

/** What a note stated, as the bookkeeping sync compares on the next sync. */
function provenanceRecord(p: NodeProvenance): string {
	return JSON.stringify([p.source, p.agent ?? null, p.session ?? null, p.trust, p.edit?.source ?? null, p.edit?.agent ?? null, p.edit?.session ?? null]);
}
