import { newEngramaId } from "../clock";
import { EngramaError, ValidationError, errorMessage } from "../errors";
import type { NodeRecord, PropValue } from "../types";
import { sanitiseKey } from "../write/sanitise";
import type { NodeProvenance } from "../write/provenance";
import type { EntityInput, EntityWrite, NodeTarget, RelationInput } from "../write/write-pipeline";
import { NOTE_ORIGIN, type RunState, type UpsertedNote } from "./run-state";
import { noteBasename } from "./vault-source";

const LINKS_TO = "LINKS_TO";

/** True when an edge is stamped with exactly the writer and trust `p` states. */
function sameProvenance(edge: Readonly<Record<string, PropValue>>, p: NodeProvenance): boolean {
	return edge.source === p.source && (edge.source_agent ?? undefined) === p.agent && (edge.source_session ?? undefined) === p.session && edge.trust_level === p.trust;
}

/**
 * A note's links and `relations:` as edges: targets resolved (a note, an entity, else a new
 * stub), the note's own edges reconciled with what it declares, new edges written in bulk
 * through the pipeline's `mergeRelations`.
 */
export class NoteEdges {
	/** Stubs to create before the next edges are written (fresh graph only, see stub). */
	private pendingStubs: EntityInput[] = [];

	constructor(private readonly run: RunState) {}

	/**
	 * Makes the note's own edges match what it declares (edges from other sources stay): removes
	 * what it no longer declares and returns the edges to add, which the caller writes for a whole
	 * batch of notes at once with `writeEdges`.
	 */
	async reconcile(upserted: UpsertedNote): Promise<RelationInput[]> {
		try {
			return await this.reconcileUnsafe(upserted);
		} catch (error) {
			if (!(error instanceof EngramaError)) throw error;
			this.run.problems.push({
				path: upserted.prepared.note.path,
				severity: "warning",
				problem: `Its relations could not be synced: ${error.message}`,
				action: "Check the relations in the note's frontmatter.",
			});
			return [];
		}
	}

	/**
	 * Writes new edges through the pipeline, in one store call where the backend can (a vault sync
	 * writes tens of thousands). An edge the profile refuses, or whose endpoint vanished meanwhile
	 * (another process forgot it), is skipped and reported.
	 */
	async writeEdges(adds: readonly RelationInput[]): Promise<void> {
		const { deps, ctx, counts, problems } = this.run;
		await this.flushStubs();
		if (adds.length === 0) return;
		const { created, rejected } = await deps.pipeline.mergeRelations(ctx, adds);
		counts.relationsAdded += created;
		for (const { input, error } of rejected) {
			const path = typeof input.props?.note_path === "string" ? input.props.note_path : "(vault)";
			problems.push(
				error instanceof ValidationError
					? {
							path,
							severity: "warning",
							problem: `${input.type} → "${input.to.key}": ${error.message}`,
							action: "Point the relation at an entity of an allowed label, or use another relation type.",
						}
					: { path, severity: "warning", problem: `A ${input.type} relation was skipped: ${error.message}`, action: "Run a full sync." },
			);
		}
	}

	private async reconcileUnsafe(upserted: UpsertedNote): Promise<RelationInput[]> {
		const { deps, ctx, cache, counts } = this.run;
		const { node } = upserted;
		const note = upserted.prepared.note;
		const declared = new Map<string, { type: string; target: NodeTarget; stated?: NodeProvenance }>();
		for (const rel of note.relations) {
			const target = await this.resolveTarget(rel.type, rel.target, node, note.path);
			if (target && target.id !== node.id) declared.set(`${rel.type}|${target.id}`, { type: rel.type, target, stated: rel.provenance });
		}
		for (const link of note.links) {
			// Most links name a note: answered from the index without an async call.
			const target = deps.index.resolve(link) ?? (await this.unindexedLinkTarget(link, note.path));
			if (target && target.id !== node.id) declared.set(`${LINKS_TO}|${target.id}`, { type: LINKS_TO, target });
		}
		const frozen = (type: string) => (note.relationsFrozen && type !== LINKS_TO) || note.frozenTypes.includes(type);
		const existing = new Map<string, Readonly<Record<string, PropValue>>>();
		const old = cache.created.has(node.id) ? [] : await deps.graph.edgesOf(deps.scope, node.id, "out");
		for (const e of old) {
			const k = `${e.type}|${e.node.id}`;
			existing.set(k, e.edge.props);
			if (e.edge.props.origin !== NOTE_ORIGIN || declared.has(k) || frozen(e.type)) continue;
			if (await deps.pipeline.deleteRelation(ctx, node, e.type, e.node)) counts.relationsRemoved++;
		}
		const adds: RelationInput[] = [];
		const props = { origin: NOTE_ORIGIN, note_path: note.path };
		for (const [k, { type, target, stated }] of declared) {
			const before = existing.get(k);
			const ours = before && before.origin === NOTE_ORIGIN && before.note_path === note.path;
			// The entry's own statement wins when it changed (the person vouching with `trust: 1`).
			if (ours && (!stated || sameProvenance(before, stated))) continue;
			// An edge the note now declares that a writer made before (an agent's relation written into
			// the note) keeps its own provenance; the note only takes it over. A new one takes what its
			// entry states, else the note's.
			const keep = before && !stated;
			adds.push({ from: node, type, to: target, props, ...(keep ? { keepProvenance: true } : { provenance: stated ?? note.provenance }) });
		}
		return adds;
	}

	/**
	 * A relation target: the note it names (straight from the index, no query), else an entity of
	 * an allowed label, else a new stub.
	 */
	private async resolveTarget(type: string, name: string, from: NodeRecord, path: string): Promise<NodeTarget | null> {
		const { profile, index } = this.run.deps;
		const allowed = profile.allowedTargets(type, from.label);
		const entry = index.resolve(name);
		if (entry && !entry.archived) {
			if (allowed.includes(entry.label)) return entry;
			this.run.problems.push({
				path,
				severity: "warning",
				problem: `${type} → "${name}" points at a ${entry.label}, but ${from.label} -[${type}]-> may only point at ${allowed.join(", ")}.`,
				action: "Use another relation type, or fix the target note's engrama_label.",
			});
			return null;
		}
		const key = this.cleanKey(name, path);
		if (key === null) return null;
		const candidates = (await this.run.cache.findByKey(key)).filter((n) => allowed.includes(n.label));
		const existing = candidates.find((n) => n.props.status !== "archived") ?? candidates[0];
		if (existing) return existing;
		const anyTarget = allowed.length === profile.labels().length && allowed.includes("Note");
		return this.stub(anyTarget ? "Note" : allowed[0], key);
	}

	/** A body wikilink target that names no note: any entity with that name, else a Note stub. */
	private async unindexedLinkTarget(name: string, path: string): Promise<NodeTarget | null> {
		const key = this.cleanKey(noteBasename(name), path);
		if (key === null) return null;
		const candidates = await this.run.cache.findByKey(key);
		const existing = candidates.find((n) => n.props.status !== "archived") ?? candidates[0];
		return existing ?? this.stub("Note", key);
	}

	private cleanKey(name: string, path: string): string | null {
		try {
			return sanitiseKey(name, "name");
		} catch (error) {
			this.run.problems.push({
				path,
				severity: "warning",
				problem: `The link or relation target "${name.slice(0, 80)}" cannot be a name: ${errorMessage(error)}`,
				action: "Fix the link text.",
			});
			return null;
		}
	}

	private async stub(label: string, key: string): Promise<NodeRecord | null> {
		const { deps, ctx, cache, counts } = this.run;
		const def = deps.profile.resolveLabel(label);
		if (!def) return null;
		let cleanKey: string;
		try {
			cleanKey = sanitiseKey(key, def.keyField);
		} catch {
			return null;
		}
		const input: EntityInput = { label: def.label, key: cleanKey, props: { status: "stub" } };
		if (deps.freshGraph && deps.pipeline.mergesInBulk) {
			// A fresh graph holds nothing this run did not write, all of it in memory: unless this run
			// already wrote the label + key, the stub is new. It is written with the others of the
			// batch before their edges (writeEdges); until then a placeholder with its id stands in.
			if (!cache.holds(def.label, cleanKey)) {
				const id = newEngramaId();
				const placeholder: NodeRecord = { id, label: def.label, keyField: def.keyField, key: cleanKey, props: { status: "stub" }, createdAt: "", updatedAt: "" };
				this.pendingStubs.push({ ...input, id, existing: null });
				cache.cacheNode(placeholder);
				cache.created.add(id);
				return placeholder;
			}
			await this.flushStubs();
		}
		const write = await deps.pipeline.mergeEntity(ctx, input);
		if (write.created) {
			counts.stubsCreated++;
			cache.created.add(write.node.id);
		}
		cache.cacheNode(write.node);
		return write.node;
	}

	/** Writes the stubs waiting since the last flush, in one batch (one by one if the batch fails). */
	private async flushStubs(): Promise<void> {
		if (this.pendingStubs.length === 0) return;
		const { deps, ctx, cache, counts } = this.run;
		const inputs = this.pendingStubs;
		this.pendingStubs = [];
		let writes: EntityWrite[] | undefined;
		try {
			writes = await deps.pipeline.mergeEntities(ctx, inputs);
		} catch (error) {
			if (!(error instanceof EngramaError)) throw error;
		}
		for (let i = 0; i < inputs.length; i++) {
			let write = writes?.[i];
			if (!write) {
				try {
					write = await deps.pipeline.mergeEntity(ctx, inputs[i]);
				} catch (error) {
					if (!(error instanceof EngramaError)) throw error;
					// Its edges are then skipped (and reported) by writeEdges.
					continue;
				}
			}
			if (write.created) counts.stubsCreated++;
			cache.cacheNode(write.node);
		}
	}
}
