import type { App } from "obsidian";
import type { SyncProblem, VaultSync } from "../engine";
import { notesWithoutId } from "./first-run";
import type { TaskControl } from "./task-runner";
import { TimeLeft } from "./time-left";
import { CancelledError } from "./work-gate";

/**
 * How ids are written into thousands of notes: a few notes, then a pause. Obsidian stays
 * responsive (each step is a few frontmatter writes), and Obsidian Sync, iCloud or git see a steady
 * trickle (about 50 notes a second at most) instead of every note changing within a second.
 */
export const ID_PACE = { notes: 10, pauseMs: 200 } as const;

export interface IdBackfillResult {
	readonly written: readonly string[];
	readonly problems: readonly SyncProblem[];
}

/**
 * Writes engrama_id into every synced note that lacks one, paced by `ID_PACE`, reporting
 * "n / total" and the time left to the task (progress notice with Cancel, status bar). Cancel stops
 * between two steps: the notes written keep their id, the rest stay synced by path until the next run.
 */
export async function writeIdsPaced(app: App, sync: VaultSync, control: TaskControl, pace: { notes: number; pauseMs: number } = ID_PACE): Promise<IdBackfillResult> {
	const paths = await sync.indexedPaths(notesWithoutId(app, (path) => sync.isSyncedPath(path)));
	const written: string[] = [];
	const problems: SyncProblem[] = [];
	const left = new TimeLeft();
	control.report(left.progress(0, paths.length, Date.now()));
	for (let i = 0; i < paths.length; i += pace.notes) {
		if (control.signal.aborted) throw new CancelledError("Writing engrama_id into notes");
		const step = await sync.writeMissingIds(paths.slice(i, i + pace.notes));
		written.push(...step.written);
		problems.push(...step.problems);
		control.report(left.progress(Math.min(i + pace.notes, paths.length), paths.length, Date.now()));
		if (i + pace.notes < paths.length) await pause(pace.pauseMs, control.signal);
	}
	return { written, problems };
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
	return new Promise((resolve) => {
		const timer = window.setTimeout(done, ms);
		signal.addEventListener("abort", done, { once: true });
		function done(): void {
			window.clearTimeout(timer);
			signal.removeEventListener("abort", done);
			resolve();
		}
	});
}
