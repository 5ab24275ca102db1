import type { Memory } from "../memory";
import type { Scope } from "../types";
import type { SyncLane } from "./graph-to-vault";
import type { SyncProblem, SyncReport } from "./sync-report";
import type { SyncSettings } from "./sync-settings";
import type { VaultSource } from "./vault-source";

/* What a VaultSync is built from and the options and answers of its verbs (vault-sync.ts). */

/** Timers for debouncing; window timers in Obsidian, Node's on the command line. */
export interface SyncTimers {
	setTimeout(callback: () => void, ms: number): unknown;
	clearTimeout(handle: unknown): void;
}

export interface VaultSyncDeps {
	readonly memory: Memory;
	readonly source: VaultSource;
	readonly scope: Scope;
	readonly settings?: Partial<SyncSettings>;
	/**
	 * The graph and vault the graph → vault writer replicates other writes through (and the sync of
	 * each note it writes); default `memory`/`source`. The plugin passes the agents' lane, so an
	 * agent's committed write still becomes a note while a cancelled task unwinds.
	 */
	readonly replication?: SyncLane;
	/** Needed for event-driven sync (`start`); full syncs and `syncPaths` work without. */
	readonly timers?: SyncTimers;
	/** After each event batch (and each graph → vault write) with what it did. */
	readonly onBatch?: (report: SyncReport) => void;
	/** A batch failed unexpectedly (not a problem with a note: those are in the report). */
	readonly onError?: (error: unknown) => void;
	/** Monotonic milliseconds for the report's timings. */
	readonly now?: () => number;
}

export interface FullSyncOptions {
	/** Report what would change; write nothing to the graph or the vault. */
	readonly dryRun?: boolean;
	/**
	 * false: leave every note's frontmatter alone in this run even when `writeEngramaIds` is on
	 * (notes are indexed by path; `writeMissingIds` adds the ids afterwards, paced by its caller).
	 */
	readonly writeIds?: boolean;
}

/** What `writeMissingIds` did (or, in a dry run, would do) for the paths it was given. */
export interface IdBackfill {
	/** Notes that got (would get) their node's id as engrama_id. */
	readonly written: readonly string[];
	readonly problems: readonly SyncProblem[];
}
