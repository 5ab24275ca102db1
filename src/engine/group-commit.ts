/**
 * Group commit: write jobs run one at a time, in arrival order (as SerialQueue did), but the jobs
 * that are waiting when one finishes join its transaction, so a burst of concurrent writes (MCP
 * sessions, vault events, CLI batches) costs one commit and one fsync instead of one each.
 *
 * - A job's promise settles only after the commit holding it: an acknowledged write is durable.
 * - A failing job is rolled back alone (a savepoint of its own); the others in its group commit.
 *   A store without savepoints (Neo4j) groups only the jobs marked `replayable`: a failure there
 *   rolls the group's transaction back, and the group runs again without the failed job.
 * - A lone writer is not held: when nothing is waiting the group commits at once. "Waiting"
 *   includes requests that already reached the process: `yieldToInput` lets the host run its ready
 *   input (one event-loop turn in Node) before the group decides it is complete. Its extra cost is
 *   that turn and the group's SAVEPOINT/RELEASE around its own transaction.
 * - A failed commit rejects every job of the group with the commit's error.
 */

/** What the queue needs from the graph store. */
export interface GroupCommitStore {
	transaction<T>(fn: () => Promise<T>): Promise<T>;
	readonly capabilities: { readonly atomicTransactions: boolean; readonly noSavepoints?: boolean };
}

export interface GroupCommitOptions {
	/** Lets ready input (other writers) run before a group commits; default: queued microtasks only. */
	readonly yieldToInput?: () => Promise<void>;
	/** Most jobs per group: bounds the wait of the group's first writer. */
	readonly maxJobs?: number;
}

export interface WriteOptions {
	/**
	 * Run outside any transaction, in a group of its own (work SQLite refuses inside one, such as a
	 * WAL checkpoint).
	 */
	readonly alone?: boolean;
	/**
	 * The job may run again after a rollback, with the same effect: its closure keeps no state
	 * across runs (or resets it). Lets a store without savepoints put it in a group.
	 */
	readonly replayable?: boolean;
}

interface Entry {
	readonly job: () => Promise<unknown>;
	readonly alone: boolean;
	readonly replayable: boolean;
	resolve(value: unknown): void;
	reject(error: unknown): void;
	outcome?: { ok: true; value: unknown } | { ok: false; error: unknown };
}

export interface GroupCommitStats {
	/** Commits made (groups), and the jobs they held. */
	readonly groups: number;
	readonly jobs: number;
	readonly largestGroup: number;
	/** Jobs queued behind the one running now. */
	readonly waiting: number;
}

const DEFAULT_MAX_JOBS = 64;
/** Runs of one group a job failing with a transient error (server restarting, deadlock) gets. */
const TRANSIENT_RETRIES = 3;

/** Thrown inside a replay group's transaction to roll it back after a job failed. */
class ReplayNeeded extends Error {}

/** A store error that says trying again may work (EngramaError details.transient). */
function isTransient(outcome: Entry["outcome"]): boolean {
	if (!outcome || outcome.ok) return false;
	const details = (outcome.error as { details?: { transient?: unknown } } | null)?.details;
	return details?.transient === true;
}

export class GroupCommitQueue {
	private readonly pending: Entry[] = [];
	private draining = false;
	private readonly yieldToInput: () => Promise<void>;
	private readonly maxJobs: number;
	private counts = { groups: 0, jobs: 0, largestGroup: 0 };

	constructor(
		private readonly store: GroupCommitStore,
		options: GroupCommitOptions = {},
	) {
		this.yieldToInput = options.yieldToInput ?? (() => Promise.resolve());
		this.maxJobs = Math.max(1, options.maxJobs ?? DEFAULT_MAX_JOBS);
	}

	get stats(): GroupCommitStats {
		return { ...this.counts, waiting: this.pending.length };
	}

	run<T>(job: () => Promise<T>, options: WriteOptions = {}): Promise<T> {
		return new Promise<T>((resolve, reject) => {
			this.pending.push({ job, alone: options.alone === true, replayable: options.replayable === true, resolve: resolve, reject });
			if (!this.draining) void this.drain();
		});
	}

	private async drain(): Promise<void> {
		this.draining = true;
		try {
			// Let the writers that arrive with this one queue up before the first group starts.
			await Promise.resolve();
			for (let first = this.pending.shift(); first; first = this.pending.shift()) {
				let group: Entry[];
				try {
					const mode = first.alone ? "alone" : this.groupMode();
					if (mode === "savepoints") group = await this.runGroup(first);
					else if (mode === "replay" && first.replayable) group = await this.runReplayGroup(first);
					else group = await this.runAlone(first);
				} catch (error) {
					// Never leave a writer waiting forever on a fault of the queue itself.
					first.outcome = { ok: false, error };
					group = [first];
				}
				this.counts.groups++;
				this.counts.jobs += group.length;
				this.counts.largestGroup = Math.max(this.counts.largestGroup, group.length);
				for (const entry of group) {
					const outcome = entry.outcome ?? { ok: false, error: new Error("write job never ran") };
					if (outcome.ok) entry.resolve(outcome.value);
					else entry.reject(outcome.error);
				}
			}
		} finally {
			this.draining = false;
		}
	}

	/**
	 * Savepoints roll a failed job back alone inside the group's transaction. Without them (Neo4j)
	 * a group holds replayable jobs only, and a failure replays the rest.
	 */
	private groupMode(): "savepoints" | "replay" | "none" {
		const caps = this.store.capabilities;
		if (!caps.atomicTransactions) return "none";
		return caps.noSavepoints === true ? "replay" : "savepoints";
	}

	/**
	 * One transaction for the replayable jobs waiting together. A job that fails dooms the
	 * transaction (a store without savepoints cannot undo it alone): the transaction rolls back,
	 * the failed job gets its error, and the others run again, in order, in a new transaction (which
	 * takes more waiting jobs, up to maxJobs for the whole group).
	 * A transient failure (the server restarting) is retried with its job, a few times.
	 */
	private async runReplayGroup(first: Entry): Promise<Entry[]> {
		const group: Entry[] = [first];
		let members: Entry[] = [first];
		const transientTries = new Map<Entry, number>();
		while (members.length > 0) {
			let failed: Entry | undefined;
			try {
				await this.store.transaction(async () => {
					for (let i = 0; ; i++) {
						let next: Entry | undefined = members[i];
						if (!next && group.length < this.maxJobs) {
							next = this.pending[0];
							if (!next) {
								await this.yieldToInput();
								next = this.pending[0];
							}
							if (!next || next.alone || !next.replayable) next = undefined;
							else {
								this.pending.shift();
								group.push(next);
								members.push(next);
							}
						}
						if (!next) break;
						try {
							next.outcome = { ok: true, value: await next.job() };
						} catch (error) {
							next.outcome = { ok: false, error };
							failed = next;
							throw new ReplayNeeded();
						}
					}
				});
				return group;
			} catch (error) {
				if (!(error instanceof ReplayNeeded) || !failed) {
					// The commit failed: nothing of the group is durable.
					for (const entry of members) entry.outcome = { ok: false, error };
					return group;
				}
			}
			const tries = transientTries.get(failed) ?? 0;
			const retry = isTransient(failed.outcome) && tries < TRANSIENT_RETRIES;
			transientTries.set(failed, tries + 1);
			if (!retry) members = members.filter((entry) => entry !== failed);
		}
		return group;
	}

	private async runAlone(entry: Entry): Promise<Entry[]> {
		try {
			entry.outcome = { ok: true, value: await entry.job() };
		} catch (error) {
			entry.outcome = { ok: false, error };
		}
		return [entry];
	}

	private async runGroup(first: Entry): Promise<Entry[]> {
		const group: Entry[] = [first];
		try {
			await this.store.transaction(async () => {
				// The first job runs straight in the group's transaction, without a savepoint of its
				// own: if it fails, the whole transaction, which holds nothing else, rolls back.
				first.outcome = { ok: true, value: await first.job() };
				while (group.length < this.maxJobs) {
					let next = this.pending[0];
					if (!next) {
						await this.yieldToInput();
						next = this.pending[0];
						if (!next) break;
					}
					if (next.alone) break;
					this.pending.shift();
					group.push(next);
					try {
						// A savepoint of its own: a failure rolls back this job only.
						next.outcome = { ok: true, value: await this.store.transaction(next.job) };
					} catch (error) {
						next.outcome = { ok: false, error };
					}
				}
			});
		} catch (error) {
			// The first job failed (nothing else ran yet), or the commit did: then nothing is durable.
			for (const entry of group) if (entry.outcome === undefined || entry.outcome.ok) entry.outcome = { ok: false, error };
		}
		return group;
	}
}
