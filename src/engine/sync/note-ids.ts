// Writing engrama_id into notes (VaultSync's id writes: after a batch, in a first sync, and the
// paced backfill of notes synced by path) and recording the state of the text they produced.
import { errorMessage } from "../errors";
import { contentHash } from "./content-hash";
import type { SyncLane } from "./graph-to-vault";
import { NOTE_PROPS } from "./note-index";
import { bodyLineOf, parseNote, type ParsedNote } from "./note-parser";
import type { PreparedNote, SyncRun, WrittenId } from "./sync-run";
import type { SyncProblem } from "./sync-report";
import type { SyncSettings } from "./sync-settings";

/** A note whose engrama_id was just written: its new state, and what was parsed before the write. */
export interface WrittenIdState {
	readonly id: string;
	readonly state: WrittenId;
	readonly prepared: PreparedNote;
}

/**
 * Writes engrama_id into one note unless it changed since it was parsed (`ifHash`), and returns
 * the hash of the text that holds it (so the modify event the write causes is recognised as
 * nothing new) and the file's info. Null when nothing was written or the result cannot be
 * trusted; a failed write is reported in the run's problems.
 */
export async function writeIdInto(lane: SyncLane, run: SyncRun, prepared: PreparedNote, id: string, settings: SyncSettings): Promise<WrittenId | null> {
	const { source, memory } = lane;
	const path = prepared.note.path;
	// Its YAML cannot be read: a write would rewrite the frontmatter the person has to fix.
	if (prepared.note.frontmatterBroken) return null;
	try {
		const written = await source.processFrontMatter(
			path,
			(fm) => {
				fm.engrama_id = id;
			},
			{ ifHash: prepared.note.hash, known: prepared.note.frontmatter },
		);
		// null: the file changed after it was parsed; nothing was written, the next sync reads it again.
		if (written === null) return null;
		const info = await source.stat(path);
		if (!info) return null;
		if (typeof written === "string") return { hash: contentHash(written), info, bodyLine: bodyLineOf(written) };
		// A source that does not return the text (Obsidian): read it back and check that only the id changed.
		const again = parseNote({ path, text: await source.read(path), settings, profile: memory.profile });
		if (again.kind === "note" && again.note.id === id && sameNote(again.note, prepared.note)) return { hash: again.note.hash, info, bodyLine: again.note.bodyLine };
		// The id is in the file but something else changed too: keep the parsed state, so the next sync reads it again.
		return { hash: prepared.note.hash, info: prepared.info };
	} catch (error) {
		run.problems.push(idWriteProblem(path, error));
		return null;
	}
}

/** Stores the hash, mtime and size of notes whose engrama_id was just written (their modify events then find nothing new). */
export async function recordWrittenIds(lane: SyncLane, run: SyncRun, states: readonly WrittenIdState[]): Promise<void> {
	const { memory } = lane;
	if (states.length === 0) return;
	await memory.write(() =>
		memory.pipeline.transaction(async () => {
			for (const { id, state, prepared } of states) {
				const node = await run.nodeById(id);
				if (!node) continue;
				await run.recordNoteState(node, { [NOTE_PROPS.hash]: state.hash, [NOTE_PROPS.mtime]: state.info.mtime, [NOTE_PROPS.size]: state.info.size });
				// The id's frontmatter lines moved the body: the passages' lines follow (rows and vectors kept).
				if (state.bodyLine !== undefined && state.bodyLine !== prepared.note.bodyLine) await run.shiftPassages({ prepared, node }, state.bodyLine);
			}
		}),
	);
}

/** Same graph content (what the id write must not have changed). */
function sameNote(a: ParsedNote, b: ParsedNote): boolean {
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
