import { EngramaError, NotFoundError } from "../errors";
import { SerialQueue } from "../serial-queue";
import { GraphToVault, keptNewerState, notesToRead, type SyncLane } from "./graph-to-vault";
import { NO_NOTES, type EraseTarget, type NotesErased } from "../erase";
import type { NodeRecord } from "../types";
import { NoteIndex, noteEntryOf, type NoteEntry } from "./note-index";
import { parseNote, type NoteParseResult, type ParsedNote } from "./note-parser";
import { idWriteProblem, recordWrittenIds, writeIdInto, type WrittenIdState } from "./note-ids";
import { SyncRun, type PreparedNote, type UpsertedNote } from "./sync-run";
import type { SyncReport } from "./sync-report";
import { isExcludedPath, syncSettings, type SyncSettings } from "./sync-settings";
import { isMarkdownPath, type VaultEvent, type VaultFileInfo } from "./vault-source";
import type { FullSyncOptions, IdBackfill, VaultSyncDeps } from "./vault-sync-deps";

export type { FullSyncOptions, IdBackfill, SyncTimers, VaultSyncDeps } from "./vault-sync-deps";

class DryRunRollback extends Error {}

/**
 * Keeps the graph in step with the vault (the vault is the person's source of truth): full syncs (with a dry run), event batches
 * (debounced, one graph transaction each) and, through GraphToVault, the way back. Identity is
 * the note's `engrama_id`; a note's own edges carry `origin: "note"` so reconciliation never
 * touches edges made elsewhere. Loops are impossible by construction: every sync compares the
 * file's content hash with the one stored on its node, and sync's own frontmatter writes store
 * the hash of the text they produced, so the modify events they cause find nothing to do.
 */
export class VaultSync {
	readonly settings: SyncSettings;
	readonly writer: GraphToVault;
	private index: NoteIndex | null = null;
	private readonly batches = new SerialQueue();
	private readonly pending = new Map<string, VaultEvent>();
	private timer: unknown = null;
	private unsubscribe: (() => void) | null = null;
	private readonly now: () => number;

	constructor(private readonly deps: VaultSyncDeps) {
		this.settings = syncSettings(deps.settings);
		this.now = deps.now ?? (() => Date.now());
		this.writer = new GraphToVault({
			memory: deps.memory,
			source: deps.source,
			scope: deps.scope,
			settings: this.settings,
			replication: deps.replication,
			syncPaths: (paths, lane) => this.batches.run(() => this.runBatch(paths, [], lane)),
			noteIndex: (lane) => this.ensureIndex(lane),
			onReport: (report) => deps.onBatch?.(report),
			onError: (error) => deps.onError?.(error),
			eraseHook: { around: (target, erase) => this.aroundErase(target, erase) },
		});
	}

	/**
	 * Around an erase of this vault's nodes: the graph → vault writes queued before it finish (those
	 * of erased nodes are dropped), no event batch runs during it, and after it the pending events
	 * of the erased notes are dropped (the erase, not a leftover event, decides about a kept note),
	 * the note index is read afresh and the notes Engrama wrote for the erased nodes are removed.
	 */
	private async aroundErase(target: EraseTarget, erase: () => Promise<readonly NodeRecord[]>): Promise<NotesErased> {
		const { scope } = this.deps;
		if (target.scope.orgId !== scope.orgId || target.scope.userId !== scope.userId) {
			await erase();
			return NO_NOTES;
		}
		return this.writer.holding(target, () =>
			this.batches.run(async () => {
				const erased = await erase();
				this.index = null;
				for (const node of erased) {
					const path = noteEntryOf(node)?.path;
					if (path) this.pending.delete(path);
				}
				return this.writer.removeNotes(erased);
			}),
		);
	}

	/** True for paths sync handles: markdown notes outside the excluded folders. */
	isSyncedPath(path: string): boolean {
		return isMarkdownPath(path) && !isExcludedPath(path, this.settings);
	}

	// --- full sync ---

	/**
	 * Reconciles the whole vault: new and changed notes (by mtime/size, then content hash),
	 * vanished notes archived, engrama_id written where missing, and (unless a dry run or turned
	 * off) entities that have no note yet written out as notes.
	 */
	async fullSync(options: FullSyncOptions = {}): Promise<SyncReport> {
		const dryRun = !!options.dryRun;
		const { report, unnoted } = await this.batches.run(() => this.fullSyncNow(dryRun, options.writeIds ?? this.settings.writeEngramaIds));
		if (!this.settings.writeGraphToVault) return report;
		const started = this.now();
		const exported = await this.writer.exportMissing(dryRun, unnoted);
		return {
			...report,
			notesWritten: exported.paths,
			problems: [...report.problems, ...exported.problems],
			counts: mergeExportCounts(report, exported.reports),
			timings: { ...report.timings, exportMs: round(this.now() - started), totalMs: round(report.timings.totalMs + this.now() - started) },
		};
	}

	private async fullSyncNow(dryRun: boolean, writeIds: boolean): Promise<{ report: SyncReport; unnoted: readonly string[] }> {
		const { memory, source, scope } = this.deps;
		const started = this.now();
		const timings: Record<string, number> = {};
		const files = (await source.list()).filter((f) => this.isSyncedPath(f.path)).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
		timings.listMs = round(this.now() - started);

		let mark = this.now();
		const index = await NoteIndex.load(memory.graph, scope);
		timings.indexMs = round(this.now() - mark);
		const present = new Set(files.map((f) => f.path));
		const run = this.newRun(this.deps, index, dryRun, present, index.nodeCount === 0, writeIds);
		if (!dryRun && writeIds) run.writeIdsFirst((prepared, id) => writeIdInto(this.deps, run, prepared, id, this.settings));
		run.counts.filesScanned = files.length;
		for (const skipped of source.skippedFiles?.() ?? []) {
			if (!isExcludedPath(skipped.path, this.settings)) run.problems.push({ ...skipped, severity: "warning" });
		}

		mark = this.now();
		const prepared: PreparedNote[] = [];
		const touched: { entry: NoteEntry; info: VaultFileInfo; note?: ParsedNote }[] = [];
		// A memory from before passages (schema 11) gets them from this sync: every note is read.
		const backfill = !dryRun && index.nodeCount > 0 && (await memory.graph.hasPassages?.(this.deps.scope)) === false;
		for (const file of files) {
			const entry = index.get(file.path);
			const info = entry?.pending && !dryRun ? await this.writeOwedFirst(this.deps, run, entry, file) : file;
			if (!backfill && entry && !entry.archived && entry.mtime === info.mtime && entry.size === info.size) {
				run.counts.filesUnchanged++;
				continue;
			}
			const outcome = await run.read(info);
			if (outcome.kind === "prepared") prepared.push(outcome.prepared);
			else if (outcome.kind === "touched") touched.push(outcome);
		}
		timings.readMs = round(this.now() - mark);
		const vanished = [...index.entries()].filter((e) => !e.archived && !present.has(e.path));
		await run.markForeignIds(prepared);
		run.markCopies(prepared);
		run.matchMoves(prepared, vanished);

		mark = this.now();
		let upserted: UpsertedNote[] = [];
		const graphWork = async (unit: <T>(job: () => Promise<T>) => Promise<T>) => {
			upserted = [];
			for (const chunk of chunks(prepared, this.settings.batchSize)) {
				await unit(async () => {
					for (const u of await run.upsertAll(await notesToRead(memory, scope, run, chunk))) if (u) upserted.push(u);
				});
			}
			for (const chunk of chunks(upserted, this.settings.batchSize)) {
				await unit(async () => {
					const adds = [];
					for (const u of chunk) adds.push(...(await run.reconcile(u)));
					await run.indexPassages(...chunk);
					await run.writeEdges(adds);
				});
			}
			// What a first sync's node writes left out (also an earlier run's, stopped before this).
			while (await unit(() => run.finishIndexes(this.settings.batchSize * DEFERRED_INDEX_BATCHES)));
			await unit(async () => {
				await run.indexBodies();
				await run.archive(vanished);
				for (const t of touched) await run.touch(t.entry, t.info);
			});
			if (backfill) for (const chunk of chunks(touched, this.settings.batchSize)) await unit(() => run.backfillPassages(chunk));
		};
		if (dryRun) {
			// The same code path as a real sync inside one transaction that is rolled back: exact counts, nothing kept.
			if (!memory.graph.capabilities.atomicTransactions && memory.graph.capabilities.durable) {
				throw new EngramaError(
					"unsupported",
					`A dry run needs a backend with atomic transactions; ${memory.graph.name} has none. Run without --dry-run or use the SQLite backend.`,
				);
			}
			await memory
				.write(() =>
					memory.pipeline.transaction(async () => {
						await graphWork((job) => memory.pipeline.transaction(job));
						throw new DryRunRollback();
					}),
				)
				.catch((error: unknown) => {
					if (!(error instanceof DryRunRollback)) throw error;
				});
		} else {
			await graphWork((job) => memory.write(() => memory.pipeline.transaction(job)));
			this.index = index;
		}
		timings.graphMs = round(this.now() - mark);

		mark = this.now();
		if (!dryRun) await this.writeIds(this.deps, run, upserted);
		timings.vaultWriteMs = round(this.now() - mark);
		timings.totalMs = round(this.now() - started);
		return {
			report: { dryRun, counts: run.counts, idsWritten: run.idsWritten, notesWritten: [], problems: run.problems, timings },
			unnoted: index.unnoted,
		};
	}

	// --- paths and events ---

	/** Syncs the given notes now (new, changed, renamed by content, deleted → archived). */
	syncPaths(paths: readonly string[]): Promise<SyncReport> {
		return this.batches.run(() => this.runBatch(paths, []));
	}

	/**
	 * One note, as `syncPaths` syncs it (a deleted note's node archived). A path that is neither in
	 * the vault nor recorded on a node is refused: there is nothing to sync or archive there.
	 */
	async syncNote(path: string): Promise<SyncReport> {
		if (!(await this.deps.source.stat(path)) && !(await this.ensureIndex()).get(path)) {
			throw new NotFoundError(`No note "${path}" in the vault, and no node was synced from that path: nothing to sync. Check the path (relative to the vault root).`, { path });
		}
		return this.syncPaths([path]);
	}

	/** What a note would sync as (label, name, relations, links, problems); writes nothing. */
	async previewNote(path: string): Promise<NoteParseResult> {
		if (!(await this.deps.source.stat(path))) throw new NotFoundError(`No note "${path}" in the vault. A real sync of a deleted note archives its node; check the path.`, { path });
		return parseNote({ path, text: await this.deps.source.read(path), settings: this.settings, profile: this.deps.memory.profile });
	}

	/** Subscribes to vault events; bursts are debounced into one batch. Call `stop` to end. */
	start(): void {
		if (this.unsubscribe) return;
		if (!this.deps.timers) throw new EngramaError("invalid_input", "VaultSync.start needs timers (setTimeout/clearTimeout) for debouncing.");
		this.unsubscribe = this.deps.source.watch((event) => this.handleEvent(event));
	}

	/**
	 * Stops watching and holds the pending events (no debounce timer) until `stop` or `flush` runs
	 * them: a caller that must first let other work finish (a cancelled task) loses none of them.
	 */
	pause(): void {
		this.unsubscribe?.();
		this.unsubscribe = null;
		if (this.timer !== null) this.deps.timers?.clearTimeout(this.timer);
		this.timer = null;
	}

	/** Unsubscribes and runs whatever was pending. */
	async stop(): Promise<void> {
		this.unsubscribe?.();
		this.unsubscribe = null;
		await this.idle();
	}

	/** Resolves when no event batch is pending or running and the graph → vault writer is idle. */
	async idle(): Promise<void> {
		for (let i = 0; i < 10; i++) {
			await this.flush();
			await this.batches.run(async () => undefined);
			await this.writer.idle();
			if (this.pending.size === 0) return;
		}
	}

	handleEvent(event: VaultEvent): void {
		if (event.type === "rename") {
			if (!this.isSyncedPath(event.path) && !this.isSyncedPath(event.oldPath)) return;
			// A → B then B → C within one batch is A → C; a note created and renamed is just created.
			const prior = this.pending.get(event.oldPath);
			this.pending.delete(event.oldPath);
			if (prior?.type === "create") this.pending.set(event.path, { type: "create", path: event.path });
			else this.pending.set(event.path, { type: "rename", path: event.path, oldPath: prior?.type === "rename" ? prior.oldPath : event.oldPath });
		} else {
			if (!this.isSyncedPath(event.path)) return;
			const previous = this.pending.get(event.path);
			// A rename followed by a modify is still a rename (the old path matters).
			if (previous?.type === "rename" && event.type !== "delete") return;
			this.pending.set(event.path, event);
		}
		this.schedule();
	}

	private schedule(): void {
		const timers = this.deps.timers;
		if (!timers) return;
		if (this.timer !== null) timers.clearTimeout(this.timer);
		this.timer = timers.setTimeout(() => {
			this.timer = null;
			void this.flush();
		}, this.settings.debounceMs);
	}

	/** Runs the pending events now as one batch. */
	async flush(): Promise<SyncReport | null> {
		if (this.timer !== null) {
			this.deps.timers?.clearTimeout(this.timer);
			this.timer = null;
		}
		if (this.pending.size === 0) return null;
		const events = [...this.pending.values()];
		this.pending.clear();
		const renames = events.filter((e): e is Extract<VaultEvent, { type: "rename" }> => e.type === "rename");
		const paths = events.filter((e) => e.type !== "rename").map((e) => e.path);
		try {
			const report = await this.batches.run(() => this.runBatch(paths, renames));
			this.deps.onBatch?.(report);
			return report;
		} catch (error) {
			// Cancelled with other work (the plugin's cancelled task shares its work gate): the events
			// were not that work's, so they wait for the next flush (stop runs them) instead of being lost.
			if (error instanceof EngramaError && error.code === "cancelled") {
				this.keepPending(events);
				return null;
			}
			this.deps.onError?.(error);
			return null;
		}
	}

	/** Puts back events of a batch that did not run, behind any newer event for the same note. */
	private keepPending(events: readonly VaultEvent[]): void {
		for (const event of events) if (!this.pending.has(event.path)) this.pending.set(event.path, event);
		if (this.unsubscribe) this.schedule();
	}

	private async runBatch(paths: readonly string[], renames: readonly { path: string; oldPath: string }[], lane: SyncLane = this.deps): Promise<SyncReport> {
		const { memory, source } = lane;
		const started = this.now();
		const index = await this.ensureIndex(lane);
		const run = this.newRun(lane, index, false, undefined, false);
		const prepared: PreparedNote[] = [];
		const touched: { entry: NoteEntry; info: VaultFileInfo }[] = [];
		const vanished: NoteEntry[] = [];
		const accept = async (file: VaultFileInfo, moveFrom?: NoteEntry) => {
			run.counts.filesScanned++;
			const entry = index.get(file.path);
			const info = entry?.pending ? await this.writeOwedFirst(lane, run, entry, file) : file;
			const outcome = await run.read(info);
			if (outcome.kind === "prepared") {
				if (moveFrom) outcome.prepared.moveFrom = moveFrom;
				prepared.push(outcome.prepared);
			} else if (outcome.kind === "touched") {
				touched.push(outcome);
			}
		};
		const seen = new Set<string>();
		for (const rename of renames) {
			seen.add(rename.path);
			const old = index.get(rename.oldPath);
			const info = this.isSyncedPath(rename.path) ? await source.stat(rename.path) : null;
			if (info) await accept(info, old && !old.archived ? old : undefined);
			else if (old && !old.archived) vanished.push(old);
		}
		for (const path of new Set(paths.map((p) => p))) {
			if (seen.has(path) || !this.isSyncedPath(path)) continue;
			const info = await source.stat(path);
			if (info) {
				await accept(info);
			} else {
				const skipped = await source.whySkipped?.(path);
				if (skipped) run.problems.push({ ...skipped, severity: "warning" });
				const entry = index.get(path);
				if (entry && !entry.archived) vanished.push(entry);
			}
		}
		await run.markForeignIds(prepared);
		run.markCopies(prepared);
		run.matchMoves(prepared, vanished);

		const upserted: UpsertedNote[] = [];
		if (prepared.length + vanished.length + touched.length + run.bodies.length > 0) {
			await memory.write(() =>
				memory.pipeline.transaction(async () => {
					for (const p of prepared) {
						if (await keptNewerState(memory, this.deps.scope, run, p)) continue;
						const u = await run.upsert(p);
						if (u) upserted.push(u);
					}
					const adds = [];
					for (const u of upserted) adds.push(...(await run.reconcile(u)));
					await run.indexPassages(...upserted);
					await run.writeEdges(adds);
					await run.indexBodies();
					await run.archive(vanished);
					for (const t of touched) await run.touch(t.entry, t.info);
				}),
			);
		}
		await this.writeIds(lane, run, upserted);
		return {
			dryRun: false,
			counts: run.counts,
			idsWritten: run.idsWritten,
			notesWritten: [],
			problems: run.problems,
			timings: { totalMs: round(this.now() - started) },
		};
	}

	/**
	 * A note owed writes made outside the vault (it could not take them: not UTF-8, broken YAML)
	 * gets them before it is read, so the fixed note is not read over them; its info afresh when
	 * written. Still refused: reported, and the note is read (or refused) as it is.
	 */
	private async writeOwedFirst(lane: SyncLane, run: SyncRun, entry: NoteEntry, info: VaultFileInfo): Promise<VaultFileInfo> {
		const problem = await this.writer.writeOwedFirst(lane, entry.id);
		if (problem) {
			run.problems.push(problem);
			return info;
		}
		return (await lane.source.stat(info.path)) ?? info;
	}

	/** The note index, loaded from the graph once and then kept in step. */
	async ensureIndex(lane: SyncLane = this.deps): Promise<NoteIndex> {
		if (!this.index) this.index = await NoteIndex.load(lane.memory.graph, this.deps.scope);
		return this.index;
	}

	private newRun(lane: SyncLane, index: NoteIndex, dryRun: boolean, present: ReadonlySet<string> | undefined, freshGraph: boolean, writeIds = this.settings.writeEngramaIds): SyncRun {
		const { memory, source } = lane;
		const { scope } = this.deps;
		const pipeline = dryRun
			? // No embeddings in a dry run: they would cost time (or money) for nothing.
				memory.pipeline.withoutEmbeddings()
			: memory.pipeline;
		return new SyncRun({
			graph: memory.graph,
			pipeline,
			profile: memory.profile,
			clock: memory.clock,
			scope,
			source,
			settings: writeIds === this.settings.writeEngramaIds ? this.settings : { ...this.settings, writeEngramaIds: writeIds },
			index,
			present,
			freshGraph,
		});
	}

	/**
	 * The paths among `paths` that are synced notes (a node, not archived): those `writeMissingIds`
	 * can give an id. A note that failed to sync (a label of a module that is off, broken YAML) has
	 * no node, so a progress total counted from all notes would promise ids that never come.
	 */
	async indexedPaths(paths: readonly string[]): Promise<string[]> {
		const index = await this.ensureIndex();
		return paths.filter((path) => {
			const entry = index.get(path);
			return entry !== undefined && !entry.archived;
		});
	}

	/**
	 * Writes each given note's node id into its frontmatter as engrama_id, for notes synced by path
	 * (ids were off, or held back in a first sync): a note already indexed, unchanged since, with no
	 * engrama_id of its own. A note changed since its last sync is synced instead (which writes its
	 * id). One call is one small unit; the caller paces the calls (thousands of notes) and stops
	 * between them. `dryRun` lists the notes without writing.
	 */
	writeMissingIds(paths: readonly string[], options: { dryRun?: boolean } = {}): Promise<IdBackfill> {
		return this.batches.run(async () => {
			const index = await this.ensureIndex();
			const run = this.newRun(this.deps, index, false, undefined, false, true);
			const written: string[] = [];
			const changed: string[] = [];
			const states: WrittenIdState[] = [];
			for (const path of paths) {
				const entry = index.get(path);
				const info = entry && !entry.archived && this.isSyncedPath(path) ? await this.deps.source.stat(path) : null;
				if (!entry || !info) continue;
				let text: string;
				try {
					text = await this.deps.source.read(path);
				} catch (error) {
					run.problems.push(idWriteProblem(path, error));
					continue;
				}
				const parsed = parseNote({ path, text, settings: this.settings, profile: this.deps.memory.profile });
				if (parsed.kind !== "note" || parsed.note.id !== undefined || parsed.note.frontmatterBroken) continue;
				if (parsed.note.hash !== entry.hash) {
					changed.push(path);
					continue;
				}
				if (options.dryRun) {
					written.push(path);
					continue;
				}
				const state = await writeIdInto(this.deps, run, { info, note: parsed.note }, entry.id, this.settings);
				if (!state) continue;
				written.push(path);
				states.push({ id: entry.id, state, prepared: { info, note: parsed.note } });
			}
			await recordWrittenIds(this.deps, run, states);
			if (options.dryRun) return { written: [...written, ...changed], problems: run.problems };
			const synced = changed.length > 0 ? await this.runBatch(changed, []) : null;
			return { written: [...written, ...(synced?.idsWritten ?? [])], problems: [...run.problems, ...(synced?.problems ?? [])] };
		});
	}

	/**
	 * Writes engrama_id into the notes that still lack it after their nodes were written (event
	 * batches, renames, adopted nodes), then stores the new hashes. If a file changed in between
	 * (the user kept typing), the hash is left alone and the next sync reads the note again.
	 */
	private async writeIds(lane: SyncLane, run: SyncRun, upserted: readonly UpsertedNote[]): Promise<void> {
		const states: WrittenIdState[] = [];
		for (const u of upserted) {
			if (!u.idToWrite) continue;
			const state = await writeIdInto(lane, run, u.prepared, u.idToWrite, this.settings);
			// Not written (changed meanwhile, or failed and reported): not in the report's list.
			if (!state) run.idsWritten.splice(run.idsWritten.indexOf(u.prepared.note.path), 1);
			else if (state.hash !== u.prepared.note.hash) states.push({ id: u.idToWrite, state, prepared: u.prepared });
		}
		await recordWrittenIds(lane, run, states);
	}


}

function mergeExportCounts(report: SyncReport, extra: readonly SyncReport[]): SyncReport["counts"] {
	const counts = { ...report.counts };
	for (const r of extra) {
		for (const key of Object.keys(counts) as (keyof typeof counts)[]) {
			if (key.startsWith("files")) continue;
			counts[key] += r.counts[key];
		}
	}
	return counts;
}

/** Nodes indexed per unit after a first sync's load, in sync batches (25 notes a batch in the plugin, 500 on the command line). */
const DEFERRED_INDEX_BATCHES = 4;

function* chunks<T>(items: readonly T[], size: number): Generator<T[]> {
	for (let i = 0; i < items.length; i += Math.max(1, size)) yield items.slice(i, i + Math.max(1, size));
}

function round(ms: number): number {
	return Math.round(ms * 10) / 10;
}

export function createVaultSync(deps: VaultSyncDeps): VaultSync {
	return new VaultSync(deps);
}
