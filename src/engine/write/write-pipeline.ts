import { BackendError, NotFoundError, ValidationError, errorMessage } from "../errors";
import { newEngramaId, type Clock } from "../clock";
import { nodeToText, TEXT_PROPS } from "../node-text";
import type { Profile } from "../profile";
import type { EmbeddingProvider, GraphStore, MergeNodeInput, MergeNodeResult, VectorStore } from "../protocols";
import { propChanges } from "../temporal/history";
import { formatRanges, MENTIONED_DATES, resolveTimeMentions } from "../temporal/time-mentions";
import { requireScope } from "../scope";
import { NOTE_PROPS } from "../sync/note-index";
import type { NodeRecord, PartialScope, PropValue, Provenance, Scope } from "../types";
import { TRUST_LEVELS, writeProvenance, type NodeProvenance } from "./provenance";
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

export interface WritePipelineDeps {
	readonly graph: GraphStore;
	readonly vectors: VectorStore | null;
	readonly embedder: EmbeddingProvider | null;
	readonly profile: Profile;
	readonly clock: Clock;
}

const DATE_PROPS = ["valid_from", "valid_to"] as const;
const SYNC_BOOKKEEPING: readonly string[] = Object.values(NOTE_PROPS);
/** Nodes per mergeNodes call (≈10–30 ms of SQLite work each). */
const MERGE_NODES_SLICE = 100;

/**
 * sanitise → resolve label → MERGE → timestamps, temporal fields, provenance → embed.
 * The only path by which anything is written to a graph.
 */
export class WritePipeline {
	constructor(private readonly deps: WritePipelineDeps) {}

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
		const { merge, warnings } = await this.prepareEntity(ctx, scope, input);
		const result = await this.guard("merge node", () =>
			this.withHistory(scope, ctx, merge.now, () => this.deps.graph.mergeNode(scope, merge)),
		);
		const vector = await this.embedVector(scope, result.node, warnings);
		return { node: result.node, created: result.created, warnings, embedded: vector !== null, ...(vector ? { vector } : {}) };
	}

	/**
	 * `mergeEntity` for many entities, in order, with the same results. Where the backend has
	 * `mergeNodes` (and no two inputs name the same label + key) the nodes and their history are
	 * written in one call, as one unit: on an error nothing is written. Otherwise one by one.
	 */
	async mergeEntities(ctx: WriteContext, inputs: readonly EntityInput[]): Promise<EntityWrite[]> {
		const scope = requireScope(ctx.scope);
		const { graph } = this.deps;
		const prepared: { merge: MergeNodeInput; warnings: string[] }[] = [];
		const identities = new Set<string>();
		for (const input of inputs) {
			if (!graph.mergeNodes) break;
			const p = await this.prepareEntity(ctx, scope, input);
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
					merged.push(...(await mergeNodes(scope, prepared.slice(i, i + MERGE_NODES_SLICE).map((p) => p.merge))));
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
			const vector = await this.embedVector(scope, node, warnings);
			writes.push({ node, created, warnings, embedded: vector !== null, ...(vector ? { vector } : {}) });
		}
		return writes;
	}

	/** sanitise → resolve label → temporal fields and provenance: the MERGE to run, and its warnings. */
	private async prepareEntity(ctx: WriteContext, scope: Scope, input: EntityInput): Promise<{ merge: MergeNodeInput; warnings: string[] }> {
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
		return (await this.embedVector(scope, node, warnings)) !== null;
	}

	private async embedVector(scope: Scope, node: NodeRecord, warnings: string[]): Promise<Float32Array | null> {
		const { embedder, vectors } = this.deps;
		if (!embedder || !vectors || embedder.dimensions === 0) return null;
		try {
			const vector = await embedder.embed(nodeToText(node));
			await vectors.upsert(scope, node.id, vector);
			return vector;
		} catch (error) {
			// The write stands; reindex finds nodes without a vector later.
			warnings.push(`Embedding failed (${errorMessage(error)}); the node is stored and will be embedded by reindex.`);
			return null;
		}
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
		const relType = resolveRelationOrThrow(this.deps.profile, type, fromNode.label, toNode.label);
		const now = this.deps.clock.now().toISOString();
		const { created } = await this.guard("merge relation", () =>
			this.deps.graph.mergeEdge(scope, {
				fromId: fromNode.id,
				type: relType,
				toId: toNode.id,
				props: { ...edgeProps, ...this.provenance(ctx) },
				now,
			}),
		);
		return { from: fromNode, type: relType, to: toNode, created };
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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
	return UUID.test(value);
}
