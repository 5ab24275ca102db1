import { BackendError, EngramaError, NotFoundError, ValidationError, errorMessage } from "../errors";
import { newEngramaId, type Clock } from "../clock";
import { TEXT_PROPS } from "../node-text";
import type { Profile } from "../profile";
import type { EmbeddingProvider, MergeEdgeInput, MergeNodeInput, MergeNodeResult, MergeNodesOptions, PassageInput } from "../protocols";
import { propChanges } from "../temporal/history";
import { formatRanges, MENTIONED_DATES, resolveTimeMentions } from "../temporal/time-mentions";
import { requireScope } from "../scope";
import { NOTE_PROPS } from "../system-props";
import type { NodeRecord, PartialScope, Props, PropValue, Provenance, Scope } from "../types";
import { type EarlyVector, NodeVectors } from "./node-vectors";
import { type NotePassagesInput, type PassagesWrite, writeNotesPassages } from "./passage-writes";
import { TRUST_LEVELS, writeProvenance, type NodeProvenance } from "./provenance";
import { StoreUpkeep, type UpkeepDeps } from "./store-upkeep";
import {
	normaliseTags,
	reservedPropNames,
	readConfidence,
	readDate,
	resolveLabelOrThrow,
	resolveRelationOrThrow,
	sanitiseKey,
	sanitiseProps,
} from "./sanitise";

/** Who is writing: the scope plus provenance stamped on every node and edge. */
export interface WriteContext {
	readonly scope: PartialScope;
	readonly source: Provenance;
	readonly agent?: string;
	readonly session?: string;
}

export { TRUST_LEVELS };

export interface EntityInput {
	readonly label: string;
	/** The name, or the title for title-keyed labels. */
	readonly key: string;
	readonly props?: Readonly<Record<string, unknown>>;
	/** An engrama_id to give the node if it is created (a note's frontmatter id). */
	readonly id?: string;
	/** Props to remove from the stored node. */
	readonly unset?: readonly string[];
	/**
	 * What the caller already read under this label + key (null: nothing), so the pipeline does
	 * not look it up again. Only for callers that hold the stored node in step (vault sync).
	 */
	readonly existing?: NodeRecord | null;
	/**
	 * The provenance the node must carry, as a note's frontmatter states it (vault sync only);
	 * otherwise the writer's provenance is applied by the rules of `writeProvenance`.
	 */
	readonly provenance?: NodeProvenance;
}

export interface EntityWrite {
	readonly node: NodeRecord;
	readonly created: boolean;
	readonly warnings: readonly string[];
	/** false when the embedder is off or failed (the node is then picked up by reindex). */
	readonly embedded: boolean;
	/** The embedding just stored (when embedded), so the resolver can look for semantic duplicates. */
	readonly vector?: Float32Array;
}

export interface NodeRef {
	readonly label: string;
	readonly key: string;
}

export interface RelationWrite {
	readonly from: NodeRecord;
	readonly type: string;
	readonly to: NodeRecord;
	readonly created: boolean;
}

/** What an edge needs of an endpoint. */
export type NodeTarget = Pick<NodeRecord, "id" | "label" | "key">;

const NO_PROPS: Props = {};
/** A node write ready for the store: the MERGE, its warnings, and the stored node it was prepared from. */
type PreparedEntity = { readonly merge: MergeNodeInput; readonly warnings: string[]; readonly existing: NodeRecord | null };
/** Per stated provenance: its stamp, and the edge props already stamped with it (or copied as they are). */
type StampCache = Map<NodeProvenance | undefined, { stamp: Props; stamped: Map<Props, Props>; kept: Map<Props, Props> }>;

/** One edge for `mergeRelations`. */
export interface RelationInput {
	readonly from: NodeTarget;
	readonly type: string;
	readonly to: NodeTarget;
	/** Edge props beside provenance and scope (a note's `origin`, `note_path`). */
	readonly props?: Readonly<Record<string, PropValue>>;
	/** Who stated it, as a note's frontmatter says (vault sync only); otherwise the writer. */
	readonly provenance?: NodeProvenance;
	/** The edge exists: only `props` are merged and its provenance stays (a note taking over an agent's relation). */
	readonly keepProvenance?: boolean;
}

export interface RelationsWrite {
	/** How many edges were new. */
	readonly created: number;
	/** Edges not written: a type the profile refuses (ValidationError) or an endpoint gone (NotFoundError). */
	readonly rejected: readonly { readonly input: RelationInput; readonly error: EngramaError }[];
}

/** A node's new identity for `rekeyEntity`. */
export interface RekeyInput {
	readonly label: string;
	readonly key: string;
	/** A new engrama_id (a note's frontmatter id adopting a stub). */
	readonly id?: string;
	/** As `EntityInput.provenance`. */
	readonly provenance?: NodeProvenance;
}

export interface WritePipelineDeps extends UpkeepDeps {
	readonly embedder: EmbeddingProvider | null;
	readonly profile: Profile;
	readonly clock: Clock;
}

const DATE_PROPS = ["valid_from", "valid_to"] as const;
const SYNC_BOOKKEEPING: readonly string[] = Object.values(NOTE_PROPS);
const BOOKKEEPING_SET: ReadonlySet<string> = new Set(SYNC_BOOKKEEPING);
/** Nodes per mergeNodes call (≈10–30 ms of SQLite work each). */
const MERGE_NODES_SLICE = 100;

/**
 * sanitise → resolve label → MERGE → timestamps, temporal fields, provenance → embed.
 * The only path by which anything is written to a graph: the write door of the whole engine, with
 * its upkeep half (`StoreUpkeep`: units of writes, meta, vectors, scope forget, repair, import).
 */
export class WritePipeline extends StoreUpkeep<WritePipelineDeps> {
	private readonly vectors = new NodeVectors(this.deps);

	/** The same door with no vector store and no embedder (sync's dry run: embeddings would cost for nothing). */
	withoutEmbeddings(): WritePipeline {
		return new WritePipeline({ ...this.deps, vectors: null, embedder: null });
	}

	provenance(ctx: WriteContext): Record<string, PropValue> {
		const scope = requireScope(ctx.scope);
		return {
			org_id: scope.orgId,
			user_id: scope.userId,
			source: ctx.source,
			source_agent: ctx.agent ?? null,
			source_session: ctx.session ?? null,
			trust_level: TRUST_LEVELS[ctx.source],
		};
	}

	async mergeEntity(ctx: WriteContext, input: EntityInput): Promise<EntityWrite> {
		const scope = requireScope(ctx.scope);
		// Where the MERGE tells what is stored (Neo4j) a write is tried as new, without a read first.
		const guess = input.existing === undefined && this.deps.graph.capabilities.mergeTellsStored === true;
		let write = await this.writeEntity(ctx, scope, guess ? { ...input, existing: null } : input, guess);
		if (write.result.stored) write = await this.writeEntity(ctx, scope, { ...input, existing: write.result.stored }, false, write.early);
		const vector = await this.vectors.afterMerge(scope, write.result, write.early, write.warnings);
		return { node: write.result.node, created: write.result.created, warnings: write.warnings, embedded: vector !== null, ...(vector ? { vector } : {}) };
	}

	private async writeEntity(ctx: WriteContext, scope: Scope, input: EntityInput, onlyIfNew: boolean, previous?: EarlyVector) {
		const { merge, warnings, existing } = await this.prepareEntity(ctx, scope, input);
		const early = await this.vectors.beforeMerge(merge, existing, previous);
		const result = await this.guard("merge node", () =>
			this.withHistory(scope, ctx, merge.now, () => this.deps.graph.mergeNode(scope, this.vectors.withVector(onlyIfNew ? { ...merge, onlyIfNew } : merge, early))),
		);
		return { result, early, warnings };
	}

	/**
	 * `mergeEntity` for many entities, in order, with the same results. Where the backend has
	 * `mergeNodes` (and no two inputs name the same label + key) the nodes and their history are
	 * written in one call, as one unit: on an error nothing is written. Otherwise one by one.
	 */
	async mergeEntities(ctx: WriteContext, inputs: readonly EntityInput[], options: MergeNodesOptions = {}): Promise<EntityWrite[]> {
		const scope = requireScope(ctx.scope);
		const { graph } = this.deps;
		const prepared: PreparedEntity[] = [];
		const identities = new Set<string>();
		const known = graph.mergeNodes ? await this.existingNodes(scope, inputs) : [];
		for (const [i, input] of inputs.entries()) {
			if (!graph.mergeNodes) break;
			const p = await this.prepareEntity(ctx, scope, known[i] !== undefined ? { ...input, existing: known[i] } : input);
			const identity = `${p.merge.label}\u0000${p.merge.key}`;
			// The second write of one label + key depends on the first (superseding, history): one by one.
			if (identities.has(identity)) break;
			identities.add(identity);
			prepared.push(p);
		}
		const mergeNodes = graph.mergeNodes?.bind(graph);
		if (!mergeNodes || prepared.length < inputs.length) {
			const writes: EntityWrite[] = [];
			for (const input of inputs) writes.push(await this.mergeEntity(ctx, input));
			return writes;
		}
		const results = await this.guard("merge nodes", () =>
			graph.transaction(async () => {
				// Slices keep each backend call short: the plugin's work gate yields to the UI between calls.
				const merged: MergeNodeResult[] = [];
				for (let i = 0; i < prepared.length; i += MERGE_NODES_SLICE) {
					merged.push(...(await mergeNodes(scope, prepared.slice(i, i + MERGE_NODES_SLICE).map((p) => p.merge), options)));
				}
				const history = merged.flatMap((r, i) =>
					!r.created && r.previous ? propChanges(r.node.id, r.previous, r.node.props, prepared[i].merge.now, ctx.source) : [],
				);
				if (history.length > 0) await graph.recordHistory(scope, history);
				return merged;
			}),
		);
		const writes: EntityWrite[] = [];
		for (let i = 0; i < results.length; i++) {
			const { node, created } = results[i];
			const warnings = prepared[i].warnings;
			const vector = await this.vectors.embed(scope, node, warnings);
			writes.push({ node, created, warnings, embedded: vector !== null, ...(vector ? { vector } : {}) });
		}
		return writes;
	}

	/**
	 * What is stored under each input's label + key, read in one call where the store can
	 * (`getNodes`); undefined where the input brings its own `existing` or the store cannot.
	 */
	private async existingNodes(scope: Scope, inputs: readonly EntityInput[]): Promise<(NodeRecord | null | undefined)[]> {
		const { graph, profile } = this.deps;
		const wanted = inputs.map((input, i) => ({ input, i })).filter(({ input }) => input.existing === undefined);
		if (!graph.getNodes || wanted.length < 2) return [];
		const refs = wanted.map(({ input }) => {
			const def = resolveLabelOrThrow(profile, input.label);
			return { label: def.label, key: sanitiseKey(input.key, def.keyField) };
		});
		const found = await graph.getNodes(scope, refs);
		const out: (NodeRecord | null | undefined)[] = new Array<undefined>(inputs.length);
		wanted.forEach(({ i }, j) => (out[i] = found[j] ?? null));
		return out;
	}

	/** sanitise → resolve label → temporal fields and provenance: the MERGE to run, and its warnings. */
	private async prepareEntity(ctx: WriteContext, scope: Scope, input: EntityInput): Promise<PreparedEntity> {
		const { profile, graph } = this.deps;
		const def = resolveLabelOrThrow(profile, input.label);
		const key = sanitiseKey(input.key, def.keyField);
		const props = sanitiseProps(input.props);
		const warnings: string[] = [];
		const reserved = reservedPropNames(input.props);
		// Sync keeps its own bookkeeping about the note; no other writer may forge it.
		if (ctx.source !== "sync") {
			for (const name of SYNC_BOOKKEEPING) {
				if (!(name in props)) continue;
				delete props[name];
				reserved.push(name);
			}
		}
		if (reserved.length > 0) {
			warnings.push(
				`Ignored ${reserved.map((n) => `"${n}"`).join(", ")}: Engrama records who wrote a memory (source, agent, session, trust) and its note bookkeeping itself; these cannot be sent as properties.`,
			);
		}
		delete props.name;
		delete props.title;
		props[def.keyField] = key;

		if ("tags" in props) props.tags = normaliseTags(props.tags) ?? [];
		const confidence = readConfidence(props.confidence);
		if (confidence !== undefined) props.confidence = confidence;
		for (const name of DATE_PROPS) {
			const date = readDate(name, props[name]);
			if (date !== undefined) props[name] = date;
		}
		if (typeof props.status === "string" && props.status !== "archived") {
			const status = profile.normaliseStatus(def.label, props.status);
			props.status = status.status;
			if (status.note !== undefined) props.status_note = status.note;
			if (status.warning) warnings.push(status.warning);
		}

		const now = this.deps.clock.now().toISOString();
		const existing = input.existing !== undefined ? input.existing : await graph.getNode(scope, def.label, key);
		const unset = [...(input.unset ?? [])];
		if (existing) {
			const wasSuperseded = typeof existing.props.valid_to === "string";
			const nowSuperseded = typeof props.valid_to === "string";
			if (nowSuperseded && !wasSuperseded) {
				// Superseding halves confidence: the fact was true, it is less so now.
				const base = confidence ?? (typeof existing.props.confidence === "number" ? existing.props.confidence : 1);
				props.confidence = base / 2;
			} else if (wasSuperseded && !("valid_to" in props)) {
				unset.push("valid_to");
				warnings.push(
					`conflict: ${def.label} "${key}" had been superseded (valid_to ${existing.props.valid_to as string}); this update makes it current again.`,
				);
			}
		} else if (typeof props.valid_to === "string") {
			props.confidence = (confidence ?? 1) / 2;
		}

		this.resolveMentionedDates(props, existing, now, unset);

		const setOnCreate: Record<string, PropValue> = {
			engrama_id: input.id && isUuid(input.id) ? input.id : newEngramaId(),
			valid_from: now,
			confidence: 1,
			status: def.status?.default ?? "active",
		};
		if (input.id && !isUuid(input.id)) warnings.push(`engrama_id "${input.id.slice(0, 60)}" is not a UUID; a new id was given.`);
		const provenance = writeProvenance(ctx, existing, input.provenance);
		const scopeProps = { org_id: scope.orgId, user_id: scope.userId };
		unset.push(...provenance.unset.filter((name) => !(name in provenance.set)));
		return {
			merge: { label: def.label, keyField: def.keyField, key, set: { ...props, ...provenance.set, ...scopeProps }, setOnCreate, unset, now },
			warnings,
			existing,
		};
	}

	/**
	 * "yesterday", "last week", "in May" in the item's text, resolved against the item's own date
	 * (valid_from, else now: the date it is written) and kept as `mentioned_dates`, so search can
	 * match and filter them. Redone whenever the text or the date changes.
	 */
	private resolveMentionedDates(props: Record<string, PropValue>, existing: NodeRecord | null, now: string, unset: string[]): void {
		if (!TEXT_PROPS.some((p) => p in props) && !("valid_from" in props)) return;
		const merged = { ...(existing?.props ?? {}), ...props };
		const date = typeof merged.valid_from === "string" ? merged.valid_from : now;
		const text = TEXT_PROPS.map((p) => merged[p])
			.filter((v): v is string => typeof v === "string" && v !== "")
			.join("\n");
		const ranges = formatRanges(resolveTimeMentions(text, new Date(date)));
		if (ranges.length > 0) props[MENTIONED_DATES] = ranges;
		else if (existing && MENTIONED_DATES in existing.props) unset.push(MENTIONED_DATES);
	}

	/** MERGE plus its history entries (one per changed property) as one unit. */
	private withHistory(scope: Scope, ctx: WriteContext, now: string, merge: () => Promise<MergeNodeResult>): Promise<MergeNodeResult> {
		return this.deps.graph.transaction(async () => {
			const result = await merge();
			if (!result.created && result.previous) {
				await this.deps.graph.recordHistory(scope, propChanges(result.node.id, result.previous, result.node.props, now, ctx.source));
			}
			return result;
		});
	}

	async embed(scope: Scope, node: NodeRecord, warnings: string[]): Promise<boolean> {
		return (await this.vectors.embed(scope, node, warnings)) !== null;
	}

	async requireNode(scope: PartialScope, ref: NodeRef, role: string): Promise<NodeRecord> {
		const def = resolveLabelOrThrow(this.deps.profile, ref.label);
		const key = sanitiseKey(ref.key, def.keyField);
		const node = await this.deps.graph.getNode(scope, def.label, key);
		if (!node) {
			throw new NotFoundError(`The ${role} ${def.label} "${key}" does not exist. Remember it first, or check the name.`, {
				label: def.label,
				key,
			});
		}
		return node;
	}

	async mergeRelation(
		ctx: WriteContext,
		from: NodeRef | NodeRecord,
		type: string,
		to: NodeRef | NodeRecord,
		edgeProps: Readonly<Record<string, PropValue>> = {},
	): Promise<RelationWrite> {
		const scope = requireScope(ctx.scope);
		const fromNode = "id" in from ? from : await this.requireNode(scope, from, "source");
		const toNode = "id" in to ? to : await this.requireNode(scope, to, "target");
		const edge = this.prepareRelation(ctx, { from: fromNode, type, to: toNode, props: edgeProps }, this.deps.clock.now().toISOString());
		const { created } = await this.guard("merge relation", () => this.deps.graph.mergeEdge(scope, edge));
		return { from: fromNode, type: edge.type, to: toNode, created };
	}

	/**
	 * `mergeRelation` for many edges (a vault sync writes tens of thousands): each checked against
	 * the profile and stamped with provenance as `mergeRelation` does, then written in one store
	 * call where the backend can. If an endpoint vanished meanwhile (another process forgot it),
	 * the batch is retried edge by edge. Refused edges are returned, not thrown.
	 */
	async mergeRelations(ctx: WriteContext, inputs: readonly RelationInput[]): Promise<RelationsWrite> {
		const scope = requireScope(ctx.scope);
		const { graph } = this.deps;
		const now = this.deps.clock.now().toISOString();
		const rejected: { input: RelationInput; error: EngramaError }[] = [];
		const edges: { input: RelationInput; edge: MergeEdgeInput }[] = [];
		// One stamp per writer (a note's edges share its stated provenance), one type check per (type, labels).
		const memo: RelationMemo = { stamps: new Map(), types: new Map() };
		for (const input of inputs) {
			try {
				edges.push({ input, edge: this.prepareRelation(ctx, input, now, memo) });
			} catch (error) {
				if (!(error instanceof ValidationError)) throw error;
				rejected.push({ input, error });
			}
		}
		if (edges.length === 0) return { created: 0, rejected };
		const mergeEdges = graph.mergeEdges?.bind(graph);
		if (mergeEdges) {
			try {
				const { created } = await this.guard("merge relations", () => mergeEdges(scope, edges.map((e) => e.edge)));
				return { created, rejected };
			} catch (error) {
				if (!(error instanceof NotFoundError)) throw error;
			}
		}
		let created = 0;
		for (const { input, edge } of edges) {
			try {
				if ((await this.guard("merge relation", () => graph.mergeEdge(scope, edge))).created) created++;
			} catch (error) {
				if (!(error instanceof NotFoundError)) throw error;
				rejected.push({ input, error });
			}
		}
		return { created, rejected };
	}

	/** The profile's check (canonical type) and the provenance and scope an edge is stamped with. */
	private prepareRelation(ctx: WriteContext, input: RelationInput, now: string, memo: RelationMemo = { stamps: new Map(), types: new Map() }): MergeEdgeInput {
		const typeKey = `${input.type}\u0000${input.from.label}\u0000${input.to.label}`;
		let type = memo.types.get(typeKey);
		if (type === undefined) {
			type = resolveRelationOrThrow(this.deps.profile, input.type, input.from.label, input.to.label);
			memo.types.set(typeKey, type);
		}
		const stated = input.provenance;
		let writer = memo.stamps.get(stated);
		if (!writer) {
			const who = stated ? { ...ctx, source: stated.source, agent: stated.agent, session: stated.session } : ctx;
			writer = { stamp: { ...this.provenance(who), ...(stated ? { trust_level: stated.trust } : {}) }, stamped: new Map(), kept: new Map() };
			memo.stamps.set(stated, writer);
		}
		// A note's edges share one props object: stamp it once, and the store packs the copy once.
		const own = input.props ?? NO_PROPS;
		const copies = input.keepProvenance ? writer.kept : writer.stamped;
		let props = copies.get(own);
		if (!props) {
			props = input.keepProvenance ? { ...own } : { ...own, ...writer.stamp };
			copies.set(own, props);
		}
		return { fromId: input.from.id, type, toId: input.to.id, props, now };
	}

	/** Removes one edge; false when there was none. */
	async deleteRelation(ctx: WriteContext, from: NodeTarget, type: string, to: NodeTarget): Promise<boolean> {
		const scope = requireScope(ctx.scope);
		return this.guard("delete relation", () => this.deps.graph.deleteEdge(scope, from.id, type, to.id));
	}

	/**
	 * Gives a node a new label, key and optionally engrama_id in place (a renamed note, a note
	 * adopting a stub): label and key checked as `mergeEntity` checks them, the change recorded in
	 * the node's history, provenance applied by `writeProvenance`; props, edges and vector stay.
	 * Throws ValidationError when another node holds the label + key or the id.
	 */
	async rekeyEntity(ctx: WriteContext, node: NodeRecord, input: RekeyInput): Promise<NodeRecord> {
		const scope = requireScope(ctx.scope);
		const def = resolveLabelOrThrow(this.deps.profile, input.label);
		const key = sanitiseKey(input.key, def.keyField);
		if (input.id !== undefined && !isUuid(input.id)) throw new ValidationError(`engrama_id "${input.id.slice(0, 60)}" is not a UUID.`);
		const now = this.deps.clock.now().toISOString();
		const { graph } = this.deps;
		return this.guard("rename node", () =>
			graph.transaction(async () => {
				let rekeyed = await graph.rekeyNode(scope, node.id, { label: def.label, keyField: def.keyField, key, newId: input.id, now });
				if (!rekeyed) throw new NotFoundError(`Node ${node.id} vanished while renaming it.`);
				const provenance = writeProvenance(ctx, node, input.provenance);
				if (Object.keys(provenance.set).length > 0 || provenance.unset.length > 0) {
					const unset = provenance.unset.filter((name) => !(name in provenance.set));
					rekeyed = (await graph.updateNode(scope, rekeyed.id, { ...provenance.set, org_id: scope.orgId, user_id: scope.userId }, unset, now)) ?? rekeyed;
				}
				await graph.recordHistory(scope, propChanges(rekeyed.id, node.props, rekeyed.props, now, ctx.source));
				return rekeyed;
			}),
		);
	}

	/**
	 * Moves every edge of `stub` onto `into` (each keeps its props and provenance: the same fact,
	 * now about the node the stub stood for) and removes the stub, as one unit.
	 */
	async absorbStub(ctx: WriteContext, stub: NodeRecord, into: NodeRecord): Promise<void> {
		const scope = requireScope(ctx.scope);
		const { graph } = this.deps;
		const now = this.deps.clock.now().toISOString();
		await this.guard("merge a stub", () =>
			graph.transaction(async () => {
				for (const e of await graph.edgesOf(scope, stub.id, "both")) {
					const other = e.node.id === stub.id ? into.id : e.node.id;
					if (other === into.id) continue;
					const [fromId, toId] = e.direction === "out" ? [into.id, other] : [other, into.id];
					await graph.mergeEdge(scope, { fromId, type: e.type, toId, props: e.edge.props, now });
				}
				await this.hardDelete(ctx, stub);
			}),
		);
	}

	/**
	 * Vault sync's bookkeeping about a node's note (where it is, its hash, mtime, size, writes owed
	 * to it), set or unset without touching the node's updated_at, history or provenance: it says
	 * where the fact is written, not who wrote it. Only sync may write it, and nothing else this way.
	 */
	async updateNoteState(ctx: WriteContext, node: NodeRecord, set: Readonly<Record<string, PropValue>>, unset: readonly string[] = []): Promise<NodeRecord | null> {
		const scope = requireScope(ctx.scope);
		if (ctx.source !== "sync") throw new ValidationError(`Only vault sync records a note's state; a ${ctx.source} write cannot.`);
		const other = [...Object.keys(set), ...unset].filter((name) => !BOOKKEEPING_SET.has(name));
		if (other.length > 0) {
			throw new ValidationError(`${other.map((n) => `"${n}"`).join(", ")} is not note bookkeeping (${SYNC_BOOKKEEPING.join(", ")}); write it with mergeEntity.`);
		}
		return this.guard("update note state", () => this.deps.graph.updateNode(scope, node.id, { ...set }, [...unset], node.updatedAt));
	}

	/** A note's passages (sections) for its node, the new ones embedded: sync only (passage-writes.ts). */
	async storeNotePassages(ctx: WriteContext, node: NodeRecord, passages: readonly PassageInput[]): Promise<PassagesWrite> {
		return (await this.storeNotesPassages(ctx, [{ node, passages }]))[0];
	}

	/** `storeNotePassages` for a sync batch's notes: one store call where the backend has one. */
	async storeNotesPassages(ctx: WriteContext, notes: readonly NotePassagesInput[]): Promise<PassagesWrite[]> {
		return this.guard("write the notes' passages", () => writeNotesPassages(this.deps, requireScope(ctx.scope), ctx.source, notes));
	}

	/**
	 * Builds, for at most `limit` nodes, the fulltext and name index that `mergeEntities` with
	 * `deferIndexes` left out; true while some remain. False at once where the store never defers.
	 */
	async buildDeferredIndexes(limit: number): Promise<boolean> {
		const build = this.deps.graph.buildDeferredIndexes?.bind(this.deps.graph);
		if (!build) return false;
		return this.guard("build the search indexes", () => build(limit));
	}

	/** True when the store writes many nodes in one call (`mergeEntities` then writes them as one unit). */
	get mergesInBulk(): boolean {
		return this.deps.graph.mergeNodes !== undefined;
	}

	/** Soft delete: the node stays, marked archived, out of every search. */
	async archive(ctx: WriteContext, ref: NodeRef | NodeRecord): Promise<NodeRecord> {
		const scope = requireScope(ctx.scope);
		const node = "id" in ref ? ref : await this.requireNode(scope, ref, "node");
		const now = this.deps.clock.now().toISOString();
		const provenance = writeProvenance(ctx, node);
		const updated = await this.deps.graph.transaction(async () => {
			const result = await this.deps.graph.updateNode(
				scope,
				node.id,
				{ status: "archived", archived_at: now, previous_status: node.props.status ?? null, ...provenance.set, org_id: scope.orgId, user_id: scope.userId },
				provenance.unset,
				now,
			);
			if (result) await this.deps.graph.recordHistory(scope, propChanges(node.id, node.props, result.props, now, ctx.source));
			return result;
		});
		if (!updated) throw new NotFoundError(`Node ${node.id} vanished while archiving.`);
		return updated;
	}

	/** Hard delete: node, edges, fulltext row and vector. */
	async hardDelete(ctx: WriteContext, ref: NodeRef | NodeRecord): Promise<NodeRecord> {
		const scope = requireScope(ctx.scope);
		const node = "id" in ref ? ref : await this.requireNode(scope, ref, "node");
		await this.deps.graph.transaction(async () => {
			// Vector first: a store that finds the vector through the node (SQLite's row id) cannot once it is gone.
			if (this.deps.vectors) await this.deps.vectors.delete(scope, [node.id]);
			await this.deps.graph.deleteNode(scope, node.id);
		});
		return node;
	}

	private async guard<T>(what: string, job: () => Promise<T>): Promise<T> {
		try {
			return await job();
		} catch (error) {
			if (error instanceof ValidationError || error instanceof NotFoundError || error instanceof BackendError) throw error;
			if (error instanceof Error && "code" in error) throw error;
			throw new BackendError(`The ${this.deps.graph.name} backend failed to ${what}: ${errorMessage(error)}. Nothing was written.`);
		}
	}
}

/** What one `mergeRelations` call resolves once: stamps and stamped props per stated provenance, checked types. */
interface RelationMemo {
	readonly stamps: StampCache;
	/** type, from label, to label → the canonical type (a refused one throws each time). */
	readonly types: Map<string, string>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
	return UUID.test(value);
}
