/** One thing wrong with one file, phrased for the person who owns the vault. */
export interface SyncProblem {
	readonly path: string;
	/** "error": the note was left alone (its stored node kept as it was); "warning": part of it was skipped. */
	readonly severity: "error" | "warning";
	/** What is wrong. */
	readonly problem: string;
	/** What the user can do about it. */
	readonly action: string;
	/** A profile module that is off and would index this note: turning it on fixes the warning. */
	readonly module?: string;
}

export interface SyncCounts {
	/** Notes in the vault that sync looked at (after folder exclusions). */
	filesScanned: number;
	/** Notes whose text was read (new or changed mtime/size). */
	filesRead: number;
	/** Notes skipped because nothing changed since the last sync. */
	filesUnchanged: number;
	/** Untyped notes skipped because untyped indexing is off. */
	filesSkipped: number;
	nodesCreated: number;
	nodesUpdated: number;
	nodesArchived: number;
	/** Notes that moved or were renamed and kept their node. */
	nodesMoved: number;
	stubsCreated: number;
	relationsAdded: number;
	relationsRemoved: number;
}

export interface SyncReport {
	readonly dryRun: boolean;
	readonly counts: SyncCounts;
	/** Files that received (or, in a dry run, would receive) an engrama_id in their frontmatter. */
	readonly idsWritten: readonly string[];
	/** Notes written from the graph (entities remembered outside the vault). */
	readonly notesWritten: readonly string[];
	readonly problems: readonly SyncProblem[];
	readonly timings: Readonly<Record<string, number>>;
}

export function emptyCounts(): SyncCounts {
	return {
		filesScanned: 0,
		filesRead: 0,
		filesUnchanged: 0,
		filesSkipped: 0,
		nodesCreated: 0,
		nodesUpdated: 0,
		nodesArchived: 0,
		nodesMoved: 0,
		stubsCreated: 0,
		relationsAdded: 0,
		relationsRemoved: 0,
	};
}

/** True when the sync changed (or would change) nothing in the graph or the vault. */
export function isNoop(report: SyncReport): boolean {
	const c = report.counts;
	return (
		c.nodesCreated + c.nodesUpdated + c.nodesArchived + c.nodesMoved + c.stubsCreated + c.relationsAdded + c.relationsRemoved === 0 &&
		report.idsWritten.length === 0 &&
		report.notesWritten.length === 0
	);
}
