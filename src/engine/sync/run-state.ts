import type { Clock } from "../clock";
import type { Profile } from "../profile";
import type { NodeRecord, Scope } from "../types";
import type { WriteContext, WritePipeline } from "../write/write-pipeline";
import type { NodeCache, SyncReads } from "./node-cache";
import { NOTE_PROPS, type NoteEntry, type NoteIndex } from "./note-index";
import type { ParsedNote } from "./note-parser";
import type { SyncCounts, SyncProblem } from "./sync-report";
import type { SyncSettings } from "./sync-settings";
import type { VaultFileInfo, VaultSource } from "./vault-source";

export interface SyncRunDeps {
	readonly graph: SyncReads;
	readonly pipeline: WritePipeline;
	readonly profile: Profile;
	readonly clock: Clock;
	readonly scope: Scope;
	readonly source: VaultSource;
	readonly settings: SyncSettings;
	readonly index: NoteIndex;
	/** Paths known to exist in this run (a full sync's listing); otherwise the source is asked. */
	readonly present?: ReadonlySet<string>;
	/**
	 * The scope held no nodes when the run started: every node is one this run wrote, so lookups
	 * are answered from memory and there are no old edges or stubs to reconcile (a rebuild).
	 */
	readonly freshGraph?: boolean;
}

/** A note read and parsed, ready for the graph. */
export interface PreparedNote {
	readonly info: VaultFileInfo;
	readonly note: ParsedNote;
	/** Set when another file holds the same engrama_id and keeps it: this one is a copy. */
	copyOf?: string;
	/** Set when this file is a known node's note under a new path (rename, move). */
	moveFrom?: NoteEntry;
	/**
	 * Set when its engrama_id belongs to a node of another scope of the database (a vault two users
	 * both sync): this scope's node gets its own id, the note keeps the one it has.
	 */
	foreignId?: boolean;
}

/** A note whose node is in the graph; `idToWrite` is set when its frontmatter needs the id. */
export interface UpsertedNote {
	readonly prepared: PreparedNote;
	readonly node: NodeRecord;
	readonly idToWrite?: string;
}

/** Edge props that mark an edge as declared by a note; reconciliation only removes those. */
export const NOTE_ORIGIN = "note";

/** What the parts of one run (identity, edges, the run itself) share. */
export interface RunState {
	readonly deps: SyncRunDeps;
	/** Sync writes as the person: source `sync` (a note's stated provenance is passed per write). */
	readonly ctx: WriteContext;
	readonly counts: SyncCounts;
	readonly problems: SyncProblem[];
	/** The engrama_id each note read in this run claims (undefined: none). */
	readonly parsedIds: Map<string, string | undefined>;
	readonly cache: NodeCache;
}

/** The note a node belongs to, by its bookkeeping. */
export function ownerPath(node: NodeRecord): string | undefined {
	const path = node.props[NOTE_PROPS.path];
	return typeof path === "string" && path !== "" ? path : undefined;
}
