import { newEngramaId, type Clock } from "../clock";
import { EngramaError, NotFoundError, errorMessage } from "../errors";
import type { Profile } from "../profile";
import type { GraphStore, MergeEdgeInput } from "../protocols";
import type { NodeRecord, PropValue, Scope } from "../types";
import { carriesAgentMarks, PERSON_OWN, provenanceOf, type NodeProvenance } from "../write/provenance";
import { resolveRelationOrThrow, sanitiseKey } from "../write/sanitise";
import type { EntityInput, EntityWrite, WriteContext, WritePipeline } from "../write/write-pipeline";
import { parseFrontmatterYaml, splitFrontmatter } from "./frontmatter";
import { NOTE_PROPS, type NoteEntry, type NoteIndex, noteEntryOf } from "./note-index";
import { parseNote, type ParsedNote } from "./note-parser";
import { emptyCounts, type SyncCounts, type SyncProblem } from "./sync-report";
import type { SyncSettings } from "./sync-settings";
import { noteBasename, type VaultFileInfo, type VaultSource } from "./vault-source";

export interface SyncRunDeps {
	readonly graph: GraphStore;
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

/** Writes engrama_id into a note; null when it was not written (changed meanwhile, or failed and reported). */
export type IdWriter = (prepared: PreparedNote, id: string) => Promise<WrittenId | null>;

/** A note after sync wrote its engrama_id: the new text's hash and the file's info. */
export interface WrittenId {
	readonly hash: string;
	readonly info: VaultFileInfo;
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

export type ReadOutcome =
	| { readonly kind: "prepared"; readonly prepared: PreparedNote }
	| { readonly kind: "touched"; readonly entry: NoteEntry; readonly info: VaultFileInfo }
	| { readonly kind: "skipped" }
	| { readonly kind: "failed" };

/** Edge props that mark an edge as declared by a note; reconciliation only removes those. */
export const NOTE_ORIGIN = "note";

const LINKS_TO = "LINKS_TO";
/** What an edge needs of its target; index entries have it without a query. */
type Target = Pick<NodeRecord, "id" | "label" | "key">;
// What claimByKey returns when another live note holds the label + key (not a valid key: has a NUL).
const COLLISION = "\u0000collision";
const BOOKKEEPING = new Set<string>(Object.values(NOTE_PROPS));

/**
 * The work of one sync (a full sync or one batch of vault events): reading notes, giving each its
 * node, reconciling the edges it declares, archiving what vanished. Holds the counters, the
 * problems and small caches; the caller runs it inside one graph transaction.
 */
export class SyncRun {
	readonly counts: SyncCounts = emptyCounts();
	readonly problems: SyncProblem[] = [];
	readonly idsWritten: string[] = [];
	private readonly ctx: WriteContext;
	private readonly parsedIds = new Map<string, string | undefined>();
	private readonly nodes = new Map<string, NodeRecord>();
	private readonly byKey = new Map<string, readonly NodeRecord[]>();
	/** Nodes created by this run that nothing was merged into: they have no edges yet. */
	private readonly created = new Set<string>();
	/** Stubs to create before the next edges are written (fresh graph only, see stub). */
	private pendingStubs: EntityInput[] = [];
	private idWriter: IdWriter | undefined;

	constructor(readonly deps: SyncRunDeps) {
		this.ctx = { scope: deps.scope, source: "sync" };
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
				action: "Check that it exists and is readable; its stored node is kept as it was.",
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
		// Same text but another label: the profile changed (a module turned on), so the node follows.
		if (entry && !entry.archived && entry.hash === note.hash && entry.label === note.label) {
			this.counts.filesUnchanged++;
			return { kind: "touched", entry, info };
		}
		this.problems.push(...note.warnings);
		return { kind: "prepared", prepared: { info, note } };
	}

	/**
	 * Two files claiming one engrama_id: the file the graph already knows keeps it, else the
	 * older file (see fileAge), then the shorter path, then the first in code-point order; the
	 * others are copies and get new ids. The same files give the same answer in any listing order.
	 */
	markCopies(prepared: readonly PreparedNote[]): void {
		const groups = new Map<string, PreparedNote[]>();
		for (const p of prepared) {
			if (!p.note.id) continue;
			const group = groups.get(p.note.id) ?? [];
			group.push(p);
			groups.set(p.note.id, group);
		}
		for (const [id, group] of groups) {
			if (group.length < 2) continue;
			const known = this.deps.index.byId(id)?.path;
			const sorted = [...group].sort(
				(a, b) =>
					Number(b.info.path === known) - Number(a.info.path === known) ||
					fileAge(a.info) - fileAge(b.info) ||
					a.info.path.length - b.info.path.length ||
					(a.info.path < b.info.path ? -1 : 1),
			);
			for (const copy of sorted.slice(1)) copy.copyOf = sorted[0].info.path;
		}
	}

	/**
	 * Marks notes whose engrama_id another scope of the database holds (ids are unique per
	 * database): their nodes here get ids of their own and follow the note by its path, and the
	 * note keeps its id, so the other user's memory is not disturbed.
	 */
	async markForeignIds(prepared: readonly PreparedNote[]): Promise<void> {
		const { graph, scope, index, settings } = this.deps;
		const unknown = prepared.filter((p) => p.note.id && !index.byId(p.note.id) && !this.nodes.has(p.note.id));
		for (let i = 0; i < unknown.length; i += 500) {
			const batch = unknown.slice(i, i + 500);
			const foreign = await graph.idsOutsideScope(scope, batch.map((p) => p.note.id as string));
			for (const p of batch) {
				if (!foreign.has(p.note.id as string)) continue;
				p.foreignId = true;
				this.problems.push({
					path: p.note.path,
					severity: "warning",
					problem: "Its engrama_id belongs to an entity of another user or organisation in this database (a shared or copied vault?).",
					action: settings.writeEngramaIds
						? "Nothing to do: your memory gives this note its own entity, follows it by its path and leaves its engrama_id as it is."
						: "Nothing to do: your memory gives this note its own entity and follows it by its path.",
				});
			}
		}
	}

	/** Pairs a vanished note with a new file of identical text: a move the watcher saw as delete + create. */
	matchMoves(prepared: readonly PreparedNote[], vanished: readonly NoteEntry[]): void {
		const byHash = new Map<string, NoteEntry>();
		for (const entry of vanished) if (entry.hash) byHash.set(entry.hash, entry);
		for (const p of prepared) {
			if (p.moveFrom || this.deps.index.get(p.info.path)) continue;
			const entry = byHash.get(p.note.hash);
			if (entry && (!p.note.id || p.foreignId || p.note.id === entry.id)) {
				p.moveFrom = entry;
				byHash.delete(p.note.hash);
			}
		}
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
		if (!this.deps.freshGraph || !this.deps.graph.mergeNodes) {
			for (const p of prepared) out.push(await this.upsert(p));
			return out;
		}
		let pending: { at: number; prepared: PreparedNote; key: string; input: EntityInput }[] = [];
		const pendingKeys = new Set<string>();
		const pendingIds = new Set<string>();
		const flush = async () => {
			if (pending.length === 0) return;
			const batch = pending;
			pending = [];
			pendingKeys.clear();
			pendingIds.clear();
			let writes: EntityWrite[];
			try {
				writes = await this.deps.pipeline.mergeEntities(this.ctx, batch.map((b) => b.input));
			} catch (error) {
				if (!(error instanceof EngramaError)) throw error;
				for (const b of batch) out[b.at] = await this.upsert(b.prepared);
				return;
			}
			batch.forEach((b, i) => {
				const upserted = this.stored(b.prepared, writes[i], { moved: false, adopted: false, previousPath: undefined });
				if (upserted.idToWrite) this.idsWritten.push(b.prepared.note.path);
				out[b.at] = upserted;
			});
		};
		for (const original of prepared) {
			let p = original;
			let plan = this.plainCreate(p);
			const at = out.length;
			out.push(null);
			if (plan && !pendingKeys.has(plan.identity) && !(plan.input.id && pendingIds.has(plan.input.id))) {
				if (!plan.input.id && !p.foreignId && this.idWriter) {
					const withId = await this.writeIdFirst(p);
					if (withId) {
						p = withId;
						plan = this.plainCreate(p) ?? plan;
					}
				}
				pending.push({ at, prepared: p, key: plan.identity, input: plan.input });
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

	/** The note as it reads after sync wrote a new engrama_id into it, or null when it was not written. */
	private async writeIdFirst(p: PreparedNote): Promise<PreparedNote | null> {
		const id = newEngramaId();
		const written = await this.idWriter?.(p, id);
		if (!written) return null;
		this.idsWritten.push(p.note.path);
		this.parsedIds.set(p.note.path, id);
		return { ...p, info: written.info, note: { ...p.note, id, hasIdKey: true, hash: written.hash, frontmatter: { ...p.note.frontmatter, engrama_id: id } } };
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
		if (note.id && this.nodes.has(note.id)) return undefined;
		if ((this.byKey.get(note.key) ?? []).some((n) => n.label === note.label)) return undefined;
		const props = this.noteProps(note, prepared.info, null, def.status?.default ?? "active");
		return {
			identity: `${def.label}\u0000${note.key}`,
			input: { label: def.label, key: note.key, props: props.set, id: claimedId(prepared), unset: props.unset, existing: null, provenance: props.provenance },
		};
	}

	private async upsertUnsafe(prepared: PreparedNote): Promise<UpsertedNote | null> {
		const { graph, scope, index, profile, settings, pipeline, clock } = this.deps;
		const note = prepared.note;
		const path = note.path;
		const def = profile.resolveLabel(note.label);
		if (!def) throw new EngramaError("invalid_input", `Label ${note.label} vanished from the profile.`);
		let claimed = claimedId(prepared);
		let node: NodeRecord | null = null;
		let adopted = false;

		if (prepared.moveFrom) node = await this.nodeById(prepared.moveFrom.id);
		if (!node && claimed) {
			const byId = await this.nodeById(claimed);
			if (byId) {
				const owner = ownerPath(byId);
				if (owner && owner !== path && (await this.isLive(owner, claimed))) {
					prepared.copyOf = owner;
					claimed = undefined;
				} else {
					node = byId;
				}
			}
		}
		if (prepared.copyOf) {
			this.problems.push({
				path,
				severity: "warning",
				problem: `Its engrama_id also belongs to ${prepared.copyOf} (a copied note?).`,
				action: settings.writeEngramaIds
					? "Nothing to do: this note gets a new engrama_id and its own node; the original keeps its node."
					: "Remove engrama_id from the copy: this note gets its own node; the original keeps its node.",
			});
		}
		if (!node) {
			const entry = index.get(path);
			if (entry) node = await this.nodeById(entry.id);
		}
		let key = note.key;
		if (!node) {
			const found = await this.claimByKey(note.label, key, path);
			if (found === COLLISION) return null;
			if (typeof found === "string") key = found;
			else if (found) {
				node = found;
				adopted = true;
			}
		}

		const previousPath = node ? ownerPath(node) : undefined;
		const moved = !!node && !!previousPath && previousPath !== path;
		const newId = node && adopted && claimed && claimed !== node.id ? claimed : undefined;
		const needsRekey = !!node && (node.label !== note.label || node.key !== key || !!newId);
		const merge = async (): Promise<{ write: EntityWrite; key: string } | null> => {
			let current = node;
			let finalKey = key;
			if (current && needsRekey) {
				if (current.label !== note.label || current.key !== finalKey) {
					const holder = await this.nodeByKey(note.label, finalKey);
					if (holder && holder.id !== current.id) {
						const resolved = await this.clearHolder(holder, current, note.label, finalKey, path);
						if (resolved === null) return null;
						finalKey = resolved;
					}
				}
				const rekeyed = await graph.rekeyNode(scope, current.id, { label: def.label, keyField: def.keyField, key: finalKey, newId, now: clock.now().toISOString() });
				if (!rekeyed) throw new EngramaError("not_found", `Node ${current.id} vanished while renaming it.`);
				this.uncacheNode(current);
				current = rekeyed;
			}
			const props = this.noteProps(note, prepared.info, current, def.status?.default ?? "active");
			const write = await pipeline.mergeEntity(this.ctx, {
				label: def.label,
				key: finalKey,
				props: props.set,
				id: current ? undefined : claimed,
				unset: props.unset,
				provenance: props.provenance,
			});
			return { write, key: finalKey };
		};
		// Renaming and adopting are several writes: one savepoint, so a failure leaves the node as it was.
		const merged = needsRekey ? await graph.transaction(merge) : await merge();
		if (!merged) return null;
		const upserted = this.stored(prepared, merged.write, { moved, adopted, previousPath });
		if (!this.deps.freshGraph && (merged.write.created || moved || adopted || previousPath === undefined)) {
			await this.absorbNoteStubs(upserted.node, path);
		}
		if (upserted.idToWrite) this.idsWritten.push(path);
		return upserted;
	}

	/** Bookkeeping after a note's node was written: problems, caches, counts, index, id to write. */
	private stored(
		prepared: PreparedNote,
		write: EntityWrite,
		how: { readonly moved: boolean; readonly adopted: boolean; readonly previousPath: string | undefined },
	): UpsertedNote {
		const { index, settings } = this.deps;
		const note = prepared.note;
		const path = note.path;
		for (const warning of write.warnings) {
			this.problems.push({ path, severity: "warning", problem: warning, action: "Check the value in the note's frontmatter." });
		}
		const stored = write.node;
		this.cacheNode(stored);
		if (write.created) this.counts.nodesCreated++;
		else if (how.moved) this.counts.nodesMoved++;
		else this.counts.nodesUpdated++;

		const entry = noteEntryOf(stored);
		if (entry) index.set(entry);
		this.parsedIds.set(path, stored.id);
		if (write.created) this.created.add(stored.id);

		// The caller lists it in idsWritten once the note is done.
		const idToWrite = settings.writeEngramaIds && !prepared.foreignId && note.id !== stored.id ? stored.id : undefined;
		return { prepared, node: stored, idToWrite };
	}

	/**
	 * Props to set and unset: what the note states, sync bookkeeping, and a revived status; and the
	 * provenance the node takes (undefined: keep the node's, see notedProvenance).
	 */
	private noteProps(
		note: ParsedNote,
		info: VaultFileInfo,
		node: NodeRecord | null,
		defaultStatus: string,
	): { set: Record<string, PropValue>; unset: string[]; provenance?: NodeProvenance } {
		const set: Record<string, PropValue> = { ...note.props };
		const unset: string[] = [];
		if (node) {
			const before = node.props[NOTE_PROPS.stated];
			if (Array.isArray(before)) {
				for (const name of before) {
					if (typeof name !== "string" || name in set || BOOKKEEPING.has(name)) continue;
					// A status the note stopped stating falls back to the label's default, not to nothing.
					if (name === "status") set.status = defaultStatus;
					else unset.push(name);
				}
			}
			const status = node.props.status;
			if ((status === "archived" || status === "stub") && set.status === undefined) {
				const previous = node.props.previous_status;
				set.status =
					status === "archived" && typeof previous === "string" && previous !== "stub" && previous !== "archived" ? previous : defaultStatus;
			}
			if (status === "archived") unset.push("archived_at", "previous_status");
		}
		set[NOTE_PROPS.path] = note.path;
		set[NOTE_PROPS.hash] = note.hash;
		set[NOTE_PROPS.mtime] = info.mtime;
		set[NOTE_PROPS.size] = info.size;
		set[NOTE_PROPS.stated] = Object.keys(note.props);
		const stated = note.provenance;
		if (stated) set[NOTE_PROPS.provenance] = provenanceRecord(stated);
		else unset.push(NOTE_PROPS.provenance);
		return { set, unset: unset.filter((name) => !(name in set)), provenance: notedProvenance(node, stated) };
	}

	/**
	 * The node a new note may take over by label + key: a stub, an entity remembered elsewhere,
	 * or a node whose note vanished. A live note elsewhere with the same label + key is a
	 * collision (reported; untyped notes take their path as key instead).
	 */
	private async claimByKey(label: string, key: string, path: string): Promise<NodeRecord | null | string> {
		const byKey = await this.nodeByKey(label, key);
		if (!byKey) return null;
		const owner = ownerPath(byKey);
		if (!owner || owner === path || !(await this.isLive(owner))) return byKey;
		if (label === "Note") {
			const pathKey = path.slice(0, -3);
			const again = await this.nodeByKey(label, pathKey);
			if (!again) return pathKey;
			const againOwner = ownerPath(again);
			if (!againOwner || againOwner === path || !(await this.isLive(againOwner))) return again;
		}
		this.collision(path, owner, label, key);
		return COLLISION;
	}

	/** Frees label + key for a renamed note: absorbs a stub, or falls back to the path key for untyped notes. */
	private async clearHolder(holder: NodeRecord, node: NodeRecord, label: string, key: string, path: string): Promise<string | null> {
		const owner = ownerPath(holder);
		const liveOwner = owner && owner !== path && (await this.isLive(owner));
		if (!liveOwner && (holder.props.status === "stub" || !owner)) {
			await this.absorb(holder, node);
			return key;
		}
		if (label === "Note") {
			const pathKey = path.slice(0, -3);
			const again = await this.nodeByKey(label, pathKey);
			if (!again || again.id === node.id) return pathKey;
		}
		this.collision(path, owner ?? "(an entity without a note)", label, key);
		return null;
	}

	private collision(path: string, other: string, label: string, key: string): void {
		this.problems.push({
			path,
			severity: "error",
			problem: `It describes ${label} "${key}", which ${other} already describes.`,
			action: `Rename one of the two notes or give it another ${this.deps.profile.keyFieldOf(label)} (frontmatter); until then this note is not synced.`,
		});
	}

	/** Moves a stub's edges onto `node` and removes the stub (it was a placeholder for this note). */
	private async absorb(stub: NodeRecord, node: NodeRecord): Promise<void> {
		const { graph, scope, clock } = this.deps;
		const now = clock.now().toISOString();
		for (const e of await graph.edgesOf(scope, stub.id, "both")) {
			const other = e.node.id === stub.id ? node.id : e.node.id;
			if (other === node.id) continue;
			const [fromId, toId] = e.direction === "out" ? [node.id, other] : [other, node.id];
			await graph.mergeEdge(scope, { fromId, type: e.type, toId, props: e.edge.props, now });
		}
		await this.deps.pipeline.hardDelete(this.ctx, stub);
		this.uncacheNode(stub);
		this.created.delete(node.id);
	}

	/** Untyped-link stubs ("Note" stubs named like this note) become this note's node. */
	private async absorbNoteStubs(node: NodeRecord, path: string): Promise<void> {
		const names = new Set([node.key, noteBasename(path)]);
		for (const name of names) {
			for (const other of await this.findByKey(name)) {
				if (other.id === node.id || other.label !== "Note" || other.props.status !== "stub" || ownerPath(other)) continue;
				await this.absorb(other, node);
			}
		}
	}

	/** True when `path` exists and (when `id` is given) still claims that engrama_id. */
	private async isLive(path: string, id?: string): Promise<boolean> {
		const { present, source } = this.deps;
		if (present) {
			if (!present.has(path)) return false;
		} else if (!(await source.stat(path))) {
			return false;
		}
		if (id === undefined) return true;
		if (this.parsedIds.has(path)) return this.parsedIds.get(path) === id;
		if (present) return true;
		try {
			const split = splitFrontmatter(await source.read(path));
			if (split.kind !== "block") return false;
			const parsed = parseFrontmatterYaml(split.yaml, 1);
			const claimed = parsed.ok ? parsed.data.engrama_id : undefined;
			return !parsed.ok || (typeof claimed === "string" && claimed.trim().toLowerCase() === id);
		} catch {
			// Unreadable: assume it still owns the id rather than steal its node.
			return true;
		}
	}

	// --- edges ---

	/**
	 * Makes the note's own edges match what it declares (edges from other sources stay): removes
	 * what it no longer declares and returns the edges to add, which the caller writes for a whole
	 * batch of notes at once with `writeEdges`.
	 */
	async reconcile(upserted: UpsertedNote): Promise<MergeEdgeInput[]> {
		try {
			return await this.reconcileUnsafe(upserted);
		} catch (error) {
			if (!(error instanceof EngramaError)) throw error;
			this.problems.push({
				path: upserted.prepared.note.path,
				severity: "warning",
				problem: `Its relations could not be synced: ${error.message}`,
				action: "Check the relations in the note's frontmatter.",
			});
			return [];
		}
	}

	/**
	 * Writes new edges in one store call where the backend can (a vault sync writes tens of
	 * thousands). If an endpoint vanished meanwhile (another process forgot it), the batch is
	 * retried edge by edge and only the edges that cannot be written are skipped.
	 */
	async writeEdges(adds: readonly MergeEdgeInput[]): Promise<void> {
		const { graph, scope } = this.deps;
		await this.flushStubs();
		if (adds.length === 0) return;
		if (graph.mergeEdges) {
			try {
				this.counts.relationsAdded += (await graph.mergeEdges(scope, adds)).created;
				return;
			} catch (error) {
				if (!(error instanceof NotFoundError)) throw error;
			}
		}
		for (const input of adds) {
			try {
				if ((await graph.mergeEdge(scope, input)).created) this.counts.relationsAdded++;
			} catch (error) {
				if (!(error instanceof NotFoundError)) throw error;
				const path = typeof input.props?.note_path === "string" ? input.props.note_path : "(vault)";
				this.problems.push({ path, severity: "warning", problem: `A ${input.type} relation was skipped: ${error.message}`, action: "Run a full sync." });
			}
		}
	}

	private async reconcileUnsafe(upserted: UpsertedNote): Promise<MergeEdgeInput[]> {
		const { graph, scope, pipeline } = this.deps;
		const { node } = upserted;
		const note = upserted.prepared.note;
		const declared = new Map<string, { type: string; target: Target }>();
		for (const rel of note.relations) {
			const target = await this.resolveTarget(rel.type, rel.target, node, note.path);
			if (target && target.id !== node.id) declared.set(`${rel.type}|${target.id}`, { type: rel.type, target });
		}
		for (const link of note.links) {
			// Most links name a note: answered from the index without an async call.
			const target = this.deps.index.resolve(link) ?? (await this.unindexedLinkTarget(link, note.path));
			if (target && target.id !== node.id) declared.set(`${LINKS_TO}|${target.id}`, { type: LINKS_TO, target });
		}
		const frozen = (type: string) => (note.relationsFrozen && type !== LINKS_TO) || note.frozenTypes.includes(type);
		const existing = new Map<string, Readonly<Record<string, PropValue>>>();
		const old = this.created.has(node.id) ? [] : await graph.edgesOf(scope, node.id, "out");
		for (const e of old) {
			const k = `${e.type}|${e.node.id}`;
			existing.set(k, e.edge.props);
			if (e.edge.props.origin !== NOTE_ORIGIN || declared.has(k) || frozen(e.type)) continue;
			if (await graph.deleteEdge(scope, node.id, e.type, e.node.id)) this.counts.relationsRemoved++;
		}
		// The checks and provenance of the write pipeline's mergeRelation, applied per edge here so
		// the edges can be written in bulk.
		const adds: MergeEdgeInput[] = [];
		const stated = note.provenance;
		const edgeProps = {
			origin: NOTE_ORIGIN,
			note_path: note.path,
			...pipeline.provenance(stated ? { ...this.ctx, source: stated.source, agent: stated.agent, session: stated.session } : this.ctx),
			...(stated ? { trust_level: stated.trust } : {}),
		};
		// An edge the note now declares that a writer made before (an agent's relation written into
		// the note) keeps its own provenance; the note only takes it over.
		const adopted = { origin: NOTE_ORIGIN, note_path: note.path };
		const now = this.deps.clock.now().toISOString();
		for (const [k, { type, target }] of declared) {
			const props = existing.get(k);
			if (props && props.origin === NOTE_ORIGIN && props.note_path === note.path) continue;
			try {
				resolveRelationOrThrow(this.deps.profile, type, node.label, target.label);
			} catch (error) {
				if (!(error instanceof EngramaError)) throw error;
				this.problems.push({
					path: note.path,
					severity: "warning",
					problem: `${type} → "${target.key}": ${error.message}`,
					action: "Point the relation at an entity of an allowed label, or use another relation type.",
				});
				continue;
			}
			adds.push({ fromId: node.id, type, toId: target.id, props: props ? adopted : edgeProps, now });
		}
		return adds;
	}

	/**
	 * A relation target: the note it names (straight from the index, no query), else an entity of
	 * an allowed label, else a new stub.
	 */
	private async resolveTarget(type: string, name: string, from: NodeRecord, path: string): Promise<Target | null> {
		const { profile, index } = this.deps;
		const allowed = profile.allowedTargets(type, from.label);
		const entry = index.resolve(name);
		if (entry && !entry.archived) {
			if (allowed.includes(entry.label)) return entry;
			this.problems.push({
				path,
				severity: "warning",
				problem: `${type} → "${name}" points at a ${entry.label}, but ${from.label} -[${type}]-> may only point at ${allowed.join(", ")}.`,
				action: "Use another relation type, or fix the target note's engrama_label.",
			});
			return null;
		}
		const key = this.cleanKey(name, path);
		if (key === null) return null;
		const candidates = (await this.findByKey(key)).filter((n) => allowed.includes(n.label));
		const existing = candidates.find((n) => n.props.status !== "archived") ?? candidates[0];
		if (existing) return existing;
		const anyTarget = allowed.length === profile.labels().length && allowed.includes("Note");
		return this.stub(anyTarget ? "Note" : allowed[0], key);
	}

	/** A body wikilink target that names no note: any entity with that name, else a Note stub. */
	private async unindexedLinkTarget(name: string, path: string): Promise<Target | null> {
		const key = this.cleanKey(noteBasename(name), path);
		if (key === null) return null;
		const candidates = await this.findByKey(key);
		const existing = candidates.find((n) => n.props.status !== "archived") ?? candidates[0];
		return existing ?? this.stub("Note", key);
	}

	private cleanKey(name: string, path: string): string | null {
		try {
			return sanitiseKey(name, "name");
		} catch (error) {
			this.problems.push({
				path,
				severity: "warning",
				problem: `The link or relation target "${name.slice(0, 80)}" cannot be a name: ${errorMessage(error)}`,
				action: "Fix the link text.",
			});
			return null;
		}
	}

	private async stub(label: string, key: string): Promise<NodeRecord | null> {
		const def = this.deps.profile.resolveLabel(label);
		if (!def) return null;
		let cleanKey: string;
		try {
			cleanKey = sanitiseKey(key, def.keyField);
		} catch {
			return null;
		}
		const input: EntityInput = { label: def.label, key: cleanKey, props: { status: "stub" } };
		if (this.deps.freshGraph && this.deps.graph.mergeNodes) {
			// A fresh graph holds nothing this run did not write, all of it in memory: unless this run
			// already wrote the label + key, the stub is new. It is written with the others of the
			// batch before their edges (writeEdges); until then a placeholder with its id stands in.
			const held = (this.byKey.get(cleanKey) ?? []).some((n) => n.label === def.label);
			if (!held) {
				const id = newEngramaId();
				const placeholder: NodeRecord = { id, label: def.label, keyField: def.keyField, key: cleanKey, props: { status: "stub" }, createdAt: "", updatedAt: "" };
				this.pendingStubs.push({ ...input, id, existing: null });
				this.cacheNode(placeholder);
				this.created.add(id);
				return placeholder;
			}
			await this.flushStubs();
		}
		const write = await this.deps.pipeline.mergeEntity(this.ctx, input);
		if (write.created) {
			this.counts.stubsCreated++;
			this.created.add(write.node.id);
		}
		this.cacheNode(write.node);
		return write.node;
	}

	/** Writes the stubs waiting since the last flush, in one batch (one by one if the batch fails). */
	private async flushStubs(): Promise<void> {
		if (this.pendingStubs.length === 0) return;
		const inputs = this.pendingStubs;
		this.pendingStubs = [];
		let writes: EntityWrite[] | undefined;
		try {
			writes = await this.deps.pipeline.mergeEntities(this.ctx, inputs);
		} catch (error) {
			if (!(error instanceof EngramaError)) throw error;
		}
		for (let i = 0; i < inputs.length; i++) {
			let write = writes?.[i];
			if (!write) {
				try {
					write = await this.deps.pipeline.mergeEntity(this.ctx, inputs[i]);
				} catch (error) {
					if (!(error instanceof EngramaError)) throw error;
					// Its edges are then skipped (and reported) by writeEdges.
					continue;
				}
			}
			if (write.created) this.counts.stubsCreated++;
			this.cacheNode(write.node);
		}
	}

	// --- deletes and touches ---

	/** Archives the nodes of notes that are gone (never deletes them). */
	async archive(entries: readonly NoteEntry[]): Promise<void> {
		for (const entry of entries) {
			const node = await this.nodeById(entry.id);
			if (!node || node.props.status === "archived" || ownerPath(node) !== entry.path) continue;
			const archived = await this.deps.pipeline.archive(this.ctx, node);
			this.cacheNode(archived);
			this.counts.nodesArchived++;
			const updated = noteEntryOf(archived);
			if (updated) this.deps.index.set(updated);
		}
	}

	/** Same text, new mtime (a `touch`, a checkout): record the mtime without changing the node's timestamp. */
	async touch(entry: NoteEntry, info: VaultFileInfo): Promise<void> {
		if (entry.mtime === info.mtime && entry.size === info.size) return;
		const node = await this.nodeById(entry.id);
		if (!node) return;
		const updated = await this.deps.graph.updateNode(
			this.deps.scope,
			node.id,
			{ [NOTE_PROPS.mtime]: info.mtime, [NOTE_PROPS.size]: info.size },
			[],
			node.updatedAt,
		);
		if (updated) {
			this.cacheNode(updated);
			const e = noteEntryOf(updated);
			if (e) this.deps.index.set(e);
		}
	}

	// --- caches (valid within one run; every write here goes through cacheNode/uncacheNode) ---

	async nodeById(id: string): Promise<NodeRecord | null> {
		const cached = this.nodes.get(id);
		if (cached || this.deps.freshGraph) return cached ?? null;
		const node = await this.deps.graph.getNodeById(this.deps.scope, id);
		if (node) this.nodes.set(id, node);
		return node;
	}

	private async nodeByKey(label: string, key: string): Promise<NodeRecord | null> {
		if (this.deps.freshGraph) return (this.byKey.get(key) ?? []).find((n) => n.label === label) ?? null;
		return this.deps.graph.getNode(this.deps.scope, label, key);
	}

	private async findByKey(key: string): Promise<readonly NodeRecord[]> {
		const cached = this.byKey.get(key);
		if (cached || this.deps.freshGraph) return cached ?? [];
		const nodes = await this.deps.graph.findByKey(this.deps.scope, key);
		this.byKey.set(key, nodes);
		return nodes;
	}

	/** Records a node this run wrote, so later lookups in the run see it without a query. */
	cacheNode(node: NodeRecord): void {
		const old = this.nodes.get(node.id);
		if (old && old.key !== node.key) this.uncacheNode(old);
		this.nodes.set(node.id, node);
		const list = this.byKey.get(node.key);
		if (list) this.byKey.set(node.key, [...list.filter((n) => n.id !== node.id), node]);
		else if (this.deps.freshGraph) this.byKey.set(node.key, [node]);
	}

	private uncacheNode(node: NodeRecord): void {
		this.nodes.delete(node.id);
		const list = this.byKey.get(node.key);
		if (list) this.byKey.set(node.key, list.filter((n) => n.id !== node.id));
	}
}

/**
 * When a file came to be: the earlier of its creation time (where known) and its last change.
 * Creation time alone tells an original edited after it was copied from the copy; the last
 * change covers copies that keep it (cp -p, rsync -a, sync services) and file systems that
 * report no creation time.
 */
function fileAge(info: VaultFileInfo): number {
	const created = info.ctime !== undefined && info.ctime > 0 ? info.ctime : info.mtime;
	return Math.min(created, info.mtime);
}

/**
 * The provenance a note gives its node: what its engrama_* keys state (none: the person's own),
 * but only when they differ from what the note stated at its last sync. Unchanged keys leave the
 * node's provenance as it is, so an agent's write that never reached the note (nothing replicated
 * into the vault, or writing the note failed) is not laundered by the person's next edit of the
 * text: only the person's edit of the keys vouches. A new node, or a stub (a placeholder), simply
 * takes the note's.
 */
function notedProvenance(node: NodeRecord | null, stated: NodeProvenance | undefined): NodeProvenance | undefined {
	const fromNote = stated ?? PERSON_OWN;
	if (!node || node.props.status === "stub") return fromNote;
	const before = node.props[NOTE_PROPS.provenance];
	if ((stated ? provenanceRecord(stated) : undefined) !== (typeof before === "string" ? before : undefined)) return fromNote;
	const current = provenanceOf(node);
	return current && carriesAgentMarks(current) ? undefined : fromNote;
}

/** What a note stated, as the bookkeeping sync compares on the next sync. */
function provenanceRecord(p: NodeProvenance): string {
	return JSON.stringify([p.source, p.agent ?? null, p.session ?? null, p.trust, p.edit?.source ?? null, p.edit?.agent ?? null, p.edit?.session ?? null]);
}

/** The engrama_id a note may give its node: none for a copy, or for an id another scope holds. */
function claimedId(prepared: PreparedNote): string | undefined {
	return prepared.copyOf || prepared.foreignId ? undefined : prepared.note.id;
}

function ownerPath(node: NodeRecord): string | undefined {
	const path = node.props[NOTE_PROPS.path];
	return typeof path === "string" && path !== "" ? path : undefined;
}
