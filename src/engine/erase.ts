import type { NodeRecord, Scope } from "./types";

/** The nodes an erase removes: some of a scope's (hard forget, TTL expiry), or the whole scope (GDPR). */
export type EraseTarget = { readonly scope: Scope; readonly ids: ReadonlySet<string> } | { readonly scope: Scope; readonly wholeScope: true };

export function targetsNode(target: EraseTarget, scope: Scope, id: string): boolean {
	if (target.scope.orgId !== scope.orgId || target.scope.userId !== scope.userId) return false;
	return "wholeScope" in target || target.ids.has(id);
}

/** What became of the notes of the erased nodes. */
export interface NotesErased {
	/** Notes Engrama wrote for them, unchanged since: removed with the memory. */
	readonly removed: number;
	/** Notes that still hold them (a person's own notes, or Engrama's edited since): left alone. */
	readonly kept: number;
	/** The first kept notes (vault-relative), so the person can look at them. */
	readonly kept_paths: readonly string[];
}

export const NO_NOTES: NotesErased = { removed: 0, kept: 0, kept_paths: [] };

const KEPT_PATHS = 20;

export function addNotes(a: NotesErased, b: NotesErased): NotesErased {
	return { removed: a.removed + b.removed, kept: a.kept + b.kept, kept_paths: [...a.kept_paths, ...b.kept_paths].slice(0, KEPT_PATHS) };
}

export function notesErased(removed: number, kept: readonly string[]): NotesErased {
	return { removed, kept: kept.length, kept_paths: kept.slice(0, KEPT_PATHS) };
}

/**
 * Something outside the store that holds copies of nodes (the vault: graph → vault replication,
 * event batches). Around an erase it drops or finishes its pending work for the target, holds new
 * work until the erase is done, so nothing writes an erased node back, then deals with the copies
 * of the nodes `erase` removed.
 */
export interface EraseHook {
	around(target: EraseTarget, erase: () => Promise<readonly NodeRecord[]>): Promise<NotesErased>;
}

/** Runs `erase` inside every hook (nested, first registered outermost); the notes they answer, summed. */
export async function eraseWithin(hooks: readonly EraseHook[], target: EraseTarget, erase: () => Promise<readonly NodeRecord[]>): Promise<NotesErased> {
	const [first, ...rest] = hooks;
	if (!first) {
		await erase();
		return NO_NOTES;
	}
	let inner = NO_NOTES;
	const outer = await first.around(target, async () => {
		let erased: readonly NodeRecord[] = [];
		inner = await eraseWithin(rest, target, async () => (erased = await erase()));
		return erased;
	});
	return addNotes(outer, inner);
}
