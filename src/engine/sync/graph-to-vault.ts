import { notesErased, targetsNode, type EraseHook, type EraseTarget, type NotesErased } from "../erase";
import { EngramaError, ValidationError, errorMessage } from "../errors";
import type { Memory, MemoryWriteCheck, MemoryWriteEvent } from "../memory";
import type { Profile } from "../profile";
import { SerialQueue } from "../serial-queue";
import type { NodeRecord, Scope } from "../types";
import { contentHash } from "./content-hash";
import { renderEntityNote, yamlValue, type RelationEntry } from "./entity-note";
import { editFrontmatter } from "./frontmatter";
import { safeFileName } from "./markdown-text";
import { NOTE_PROPS, noteEntryOf, type NoteIndex } from "./note-index";
import { editsNote, mergeOwed, NoteWriteError, OWED_UNTIL_FIXED, owedOf, refusalOf, writtenProps, type OwedEdit, type OwedRelation } from "./owed-edits";
import { applyProvenanceKeys, RELATION_ENTRY_KEYS, relationEntry } from "./note-provenance";
import { NOTE_ORIGIN, type PreparedNote, type SyncRun } from "./sync-run";
import type { SyncProblem, SyncReport } from "./sync-report";
import type { SyncSettings } from "./sync-settings";
import { noteBasename, type VaultSource } from "./vault-source";

/** The graph and vault one piece of work goes through (in the plugin, a work-gate lane). */
export interface SyncLane {
	readonly memory: Memory;
	readonly source: VaultSource;
}

export interface GraphToVaultDeps extends SyncLane {
	readonly scope: Scope;
	readonly settings: SyncSettings;
	/**
	 * Where writes made elsewhere (`attach`) are replicated; default `memory`/`source`, which the
	 * full sync's backfill uses. The plugin gives the agents' lane: those graph writes already
	 * committed, so a cancelled task must not stop their notes.
	 */
	readonly replication?: SyncLane;
	/** Syncs notes back into the graph after writing them (sets obsidian_path, hashes, edge origins). */
	readonly syncPaths: (paths: readonly string[], lane: SyncLane) => Promise<SyncReport>;
	readonly noteIndex: (lane: SyncLane) => Promise<NoteIndex>;
	readonly onReport?: (report: SyncReport) => void;
	readonly onError?: (error: unknown) => void;
	/** Registered with `attach`: holds the vault's work around an erase (VaultSync's). */
	readonly eraseHook?: EraseHook;
}

/**
 * What a node is, for "has it changed since": its update time and its props but sync's note
 * bookkeeping (recording where the note is does not change the node).
 */
export function nodeStamp(node: NodeRecord): string {
	const bookkeeping = new Set<string>(Object.values(NOTE_PROPS));
	const props = Object.keys(node.props)
		.filter((name) => !bookkeeping.has(name))
		.sort()
		.map((name) => [name, node.props[name]]);
	return contentHash(JSON.stringify([node.label, node.key, node.updatedAt, props]));
}

/** The note graph → vault last wrote for a node (`NOTE_PROPS.written`), or undefined. */
export interface WrittenNote {
	readonly path: string;
	readonly hash: string;
	/** `nodeStamp` of the node the note was rendered from. */
	readonly stamp: string;
	/** Engrama created the note and every text it held since was Engrama's: an erase removes it. */
	readonly created: boolean;
}

export function writtenNoteOf(node: NodeRecord): WrittenNote | undefined {
	const raw = node.props[NOTE_PROPS.written];
	if (typeof raw !== "string") return undefined;
	try {
		const [path, hash, stamp, created] = JSON.parse(raw) as unknown[];
		return typeof path === "string" && typeof hash === "string" && typeof stamp === "string" ? { path, hash, stamp, created: created === 1 } : undefined;
	} catch {
		return undefined;
	}
}

/**
 * A note graph → vault wrote (`NOTE_PROPS.written`), still exactly as written, whose node has
 * changed since it was rendered (an agent's update committed while the note was being written,
 * or before a crash cut its replication short): reading it back would revert that update. Only
 * where the note is and what it holds is recorded; the change is replicated into the note by its
 * own graph → vault job. Called inside the sync's unit of writes, so nothing lands between the
 * check and the record. A note the person changed since has another hash: synced as usual.
 */
export async function keptNewerState(memory: Memory, scope: Scope, run: SyncRun, prepared: PreparedNote): Promise<boolean> {
	const { note, info } = prepared;
	// A fresh graph (a rebuild) holds no node to compare with.
	if (!note.id || run.deps.freshGraph) return false;
	// From the store, not the run's cache: the cache may predate the write that changed it.
	const node = await memory.graph.getNodeById(scope, note.id);
	const own = node && writtenNoteOf(node);
	if (!node || !own || own.path !== note.path || own.hash !== note.hash || own.stamp === nodeStamp(node)) return false;
	await run.recordNoteState(node, { [NOTE_PROPS.path]: note.path, [NOTE_PROPS.hash]: note.hash, [NOTE_PROPS.mtime]: info.mtime, [NOTE_PROPS.size]: info.size });
	run.counts.filesUnchanged++;
	return true;
}

/** The notes of `prepared` a sync reads into the graph: all but those `keptNewerState` keeps. */
export async function notesToRead(memory: Memory, scope: Scope, run: SyncRun, prepared: readonly PreparedNote[]): Promise<PreparedNote[]> {
	const out: PreparedNote[] = [];
	for (const p of prepared) if (!(await keptNewerState(memory, scope, run, p))) out.push(p);
	return out;
}

export interface ExportResult {
	/** Notes created (or, in a dry run, that would be created). */
	readonly paths: readonly string[];
	readonly problems: readonly SyncProblem[];
	/** The syncs that followed the writes. */
	readonly reports: readonly SyncReport[];
}

const PAGE = 5000;

/**
 * The graph → vault direction, so the vault stays the whole record: a relation added outside the vault (command line, MCP)
 * goes into its source note's `relations` map; an entity remembered outside the vault becomes a
 * note under `<notesFolder>/<Label>/<name>.md`. Every write is followed by a normal sync of that
 * note, so the graph ends exactly as a sync of the vault would make it, and the modify event the
 * write causes finds an unchanged hash: no loop. Writes made by sync itself are ignored.
 */
export class GraphToVault {
	private readonly queue = new SerialQueue();
	readonly problems: SyncProblem[] = [];

	private readonly replication: SyncLane;
	/** Erases under way: replications of their nodes are dropped. */
	private readonly erasing: EraseTarget[] = [];

	constructor(private readonly deps: GraphToVaultDeps) {
		this.replication = deps.replication ?? deps;
	}

	/**
	 * Replicates writes made through `Memory` (remember, relate) from now on, and holds the vault's
	 * work around erases; returns the detach function.
	 */
	attach(): () => void {
		const { memory } = this.replication;
		const offWrite = memory.onWrite((event) => this.onWrite(event));
		const offErase = this.deps.eraseHook ? memory.onErase(this.deps.eraseHook) : () => undefined;
		return () => {
			offWrite();
			offErase();
		};
	}

	/**
	 * Runs `job` once the replications queued before it are done, dropping those of `target`'s
	 * nodes (not yet started: they would write an erased node into a note) until `job` ends.
	 */
	async holding<T>(target: EraseTarget, job: () => Promise<T>): Promise<T> {
		this.erasing.push(target);
		try {
			await this.idle();
			return await job();
		} finally {
			this.erasing.splice(this.erasing.indexOf(target), 1);
		}
	}

	private erased(id: string): boolean {
		return this.erasing.some((target) => targetsNode(target, this.deps.scope, id));
	}

	/**
	 * After an erase, its nodes' notes: one Engrama created and that holds exactly what Engrama last
	 * wrote goes with the memory; any other (a person's note, or Engrama's edited since) is kept.
	 */
	async removeNotes(erased: readonly NodeRecord[]): Promise<NotesErased> {
		const { source } = this.replication;
		let removed = 0;
		const kept: string[] = [];
		for (const node of erased) {
			const path = notePath(node);
			if (!path || !(await source.stat(path))) continue;
			const own = writtenNoteOf(node);
			const ours = own?.created === true && own.path === path && source.remove !== undefined;
			if (ours && (await source.remove!(path, own.hash))) removed++;
			else kept.push(path);
		}
		return notesErased(removed, kept);
	}

	/** Resolves once every replication queued so far is done. */
	idle(): Promise<void> {
		return this.queue.run(async () => undefined);
	}

	private onWrite(event: MemoryWriteEvent): MemoryWriteCheck | void {
		const { scope, settings } = this.deps;
		if (!settings.writeGraphToVault || event.ctx.source === "sync") return;
		// Another tenant's write (MCP scope headers) never lands in this person's vault.
		if (event.ctx.scope.orgId !== scope.orgId || event.ctx.scope.userId !== scope.userId) return;
		// The writer's check, when it asks (at once, from `announce`), goes first: interleaved with the
		// replication, the answer would wait for most of the replication's work.
		let checked: Promise<unknown> = Promise.resolve();
		void this.queue
			.run(async () => {
				await checked;
				const ids = event.kind === "entity" ? [event.write.node.id] : [event.write.from.id, event.write.to.id];
				if (ids.some((id) => this.erased(id))) return null;
				return event.kind === "entity" ? this.entityWritten(this.replication, event) : this.relationWritten(this.replication, event);
			})
			.then((report) => {
				if (report) this.deps.onReport?.(report);
			})
			.catch((error: unknown) => {
				const path = error instanceof NoteWriteError ? error.path : "(graph → vault)";
				const refused = refusalOf(error);
				this.problems.push({
					path,
					severity: "warning",
					problem: `A change made outside the vault could not be written into the note: ${refused.reason}.`,
					action: `${refused.action} ${OWED_UNTIL_FIXED}`,
				});
				if (!(error instanceof EngramaError || error instanceof NoteWriteError)) this.deps.onError?.(error);
			});
		return () => {
			const warnings = this.refusal(event);
			checked = warnings;
			return warnings;
		};
	}

	/**
	 * Why the note `event` is replicated into cannot take it (not UTF-8, frontmatter Engrama cannot
	 * edit), as a warning for the writer's answer; none when it can or the write edits no note.
	 * Checked on the note as it is now (one read), not by waiting for the queued replication, and
	 * from the node as the write left it: a graph read would wait for the replication's writes.
	 */
	private async refusal(event: MemoryWriteEvent): Promise<readonly string[]> {
		const { memory, source } = this.replication;
		try {
			const node = event.kind === "entity" ? event.write.node : event.write.from;
			const path = notePath(node);
			if (!path || node.props.status === "archived") return [];
			if (event.kind === "entity" && !editsNote(memory.profile, node, event.input.props)) return [];
			if (!(await source.stat(path))) return [];
			try {
				editFrontmatter(await source.read(path), event.kind === "relation" ? (fm) => void relationsOf(fm) : () => undefined);
				return [];
			} catch (error) {
				const refused = refusalOf(error);
				return [`Not written into the note ${path}: ${refused.reason}. ${refused.action} ${OWED_UNTIL_FIXED}`];
			}
		} catch (error) {
			// The check is advice: the write committed and its replication reports its own failure.
			this.deps.onError?.(error);
			return [];
		}
	}

	private async entityWritten(lane: SyncLane, event: Extract<MemoryWriteEvent, { kind: "entity" }>): Promise<SyncReport | null> {
		const { memory, source } = lane;
		const { scope } = this.deps;
		const node = await memory.graph.getNodeById(scope, event.write.node.id);
		if (!node) return null;
		const path = notePath(node);
		if (path) {
			if (node.props.status === "archived" || !(await source.stat(path))) return null;
			if (!editsNote(memory.profile, node, event.input.props)) return null;
			await this.writeOwed(lane, path, node, [{ props: writtenProps(memory.profile, node, event.input.props) }]);
			return this.deps.syncPaths([path], lane);
		}
		if (!this.exportable(node)) return null;
		const created = await this.createNote(lane, node, new Set());
		return this.deps.syncPaths([created], lane);
	}

	/**
	 * Records which note is being written from which state of `node` (`NOTE_PROPS.written`), so a
	 * sync that finds that very text while the node has changed since does not read it back over
	 * the newer state (`VaultSync`), even after a crash between the write and its sync back.
	 */
	private async recordWritten(lane: SyncLane, node: NodeRecord, path: string, hash: string, created: boolean): Promise<void> {
		const { memory } = lane;
		const { scope } = this.deps;
		const record = JSON.stringify([path, hash, nodeStamp(node), created ? 1 : 0]);
		const updated = await memory.write(async () => {
			// The stored node as it is now: the record must not carry an older update time back.
			const current = await memory.graph.getNodeById(scope, node.id);
			if (!current) return null;
			// What the note owed went in with this write, unless more was owed since `node` was read.
			const paid = current.props[NOTE_PROPS.pending] !== undefined && current.props[NOTE_PROPS.pending] === node.props[NOTE_PROPS.pending];
			const written = await memory.pipeline.updateNoteState({ scope, source: "sync" }, current, { [NOTE_PROPS.written]: record }, paid ? [NOTE_PROPS.pending] : []);
			return paid ? written : null;
		});
		if (updated) await this.indexed(lane, updated);
	}

	/**
	 * Writes into the note what `node` owes it (`NOTE_PROPS.pending`) and the edits `owed`. When the
	 * note cannot take them (not UTF-8, broken YAML, unwritable) they stay owed on the node, so a
	 * sync of the fixed note writes them in (`writeOwedFirst`) instead of reading the note over them.
	 */
	private async writeOwed(lane: SyncLane, path: string, node: NodeRecord, owed: readonly OwedEdit[]): Promise<void> {
		const all = mergeOwed([...owedOf(node), ...owed]);
		const mutate = await this.mutation(lane, node, all);
		try {
			await this.edit(lane, path, node, mutate);
		} catch (error) {
			if (error instanceof NoteWriteError) await this.recordOwed(lane, node, all);
			throw error;
		}
	}

	private async recordOwed(lane: SyncLane, node: NodeRecord, owed: readonly OwedEdit[]): Promise<void> {
		const { memory } = lane;
		const { scope } = this.deps;
		const updated = await memory.write(async () => {
			const current = await memory.graph.getNodeById(scope, node.id);
			if (!current) return null;
			const all = JSON.stringify(mergeOwed([...owedOf(current), ...owed]));
			return memory.pipeline.updateNoteState({ scope, source: "sync" }, current, { [NOTE_PROPS.pending]: all });
		});
		if (updated) await this.indexed(lane, updated);
	}

	/** Keeps the note index's entry (which says whether the note is owed writes) in step with the node. */
	private async indexed(lane: SyncLane, node: NodeRecord): Promise<void> {
		const entry = noteEntryOf(node);
		if (entry) (await this.deps.noteIndex(lane)).set(entry);
	}

	/**
	 * Before a sync reads the note of node `id`: writes in what graph → vault owes it, so the fixed
	 * note takes the write instead of being read over it. A problem when it still cannot (the edits
	 * stay owed); null when done or nothing was owed.
	 */
	async writeOwedFirst(lane: SyncLane, id: string): Promise<SyncProblem | null> {
		// Writing into notes turned off since: the person chose the vault as it is.
		if (!this.deps.settings.writeGraphToVault) return null;
		const node = await lane.memory.graph.getNodeById(this.deps.scope, id);
		const path = node ? notePath(node) : undefined;
		if (!node || !path || owedOf(node).length === 0 || node.props.status === "archived" || this.erased(id)) return null;
		if (!(await lane.source.stat(path))) return null;
		try {
			await this.writeOwed(lane, path, node, []);
			return null;
		} catch (error) {
			if (!(error instanceof NoteWriteError)) throw error;
			const refused = refusalOf(error);
			return {
				path,
				severity: "warning",
				problem: `Changes made outside the vault still wait to be written into the note: ${refused.reason}.`,
				action: `${refused.action} ${OWED_UNTIL_FIXED}`,
			};
		}
	}

	/**
	 * The frontmatter edit for `owed`: the node's props named and its provenance keys (engine writes
	 * only set these keys, never remove them: removing them is how the person vouches), and each
	 * relation still in the graph, its entry stating its writer.
	 */
	private async mutation(lane: SyncLane, node: NodeRecord, owed: readonly OwedEdit[]): Promise<(fm: Record<string, unknown>) => void> {
		const { memory } = lane;
		const { scope } = this.deps;
		const props = owed.flatMap((e) => ("props" in e ? e.props : []));
		const ownState = owed.some((e) => "props" in e);
		const wanted = owed.filter((e): e is OwedRelation => "type" in e);
		const edges = wanted.length > 0 ? await memory.graph.edgesOf(scope, node.id, "out") : [];
		const relations: { type: string; entry: RelationEntry; to: NodeRecord }[] = [];
		for (const e of wanted) {
			const edge = edges.find((x) => x.type === e.type && x.node.id === e.to);
			// The relation's writer is stated with it (so it survives a rebuild from the vault).
			if (edge) relations.push({ type: e.type, to: edge.node, entry: relationEntry(await this.refFor(lane, edge.node), edge.edge.props, node) });
		}
		return (fm) => {
			for (const name of props) {
				const value = node.props[name];
				if (value === undefined || value === null) delete fm[name];
				else fm[name] = yamlValue(value);
			}
			if (ownState) applyProvenanceKeys(fm, node);
			for (const r of relations) addRelation(fm, r.type, r.entry, r.to, memory.profile);
		};
	}

	private async relationWritten(lane: SyncLane, event: Extract<MemoryWriteEvent, { kind: "relation" }>): Promise<SyncReport | null> {
		const { memory, source } = lane;
		const { scope } = this.deps;
		const from = await memory.graph.getNodeById(scope, event.write.from.id);
		const to = await memory.graph.getNodeById(scope, event.write.to.id);
		if (!from || !to) return null;
		const path = notePath(from);
		if (!path) {
			if (!this.exportable(from)) return null;
			const created = await this.createNote(lane, from, new Set());
			return this.deps.syncPaths([created], lane);
		}
		if (from.props.status === "archived" || !(await source.stat(path))) return null;
		// The relation is its writer's: its entry states who made it, the note's own text keeps its trust.
		await this.writeOwed(lane, path, from, [{ type: event.write.type, to: to.id }]);
		return this.deps.syncPaths([path], lane);
	}

	/**
	 * The backfill a full sync runs: the `candidates` (nodes that had no note when the sync began)
	 * get notes, and, with `backfillRelations`, every relation that a note-backed entity has but its
	 * note does not declare (added by a process without the vault) is written into the note. A dry
	 * run only reports the notes it would create.
	 */
	async exportMissing(dryRun: boolean, candidates: readonly string[]): Promise<ExportResult> {
		return this.queue.run(async () => {
			const { memory, scope, settings } = this.deps;
			const problems: SyncProblem[] = [];
			const paths: string[] = [];
			const reserved = new Set<string>();
			const edited = new Set<string>();
			for (const id of candidates) {
				const node = await memory.graph.getNodeById(scope, id);
				if (!node || notePath(node) || !this.exportable(node)) continue;
				try {
					paths.push(dryRun ? await this.plannedPath(this.deps, node, reserved) : await this.createNote(this.deps, node, reserved));
				} catch (error) {
					problems.push({
						path: this.folderFor(node),
						severity: "warning",
						problem: `${node.label} "${node.key}" could not be written as a note: ${errorMessage(error)}`,
						action: "Check that the notes folder is writable; the next full sync tries again.",
					});
				}
			}
			if (!dryRun && settings.backfillRelations) {
				for (let offset = 0; ; offset += PAGE) {
					const page = await memory.graph.listNodes(scope, { limit: PAGE, offset });
					for (const node of page) {
						const path = notePath(node);
						if (path && (await this.backfillRelations(node, path, problems))) edited.add(path);
					}
					if (page.length < PAGE) break;
				}
			}
			const reports: SyncReport[] = [];
			const toSync = [...new Set([...paths, ...edited])];
			if (!dryRun && toSync.length > 0) {
				const report = await this.deps.syncPaths(toSync, this.deps);
				reports.push(report);
				problems.push(...report.problems);
			}
			return { paths, problems, reports };
		});
	}

	/** Writes a note-backed node's outgoing relations that its note does not declare; true when the note changed. */
	private async backfillRelations(node: NodeRecord, path: string, problems: SyncProblem[]): Promise<boolean> {
		const { memory, scope, source } = this.deps;
		const lane: SyncLane = this.deps;
		if (node.props.status === "archived") return false;
		const foreign = (await memory.graph.edgesOf(scope, node.id, "out")).filter((e) => e.edge.props.origin !== NOTE_ORIGIN);
		if (foreign.length === 0 || !(await source.stat(path))) return false;
		const refs = await Promise.all(foreign.map(async (e) => ({ type: e.type, node: e.node, entry: relationEntry(await this.refFor(lane, e.node), e.edge.props, node) })));
		try {
			await this.edit(lane, path, node, (fm) => {
				for (const r of refs) addRelation(fm, r.type, r.entry, r.node, memory.profile);
			});
			return true;
		} catch (error) {
			problems.push({
				path,
				severity: "warning",
				problem: `Relations added outside the vault could not be written into the note: ${errorMessage(error)}`,
				action: "Fix the note's frontmatter; the next full sync tries again.",
			});
			return false;
		}
	}

	private exportable(node: NodeRecord): boolean {
		const status = node.props.status;
		return status !== "stub" && status !== "archived" && !this.deps.settings.exportExcludedLabels.includes(node.label);
	}

	private folderFor(node: NodeRecord): string {
		const root = this.deps.settings.notesFolder.replace(/\/+$/, "");
		return `${root ? `${root}/` : ""}${safeFileName(node.label)}`;
	}

	/** A free path for the node's note: `<folder>/<Label>/<safe name>.md`, then " 2", " 3"... */
	private async plannedPath(lane: SyncLane, node: NodeRecord, reserved: Set<string>): Promise<string> {
		const base = `${this.folderFor(node)}/${safeFileName(node.key)}`;
		for (let n = 1; n < 1000; n++) {
			const path = n === 1 ? `${base}.md` : `${base} ${n}.md`;
			if (reserved.has(path.toLowerCase())) continue;
			if (await lane.source.stat(path)) continue;
			reserved.add(path.toLowerCase());
			return path;
		}
		throw new ValidationError(`No free file name for ${node.label} "${node.key}" in ${this.folderFor(node)}.`);
	}

	/** Writes the node's note and returns its path. */
	private async createNote(lane: SyncLane, node: NodeRecord, reserved: Set<string>): Promise<string> {
		const { memory, source } = lane;
		const { scope } = this.deps;
		const path = await this.plannedPath(lane, node, reserved);
		const edges = await memory.graph.edgesOf(scope, node.id, "out");
		const relations: { type: string; entry: RelationEntry }[] = [];
		for (const e of edges) relations.push({ type: e.type, entry: relationEntry(await this.refFor(lane, e.node), e.edge.props, node) });
		const text = renderEntityNote(node, relations, memory.profile);
		// Before the file exists: a crash between the write and its sync back is covered too.
		await this.recordWritten(lane, node, path, contentHash(text), true);
		try {
			await source.create(path, text);
		} catch (error) {
			throw new NoteWriteError(path, error);
		}
		return path;
	}

	/** How a note names a target: `[[file name]]` (or `[[folder/file]]` when ambiguous) for notes, else the name. */
	private async refFor(lane: SyncLane, target: NodeRecord): Promise<string> {
		const path = notePath(target);
		if (!path) return target.key;
		const index = await this.deps.noteIndex(lane);
		const base = noteBasename(path);
		return index.resolve(base)?.path === path ? `[[${base}]]` : `[[${path.slice(0, -3)}]]`;
	}

	/**
	 * Edits the note's frontmatter (written from `node`'s state) and records what it wrote; a note
	 * Engrama created stays Engrama's only while nobody else changed it.
	 */
	private async edit(lane: SyncLane, path: string, node: NodeRecord, mutate: (fm: Record<string, unknown>) => void): Promise<void> {
		let hash: string;
		let created = false;
		try {
			const own = writtenNoteOf(node);
			if (own?.created && own.path === path) created = contentHash(await lane.source.read(path)) === own.hash;
			const written = await lane.source.processFrontMatter(path, mutate);
			// The text is known only once written (Obsidian's processFrontMatter returns none: read back).
			hash = contentHash(typeof written === "string" ? written : await lane.source.read(path));
		} catch (error) {
			throw new NoteWriteError(path, error);
		}
		await this.recordWritten(lane, node, path, hash, created);
	}
}

function notePath(node: NodeRecord): string | undefined {
	const path = node.props[NOTE_PROPS.path];
	return typeof path === "string" && path !== "" ? path : undefined;
}

/** Adds `entry` to `relations[type]` unless the note already names that target; true when it added it. */
function addRelation(fm: Record<string, unknown>, type: string, entry: RelationEntry, target: NodeRecord, profile: Profile): boolean {
	const relations = relationsOf(fm);
	const key = Object.keys(relations).find((k) => profile.resolveRelationType(k) === type) ?? type;
	const value = relations[key];
	const list: unknown[] = value === undefined || value === null ? [] : Array.isArray(value) ? [...(value as unknown[])] : [value];
	const ref = entryRef(entry) as string;
	const names = new Set([target.key.toLowerCase(), ref.toLowerCase(), ref.replace(/^\[\[|\]\]$/g, "").toLowerCase()]);
	const already = list.some((listed) => {
		const item = entryRef(listed);
		if (typeof item !== "string") return false;
		const plain = item.replace(/^\[\[|\]\]$/g, "").split(/[|#]/)[0].trim().toLowerCase();
		return names.has(item.toLowerCase()) || names.has(plain) || names.has(plain.slice(plain.lastIndexOf("/") + 1));
	});
	if (already) return false;
	list.push(entry);
	relations[key] = list;
	fm.relations = relations;
	return true;
}

/** The frontmatter's `relations` map ({} when none); throws when it is something else, which a relation cannot be added to. */
function relationsOf(fm: Readonly<Record<string, unknown>>): Record<string, unknown> {
	const current = fm.relations;
	if (current !== undefined && current !== null && (typeof current !== "object" || Array.isArray(current))) {
		throw new ValidationError('"relations" in the frontmatter is not a map, so the new relation cannot be added');
	}
	return (current ?? {}) as Record<string, unknown>;
}

/** The target an entry names: itself when plain, its `to` when it states a writer. */
function entryRef(entry: unknown): unknown {
	return entry && typeof entry === "object" && !Array.isArray(entry) ? (entry as Record<string, unknown>)[RELATION_ENTRY_KEYS.to] : entry;
}
