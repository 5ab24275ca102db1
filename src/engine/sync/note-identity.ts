import type { NodeRecord } from "../types";
import type { NodeProvenance } from "../write/provenance";
import { parseFrontmatterYaml, splitFrontmatter } from "./frontmatter";
import type { NoteEntry } from "./note-index";
import { ownerPath, type PreparedNote, type RunState } from "./run-state";
import { noteBasename, type VaultFileInfo } from "./vault-source";

/** Which node a note is: what `NoteIdentity.find` settled for one note. */
export interface FoundNode {
	/** The note's node, or null for a new one. */
	readonly node: NodeRecord | null;
	/** The engrama_id the note may give its node (none for a copy or a foreign id). */
	readonly claimed: string | undefined;
	/** The node was taken over by label + key (a stub, a node whose note vanished). */
	readonly adopted: boolean;
	/** The key to write: the note's, or its path for an untyped note whose name another note holds. */
	readonly key: string;
}

/**
 * Matching notes to nodes within one run: engrama_ids (copies, ids of other scopes), moves,
 * label + key claims and collisions, renames (rekey) and stubs a note takes over.
 */
export class NoteIdentity {
	constructor(private readonly run: RunState) {}

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
			const known = this.run.deps.index.byId(id)?.path;
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
		const { graph, scope, index, settings } = this.run.deps;
		const unknown = prepared.filter((p) => p.note.id && !index.byId(p.note.id) && !this.run.cache.has(p.note.id));
		for (let i = 0; i < unknown.length; i += 500) {
			const batch = unknown.slice(i, i + 500);
			const foreign = await graph.idsOutsideScope(scope, batch.map((p) => p.note.id as string));
			for (const p of batch) {
				if (!foreign.has(p.note.id as string)) continue;
				p.foreignId = true;
				this.run.problems.push({
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
			if (p.moveFrom || this.run.deps.index.get(p.info.path)) continue;
			const entry = byHash.get(p.note.hash);
			if (entry && (!p.note.id || p.foreignId || p.note.id === entry.id)) {
				p.moveFrom = entry;
				byHash.delete(p.note.hash);
			}
		}
	}

	/**
	 * The node a note is: the one it moved from, the one its engrama_id names (unless another live
	 * note holds that id: then this note is a copy), the one its path had, or one it takes over by
	 * label + key. Null when another live note describes the same label + key (reported).
	 */
	async find(prepared: PreparedNote): Promise<FoundNode | null> {
		const { cache, deps } = this.run;
		const note = prepared.note;
		const path = note.path;
		let claimed = claimedId(prepared);
		let node: NodeRecord | null = null;
		if (prepared.moveFrom) node = await cache.nodeById(prepared.moveFrom.id);
		if (!node && claimed) {
			const byId = await cache.nodeById(claimed);
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
			this.run.problems.push({
				path,
				severity: "warning",
				problem: `Its engrama_id also belongs to ${prepared.copyOf} (a copied note?).`,
				action: deps.settings.writeEngramaIds
					? "Nothing to do: this note gets a new engrama_id and its own node; the original keeps its node."
					: "Remove engrama_id from the copy: this note gets its own node; the original keeps its node.",
			});
		}
		if (!node) {
			const entry = deps.index.get(path);
			if (entry) node = await cache.nodeById(entry.id);
		}
		if (node) return { node, claimed, adopted: false, key: note.key };
		const found = await this.claimByKey(note.label, note.key, path);
		if (found === COLLISION) return null;
		if (typeof found === "string") return { node: null, claimed, adopted: false, key: found };
		return { node: found, claimed, adopted: found !== null, key: note.key };
	}

	/**
	 * Gives `node` the note's label + key (and id), through the pipeline's rekey: frees the label +
	 * key first (absorbing a stub, or the path key for an untyped note). Null on a collision.
	 */
	async rekey(
		node: NodeRecord,
		target: { readonly label: string; readonly key: string; readonly id?: string; readonly path: string },
		provenance: NodeProvenance | undefined,
	): Promise<{ node: NodeRecord; key: string } | null> {
		const { cache, deps, ctx } = this.run;
		let key = target.key;
		if (node.label !== target.label || node.key !== key) {
			const holder = await cache.nodeByKey(target.label, key);
			if (holder && holder.id !== node.id) {
				const resolved = await this.clearHolder(holder, node, target.label, key, target.path);
				if (resolved === null) return null;
				key = resolved;
			}
		}
		const rekeyed = await deps.pipeline.rekeyEntity(ctx, node, { label: target.label, key, id: target.id, provenance });
		cache.uncacheNode(node);
		return { node: rekeyed, key: rekeyed.key };
	}

	/** Untyped-link stubs ("Note" stubs named like this note) become this note's node. */
	async absorbNoteStubs(node: NodeRecord, path: string): Promise<void> {
		const names = new Set([node.key, noteBasename(path)]);
		for (const name of names) {
			for (const other of await this.run.cache.findByKey(name)) {
				if (other.id === node.id || other.label !== "Note" || other.props.status !== "stub" || ownerPath(other)) continue;
				await this.absorb(other, node);
			}
		}
	}

	/** True when `path` exists and (when `id` is given) still claims that engrama_id. */
	private async isLive(path: string, id?: string): Promise<boolean> {
		const { present, source } = this.run.deps;
		if (present) {
			if (!present.has(path)) return false;
		} else if (!(await source.stat(path))) {
			return false;
		}
		if (id === undefined) return true;
		const { parsedIds } = this.run;
		if (parsedIds.has(path)) return parsedIds.get(path) === id;
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

	/**
	 * The node a new note may take over by label + key: a stub, an entity remembered elsewhere,
	 * or a node whose note vanished. A live note elsewhere with the same label + key is a
	 * collision (reported; untyped notes take their path as key instead).
	 */
	private async claimByKey(label: string, key: string, path: string): Promise<NodeRecord | null | string> {
		const { cache } = this.run;
		const byKey = await cache.nodeByKey(label, key);
		if (!byKey) return null;
		const owner = ownerPath(byKey);
		if (!owner || owner === path || !(await this.isLive(owner))) return byKey;
		if (label === "Note") {
			const pathKey = path.slice(0, -3);
			const again = await cache.nodeByKey(label, pathKey);
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
			const again = await this.run.cache.nodeByKey(label, pathKey);
			if (!again || again.id === node.id) return pathKey;
		}
		this.collision(path, owner ?? "(an entity without a note)", label, key);
		return null;
	}

	private collision(path: string, other: string, label: string, key: string): void {
		this.run.problems.push({
			path,
			severity: "error",
			problem: `It describes ${label} "${key}", which ${other} already describes.`,
			action: `Rename one of the two notes or give it another ${this.run.deps.profile.keyFieldOf(label)} (frontmatter); until then this note is not synced.`,
		});
	}

	/** Moves a stub's edges onto `node` and removes the stub (it was a placeholder for this note). */
	private async absorb(stub: NodeRecord, node: NodeRecord): Promise<void> {
		await this.run.deps.pipeline.absorbStub(this.run.ctx, stub, node);
		this.run.cache.uncacheNode(stub);
		this.run.cache.created.delete(node.id);
	}
}

// What claimByKey returns when another live note holds the label + key (not a valid key: has a NUL).
const COLLISION = "\u0000collision";

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

/** The engrama_id a note may give its node: none for a copy, or for an id another scope holds. */
export function claimedId(prepared: PreparedNote): string | undefined {
	return prepared.copyOf || prepared.foreignId ? undefined : prepared.note.id;
}
