import { errorMessage } from "../errors";
import type { ParsedNote } from "./note-parser";
import type { PreparedNote, WrittenId } from "./sync-run";
import type { SyncProblem } from "./sync-report";

/** Notes whose engrama_id sync writes (VaultSync.writeIds): what it keeps of each and how it reports a failure. */

/** A note whose engrama_id was just written: its node, the new file state and the note as it was parsed. */
export interface WrittenIdState {
	readonly id: string;
	readonly state: WrittenId;
	readonly prepared: PreparedNote;
}

/** Same graph content (what the id write must not have changed). */
export function sameNote(a: ParsedNote, b: ParsedNote): boolean {
	const shape = (n: ParsedNote) =>
		JSON.stringify([n.label, n.key, n.props, n.relations, n.frozenTypes, n.relationsFrozen, n.links]);
	return shape(a) === shape(b);
}

export function idWriteProblem(path: string, error: unknown): SyncProblem {
	return {
		path,
		severity: "warning",
		problem: `engrama_id could not be written into the note: ${errorMessage(error)}`,
		action: "Fix the note's frontmatter; it is synced by its path until its engrama_id can be written.",
	};
}

