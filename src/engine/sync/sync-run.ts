import { newEngramaId } from "../clock";
import { EngramaError, errorMessage } from "../errors";
import type { NodeRecord, PropValue } from "../types";
import type { EntityInput, EntityWrite, RelationInput, WriteContext } from "../write/write-pipeline";
import { NodeCache } from "./node-cache";
import { NoteEncodingError } from "./note-encoding";
import { NoteEdges } from "./note-edges";
import { claimedId, NoteIdentity } from "./note-identity";
import { NOTE_PROPS, type NoteEntry, noteEntryOf } from "./note-index";
import { parseNote, type ParsedNote } from "./note-parser";
import { notedProvenance, noteProps } from "./note-props";
import { ownerPath, type PreparedNote, type RunState, type SyncRunDeps, type UpsertedNote } from "./run-state";
import { emptyCounts, type SyncCounts, type SyncProblem } from "./sync-report";
import type { VaultFileInfo } from "./vault-source";

export { NOTE_ORIGIN, type PreparedNote, type SyncRunDeps, type UpsertedNote } from "./run-state";

/** Writes engrama_id into a note; null when it was not written (changed meanwhile, or failed and reported). */
export type IdWriter = (prepared: PreparedNote, id: string) => Promise<WrittenId | null>;

/** A note after sync wrote its engrama_id: the new text's hash and the file's info. */
export interface WrittenId {
	readonly hash: string;
	readonly info: VaultFileInfo;
	/** The file line the body now starts on (the id may have added frontmatter lines). */
	readonly bodyLine?: number;
}

export type ReadOutcome =
	| { readonly kind: "prepared"; readonly prepared: PreparedNote }
	| { readonly kind: "touched"; readonly entry: NoteEntry; readonly info: VaultFileInfo; readonly note?: ParsedNote }
	/** Broken frontmatter on a note that has a node: kept in `bodies` for `indexBodies`. */
	| { readonly kind: "body" }
	| { readonly kind: "skipped" }
	| { readonly kind: "failed" };

/** A fresh graph's plain create waiting for the batch write of `upsertAll`. */
interface PendingCreate {
	readonly at: number;
	readonly prepared: PreparedNote;
	readonly input: EntityInput;
}

/**
 * The work of one sync (a full sync or one batch of vault events): reading notes, giving each its
 * node, reconciling the edges it declares, archiving what vanished. Holds the counters and the
 * problems; which node a note is lives in `NoteIdentity`, its edges in `NoteEdges`, the run's
 * lookups in `NodeCache`. Every write goes through the write pipeline; the caller runs the run
 * inside one unit of writes (`Memory.write` + `WritePipeline.transaction`).
 */
export class SyncRun {
	readonly counts: SyncCounts = emptyCounts();
	readonly problems: SyncProblem[] = [];
	readonly idsWritten: string[] = [];
	private readonly ctx: WriteContext;
	private readonly parsedIds = new Map<string, string | undefined>();
	private readonly cache: NodeCache;
	private readonly identity: NoteIdentity;
	private readonly edges: NoteEdges;
	private idWriter: IdWriter | undefined;
	/** Notes read with broken frontmatter whose node stays as it was: only their passages follow the text. */
	readonly bodies: { readonly entry: NoteEntry; readonly info: VaultFileInfo; readonly note: ParsedNote }[] = [];

	constructor(readonly deps: SyncRunDeps) {
		this.ctx = { scope: deps.scope, source: "sync" };
		this.cache = new NodeCache(deps.graph, deps.scope, !!deps.freshGraph);
		const state: RunState = { deps, ctx: this.ctx, counts: this.counts, problems: this.problems, parsedIds: this.parsedIds, cache: this.cache };
		this.identity = new NoteIdentity(state);
		this.edges = new NoteEdges(state);
	}

	/**
	 * On a fresh graph, write engrama_id into a new note before its node is created, so the node is
	 * stored once, with the hash of the text that holds the id (otherwise ids are written after).
	 */
	writeIdsFirst(writer: IdWriter): void {
		this.idWriter = writer;
	}

	// --- reading ---

	/** Reads and parses one file unless its stored hash says nothing changed. */
	async read(info: VaultFileInfo): Promise<ReadOutcome> {
		const { settings, profile, source, index } = this.deps;
		if (info.size > settings.maxNoteBytes) {
			this.problems.push({
				path: info.path,
				severity: "error",
				problem: `The note is ${(info.size / 1024 / 1024).toFixed(1)} MB, over the ${(settings.maxNoteBytes / 1024 / 1024).toFixed(1)} MB sync limit.`,
				action: "Split it into smaller notes, or raise the maximum note size in the sync settings. Its stored node is kept as it was.",
			});
			this.counts.filesSkipped++;
			return { kind: "failed" };
		}
		let text: string;
		try {
			text = await source.read(info.path);
		} catch (error) {
			this.problems.push({
				path: info.path,
				severity: "error",
				problem: `The file could not be read: ${errorMessage(error)}.`,
				action: error instanceof NoteEncodingError ? error.action : "Check that it exists and is readable; its stored node is kept as it was.",
			});
			return { kind: "failed" };
		}
		this.counts.filesRead++;
		const result = parseNote({ path: info.path, text, settings, profile });
		if (result.kind === "invalid") {
			this.problems.push(...result.problems);
			return { kind: "failed" };
		}
		if (result.kind === "skipped") {
			this.counts.filesSkipped++;
			return { kind: "skipped" };
		}
		const note = result.note;
		this.parsedIds.set(note.path, note.id);
		const entry = index.get(note.path);
		if (note.frontmatterBroken && entry && !entry.archived) {
			this.problems.push(...note.warnings);
			this.bodies.push({ entry, info, note });
			return { kind: "body" };
		}
		// Same text but another label: the profile changed (a module turned on), so the node follows.
		if (entry && !entry.archived && entry.hash === note.hash && entry.label === note.label) {
			this.counts.filesUnchanged++;
			return { kind: "touched", entry, info, note };
		}
		this.problems.push(...note.warnings);
		return { kind: "prepared", prepared: { info, note } };
	}

	// --- identity (note-identity.ts) ---

	/** See `NoteIdentity.markCopies`. */
	markCopies(prepared: readonly PreparedNote[]): void {
		this.identity.markCopies(prepared);
	}

	/** See `NoteIdentity.markForeignIds`. */
	markForeignIds(prepared: readonly PreparedNote[]): Promise<void> {
		return this.identity.markForeignIds(prepared);
	}

	/** See `NoteIdentity.matchMoves`. */
	matchMoves(prepared: readonly PreparedNote[], vanished: readonly NoteEntry[]): void {
		this.identity.matchMoves(prepared, vanished);
	}

	// --- nodes ---

	/** Gives one note its node (create, update, move, rename, adopt a stub); null when it must wait. */
	async upsert(prepared: PreparedNote): Promise<UpsertedNote | null> {
		try {
			// No savepoint per note: a plain create/update is one atomic MERGE whose checks run before
			// it writes; the multi-step paths (rename, adopting a stub) take their own below.
			return await this.upsertUnsafe(prepared);
		} catch (error) {
			if (!(error instanceof EngramaError)) throw error;
			this.problems.push({
				path: prepared.note.path,
				severity: "error",
				problem: error.message,
				action: "Fix the note's frontmatter; its stored node is kept as it was.",
			});
			return null;
		}
	}

	/**
	 * `upsert` for a batch of notes, results in order (null where a note must wait). On a fresh graph
	 * (a rebuild, a first sync) the plain creates are written together through the pipeline's
	 * `mergeEntities` (one backend call where it has `mergeNodes`); a note whose lookups could
	 * depend on a pending create (same label + key, same engrama_id, a copy) first flushes them and
	 * takes the one-by-one path. If the batch write fails, its notes are retried one by one, so
	 * each failing note is reported on its own.
	 */
	async upsertAll(prepared: readonly PreparedNote[]): Promise<(UpsertedNote | null)[]> {
		const out: (UpsertedNote | null)[] = [];
		if (!this.deps.freshGraph || !this.deps.pipeline.mergesInBulk) {
			for (const p of prepared) out.push(await this.upsert(p));
			return out;
		}
		const pending: PendingCreate[] = [];
		const pendingKeys = new Set<string>();
		const pendingIds = new Set<string>();
		const flush = async () => {
			await this.createAll(pending.splice(0), out);
			pendingKeys.clear();
			pendingIds.clear();
		};
		for (const original of prepared) {
			let p = original;
			let plan = this.plainCreate(p);
			const at = out.length;
			out.push(null);
			if (plan && !pendingKeys.has(plan.identity) && !(plan.input.id && pendingIds.has(plan.input.id))) {
				if (!plan.input.id && !p.foreignId && !p.note.frontmatterBroken && this.idWriter) {
					const withId = await this.writeIdFirst(p);
					if (withId) {
						p = withId;
						plan = this.plainCreate(p) ?? plan;
					}
				}
				pending.push({ at, prepared: p, input: plan.input });
				pendingKeys.add(plan.identity);
				if (plan.input.id) pendingIds.add(plan.input.id);
				continue;
			}
			await flush();
			out[at] = await this.upsert(p);
		}
		await flush();
		// Async work after the writes (absorbing stubs) does not apply on a fresh graph.
		return out;
	}

	/** Writes a batch of plain creates in one pipeline call; if it fails, note by note. */
	private async createAll(batch: readonly PendingCreate[], out: (UpsertedNote | null)[]): Promise<void> {
		if (batch.length === 0) return;
		let writes: EntityWrite[];
		try {
			// A fresh graph: fulltext and name index built after the load (buildDeferredIndexes).
			writes = await this.deps.pipeline.mergeEntities(this.ctx, batch.map((b) => b.input), { deferIndexes: true });
		} catch (error) {
			if (!(error instanceof EngramaError)) throw error;
			for (const b of batch) out[b.at] = await this.upsert(b.prepared);
			return;
		}
		batch.forEach((b, i) => {
			const upserted = this.stored(b.prepared, writes[i], { moved: false, previousPath: undefined });
			if (upserted.idToWrite) this.idsWritten.push(b.prepared.note.path);
			out[b.at] = upserted;
		});
	}

	/** The note as it reads after sync wrote a new engrama_id into it, or null when it was not written. */
	private async writeIdFirst(p: PreparedNote): Promise<PreparedNote | null> {
		const id = newEngramaId();
		const written = await this.idWriter?.(p, id);
		if (!written) return null;
		this.idsWritten.push(p.note.path);
		this.parsedIds.set(p.note.path, id);
		const shift = (written.bodyLine ?? p.note.bodyLine) - p.note.bodyLine;
		const passages = shift === 0 ? p.note.passages : p.note.passages.map((passage) => ({ ...passage, line: passage.line + shift }));
		const note = { ...p.note, id, hasIdKey: true, hash: written.hash, frontmatter: { ...p.note.frontmatter, engrama_id: id }, passages, bodyLine: p.note.bodyLine + shift };
		return { ...p, info: written.info, note };
	}

	/**
	 * On a fresh graph: the write for a note that simply becomes a new node (no copy, no move, its
	 * id and label + key unclaimed so far), or undefined when it needs the general path.
	 */
	private plainCreate(prepared: PreparedNote): { identity: string; input: EntityInput } | undefined {
		const { profile, index } = this.deps;
		const note = prepared.note;
		if (prepared.copyOf || prepared.moveFrom || index.get(note.path)) return undefined;
		const def = profile.resolveLabel(note.label);
		if (!def) return undefined;
		if (note.id && this.cache.has(note.id)) return undefined;
		if (this.cache.holds(note.label, note.key)) return undefined;
		const props = noteProps(note, prepared.info, null, def.status?.default ?? "active");
		return {
			identity: `${def.label}\u0000${note.key}`,
			input: { label: def.label, key: note.key, props: props.set, id: claimedId(prepared), unset: props.unset, existing: null, provenance: props.provenance },
		};
	}

	private async upsertUnsafe(prepared: PreparedNote): Promise<UpsertedNote | null> {
		const { profile, pipeline } = this.deps;
		const note = prepared.note;
		const path = note.path;
		const def = profile.resolveLabel(note.label);
		if (!def) throw new EngramaError("invalid_input", `Label ${note.label} vanished from the profile.`);
		const found = await this.identity.find(prepared);
		if (!found) return null;
		const { node, claimed, adopted } = found;
		const previousPath = node ? ownerPath(node) : undefined;
		const moved = !!node && !!previousPath && previousPath !== path;
		const newId = node && adopted && claimed && claimed !== node.id ? claimed : undefined;
		const needsRekey = !!node && (node.label !== note.label || node.key !== found.key || !!newId);
		const merge = async (): Promise<EntityWrite | null> => {
			let current = node;
			let key = found.key;
			if (current && needsRekey) {
				const target = { label: def.label, key, id: newId, path };
				const rekeyed = await this.identity.rekey(current, target, notedProvenance(current, note.provenance));
				if (!rekeyed) return null;
				({ node: current, key } = rekeyed);
			}
			const props = noteProps(note, prepared.info, current, def.status?.default ?? "active");
			return pipeline.mergeEntity(this.ctx, {
				label: def.label,
				key,
				props: props.set,
				id: current ? undefined : claimed,
				unset: props.unset,
				provenance: props.provenance,
			});
		};
		// Renaming and adopting are several writes: one savepoint, so a failure leaves the node as it was.
		const write = needsRekey ? await pipeline.transaction(merge) : await merge();
		if (!write) return null;
		const upserted = this.stored(prepared, write, { moved, previousPath });
		if (!this.deps.freshGraph && (write.created || moved || adopted || previousPath === undefined)) {
			await this.identity.absorbNoteStubs(upserted.node, path);
		}
		if (upserted.idToWrite) this.idsWritten.push(path);
		return upserted;
	}

	/** Bookkeeping after a note's node was written: problems, caches, counts, index, id to write. */
	private stored(prepared: PreparedNote, write: EntityWrite, how: { readonly moved: boolean; readonly previousPath: string | undefined }): UpsertedNote {
		const { index, settings } = this.deps;
		const note = prepared.note;
		const path = note.path;
		for (const warning of write.warnings) {
			this.problems.push({ path, severity: "warning", problem: warning, action: "Check the value in the note's frontmatter." });
		}
		const stored = write.node;
		this.cache.cacheNode(stored);
		if (write.created) this.counts.nodesCreated++;
		else if (how.moved) this.counts.nodesMoved++;
		else this.counts.nodesUpdated++;

		const entry = noteEntryOf(stored);
		if (entry) index.set(entry);
		this.parsedIds.set(path, stored.id);
		if (write.created) this.cache.created.add(stored.id);

		// The caller lists it in idsWritten once the note is done.
		// Never into a note whose frontmatter cannot be read: writing it would rewrite what the person is fixing.
		const idToWrite = settings.writeEngramaIds && !prepared.foreignId && !note.frontmatterBroken && note.id !== stored.id ? stored.id : undefined;
		return { prepared, node: stored, idToWrite };
	}

	/** See `WritePipeline.buildDeferredIndexes`: one unit of at most `limit` nodes; true while some remain. */
	finishIndexes(limit: number): Promise<boolean> {
		return this.deps.pipeline.buildDeferredIndexes(limit);
	}

	// --- passages ---

	/**
	 * Stores the notes' passages for their nodes (unchanged ones keep their rows and vectors), a
	 * batch in one store call; when that fails, note by note, so each failure is its note's.
	 */
	async indexPassages(...upserted: UpsertedNote[]): Promise<void> {
		if (upserted.length === 0) return;
		try {
			const writes = await this.deps.pipeline.storeNotesPassages(this.ctx, upserted.map((u) => ({ node: u.node, passages: u.prepared.note.passages })));
			writes.forEach((write, i) => {
				const path = upserted[i].prepared.note.path;
				for (const warning of write.warnings) this.problems.push({ path, severity: "warning", problem: warning, action: "Check the embedder; reindex embeds them." });
			});
		} catch (error) {
			if (!(error instanceof EngramaError)) throw error;
			if (upserted.length > 1) {
				for (const u of upserted) await this.indexPassages(u);
				return;
			}
			const path = upserted[0].prepared.note.path;
			this.problems.push({ path, severity: "error", problem: error.message, action: "Sync the note again; its node is stored, its sections are not searchable yet." });
		}
	}

	/** The note's passages again, its body now starting on `bodyLine` (the same texts: only their lines change). */
	async shiftPassages(upserted: UpsertedNote, bodyLine: number): Promise<void> {
		const note = upserted.prepared.note;
		const shift = bodyLine - note.bodyLine;
		const passages = note.passages.map((p) => ({ ...p, line: p.line + shift }));
		await this.indexPassages({ ...upserted, prepared: { ...upserted.prepared, note: { ...note, passages, bodyLine } } });
	}

	/** The passages of the notes read with broken frontmatter, for the nodes they had (kept as they were). */
	async indexBodies(): Promise<void> {
		for (const { entry, info, note } of this.bodies) {
			const node = await this.cache.nodeById(entry.id);
			if (node) await this.indexPassages({ prepared: { info, note }, node });
		}
	}

	/** The passages of an unchanged note whose node has none yet (a memory from before passages). */
	async backfillPassages(touched: readonly { readonly entry: NoteEntry; readonly info: VaultFileInfo; readonly note?: ParsedNote }[]): Promise<void> {
		const found: UpsertedNote[] = [];
		for (const { entry, info, note } of touched) {
			const node = note ? await this.cache.nodeById(entry.id) : null;
			if (node && note) found.push({ prepared: { info, note }, node });
		}
		await this.indexPassages(...found);
	}

	// --- edges (note-edges.ts) ---

	/** See `NoteEdges.reconcile`. */
	reconcile(upserted: UpsertedNote): Promise<RelationInput[]> {
		return this.edges.reconcile(upserted);
	}

	/** See `NoteEdges.writeEdges`. */
	writeEdges(adds: readonly RelationInput[]): Promise<void> {
		return this.edges.writeEdges(adds);
	}

	// --- deletes and touches ---

	/** Archives the nodes of notes that are gone (never deletes them). */
	async archive(entries: readonly NoteEntry[]): Promise<void> {
		for (const entry of entries) {
			const node = await this.cache.nodeById(entry.id);
			if (!node || node.props.status === "archived" || ownerPath(node) !== entry.path) continue;
			const archived = await this.deps.pipeline.archive(this.ctx, node);
			this.cache.cacheNode(archived);
			this.counts.nodesArchived++;
			const updated = noteEntryOf(archived);
			if (updated) this.deps.index.set(updated);
		}
	}

	/** Same text, new mtime (a `touch`, a checkout): record the mtime without changing the node's timestamp. */
	async touch(entry: NoteEntry, info: VaultFileInfo): Promise<void> {
		if (entry.mtime === info.mtime && entry.size === info.size) return;
		const node = await this.cache.nodeById(entry.id);
		if (node) await this.recordNoteState(node, { [NOTE_PROPS.mtime]: info.mtime, [NOTE_PROPS.size]: info.size });
	}

	/** Writes note bookkeeping (hash, mtime, size) through the pipeline and keeps cache and index in step. */
	async recordNoteState(node: NodeRecord, set: Readonly<Record<string, PropValue>>): Promise<void> {
		const updated = await this.deps.pipeline.updateNoteState(this.ctx, node, set);
		if (!updated) return;
		this.cache.cacheNode(updated);
		const e = noteEntryOf(updated);
		if (e) this.deps.index.set(e);
	}

	// --- the run's node cache (node-cache.ts) ---

	nodeById(id: string): Promise<NodeRecord | null> {
		return this.cache.nodeById(id);
	}

	/** Records a node written outside the run, so later lookups in the run see it. */
	cacheNode(node: NodeRecord): void {
		this.cache.cacheNode(node);
	}
}
