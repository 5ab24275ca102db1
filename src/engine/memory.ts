import { systemClock, type Clock } from "./clock";
import { ValidationError } from "./errors";
import { nodeConfidence, nodeSummary, nodeTags } from "./node-text";
import type { Profile } from "./profile";
import type { EmbeddingProvider, GraphReads, GraphStore, VectorReads, VectorStore } from "./protocols";
import { isFullScope, requireScope } from "./scope";
import { passageSnippet } from "./search/passage-hits";
import { HybridSearch, type DegradedCause, type FusionMode, type SearchHit, type SearchSettings } from "./search/hybrid-search";
import type { SearchOptions } from "./search/search-options";
import { GroupCommitQueue, type GroupCommitStats, type WriteOptions } from "./group-commit";
import { eraseWithin, type EraseHook, type EraseTarget, type NotesErased } from "./erase";
import type { NodeRecord, PartialScope, Props } from "./types";
import { resolveLabelOrThrow, sanitiseKey } from "./write/sanitise";
import {
	WritePipeline,
	type EntityInput,
	type EntityWrite,
	type NodeRef,
	type RelationWrite,
	type WriteContext,
} from "./write/write-pipeline";

export interface MemoryDeps {
	readonly graph: GraphStore;
	readonly vectors?: VectorStore | null;
	readonly embedder?: EmbeddingProvider | null;
	readonly profile: Profile;
	readonly clock?: Clock;
	/** Hybrid search tuning (config.search); defaults are the spec's. */
	readonly search?: Partial<SearchSettings>;
	/**
	 * Lets the host run ready input before a group of writes commits, so concurrent writers share
	 * one commit (Node: one event-loop turn). Default: only writers already queued join.
	 */
	readonly yieldToInput?: () => Promise<void>;
	/**
	 * Another Memory over the same stores whose write queue and write listeners this one shares:
	 * a second face of one engine (the plugin gives agents stores that a cancelled task does not
	 * stop), whose writes still never interleave with the first's.
	 */
	readonly sharesWritesWith?: Memory;
}

/** The JSON face of a node: stable field names shared by the CLI and the MCP bridge. */
export interface NodeView {
	readonly node_id: string;
	readonly label: string;
	readonly name: string;
	readonly key_field: string;
	readonly status: string;
	readonly props: Props;
	readonly created_at: string;
	readonly updated_at: string;
}

export interface SearchResultView {
	readonly node_id: string;
	readonly label: string;
	readonly name: string;
	readonly score: number;
	readonly summary: string;
	readonly tags: readonly string[];
	readonly confidence: number;
	readonly updated_at: string;
	readonly scores: Readonly<Record<string, number>>;
	/** The note the node lives in (vault-relative), when it has one. */
	readonly path?: string;
	/** The note's sections that matched: heading path, file line, the words found **marked**. */
	readonly passages?: readonly PassageView[];
}

export interface PassageView {
	readonly heading: string;
	readonly line: number;
	readonly snippet: string;
}

export type { SearchOptions } from "./search/search-options";

/** The answer of `search`: stable JSON shared by the CLI (--json) and the MCP bridge. */
export interface SearchView {
	readonly query: string;
	readonly mode: FusionMode;
	/** True when the vector channel was wanted but missing; `reason` names the cause. */
	readonly degraded: boolean;
	readonly reason?: string;
	/** `reason` as a code (no_embedder, no_vectors, dimension_mismatch, …) for interfaces that phrase it themselves. */
	readonly degraded_cause?: DegradedCause;
	readonly results: readonly SearchResultView[];
	/** Present when pending reflect Insights relate to the query: review them (computed by the face, `Skills.search`). */
	readonly proactive_hint?: string;
}

/** One hybrid hit as JSON: the node fields plus every signal (`rrf` or `linear` is the fused base). */
export function hybridResultView(hit: SearchHit, mode: FusionMode, query = ""): SearchResultView {
	const s = hit.signals;
	const scores: Record<string, number> = {
		[mode]: round(s.fusion),
		fulltext: round(s.fulltext),
		vector: round(s.vector),
		graph: round(s.graph),
		cohesion: round(s.cohesion),
		anchor: round(s.anchor),
		temporal: round(s.temporal),
		trust: round(s.trust),
		date: round(s.date),
		when: s.when,
		penalty: round(s.penalty),
	};
	// Only when it applies: most results are not named by the query (agents pay per byte).
	if (s.name > 0) scores.name = s.name;
	if (s.languageMismatch) scores.language_mismatch = s.languageMismatch;
	if (s.fulltextRank !== undefined) scores.fulltext_rank = s.fulltextRank;
	if (s.vectorRank !== undefined) scores.vector_rank = s.vectorRank;
	const view = searchResultView(hit.node, round(hit.score), scores);
	const path = hit.node.props.obsidian_path;
	const passages = (hit.passages ?? []).map((p) => ({ heading: p.passage.heading, line: p.passage.line, snippet: passageSnippet(p.passage.text, query) }));
	return { ...view, ...(typeof path === "string" && path ? { path } : {}), ...(passages.length > 0 ? { passages } : {}) };
}

function round(x: number): number {
	return Math.round(x * 1e6) / 1e6;
}

export function nodeView(node: NodeRecord): NodeView {
	return {
		node_id: node.id,
		label: node.label,
		name: node.key,
		key_field: node.keyField,
		status: typeof node.props.status === "string" ? node.props.status : "active",
		props: node.props,
		created_at: node.createdAt,
		updated_at: node.updatedAt,
	};
}

export function searchResultView(node: NodeRecord, score: number, scores: Record<string, number>): SearchResultView {
	return {
		node_id: node.id,
		label: node.label,
		name: node.key,
		score,
		summary: nodeSummary(node),
		tags: nodeTags(node),
		confidence: nodeConfidence(node),
		updated_at: node.updatedAt,
		scores,
	};
}

/** A write made through the facade, reported after it committed (see `Memory.onWrite`). */
export type MemoryWriteEvent =
	| { readonly kind: "entity"; readonly ctx: WriteContext; readonly input: EntityInput; readonly write: EntityWrite }
	| { readonly kind: "relation"; readonly ctx: WriteContext; readonly write: RelationWrite };

/**
 * What a listener may hand back for one write: a check the writer runs when it wants to tell its
 * caller about the write's fate (graph → vault: the note cannot take it). It must not reject.
 */
export type MemoryWriteCheck = () => Promise<readonly string[]>;

export type MemoryWriteListener = (event: MemoryWriteEvent) => MemoryWriteCheck | void;

export const FAN_OUT_CAP = 64;

/** The pipeline's single writes read what they need afresh each run: safe to replay after a rollback. */
export const REPLAYABLE = { replayable: true } as const;

/**
 * The core beneath the face (`Skills`): one object over the protocols, with writes serialised so
 * many callers (vault events, MCP clients) never interleave. Its stores are read-only from outside:
 * every write goes through `pipeline` (the write door) inside `write`.
 */
export class Memory {
	readonly graph: GraphReads;
	readonly vectors: VectorReads | null;
	readonly embedder: EmbeddingProvider | null;
	readonly profile: Profile;
	readonly clock: Clock;
	readonly pipeline: WritePipeline;
	readonly searcher: HybridSearch;
	private readonly writes: GroupCommitQueue;
	private readonly writeListeners: Set<MemoryWriteListener>;
	private readonly eraseHooks: Set<EraseHook>;

	private readonly store: GraphStore;

	constructor(deps: MemoryDeps) {
		this.store = deps.graph;
		this.graph = deps.graph;
		this.vectors = deps.vectors ?? null;
		this.embedder = deps.embedder ?? null;
		this.profile = deps.profile;
		this.clock = deps.clock ?? systemClock;
		this.pipeline = new WritePipeline({
			graph: deps.graph,
			vectors: deps.vectors ?? null,
			embedder: this.embedder,
			profile: this.profile,
			clock: this.clock,
		});
		this.writes = deps.sharesWritesWith?.writes ?? new GroupCommitQueue(this.pipeline, { yieldToInput: deps.yieldToInput });
		this.writeListeners = deps.sharesWritesWith?.writeListeners ?? new Set();
		this.eraseHooks = deps.sharesWritesWith?.eraseHooks ?? new Set();
		this.searcher = new HybridSearch({
			graph: this.graph,
			vectors: this.vectors,
			embedder: this.embedder,
			clock: this.clock,
			settings: deps.search,
		});
	}

	/**
	 * Serialises a unit of writes; everything that mutates goes through here. Jobs waiting together
	 * share one transaction and commit (group commit, src/engine/group-commit.ts), each in a
	 * savepoint of its own; the promise settles once the commit holding the job is durable.
	 */
	write<T>(job: () => Promise<T>, options?: WriteOptions): Promise<T> {
		return this.writes.run(job, options);
	}

	/**
	 * The memory's own notes (its standalone identity, the model of its vectors, the writer stamp)
	 * through the write queue, as any other write: the meta door for hosts opening a memory.
	 */
	writeMeta(key: string, value: string): Promise<void> {
		return this.write(() => this.pipeline.setMeta(key, value), REPLAYABLE);
	}

	/** How many commits the writes took so far (benchmarks, diagnostics). */
	get writeStats(): GroupCommitStats {
		return this.writes.stats;
	}

	async close(): Promise<void> {
		await this.writes.run(async () => undefined, { alone: true });
		await this.store.close();
	}

	remember(ctx: WriteContext, input: EntityInput): Promise<EntityWrite> {
		return this.write(() => this.pipeline.mergeEntity(ctx, input), REPLAYABLE).then((write) => this.notify({ kind: "entity", ctx, input, write }, write));
	}

	relate(ctx: WriteContext, from: NodeRef, type: string, to: NodeRef): Promise<RelationWrite> {
		return this.write(() => this.pipeline.mergeRelation(ctx, from, type, to), REPLAYABLE).then((write) => this.notify({ kind: "relation", ctx, write }, write));
	}

	/**
	 * Observes remember/relate after they committed (graph → vault replication sees writes made by
	 * the CLI or MCP). Listeners run outside the write queue, must return quickly and must not
	 * throw: they schedule their own work. Returns the unsubscribe function.
	 */
	onWrite(listener: MemoryWriteListener): () => void {
		this.writeListeners.add(listener);
		return () => this.writeListeners.delete(listener);
	}

	/**
	 * Reports writes a skill made through `pipeline` inside one `write()` job (remember's node,
	 * its stubs and edges), once that job committed, exactly as remember/relate report theirs, and
	 * resolves to the warnings the listeners' checks found (each once): what the skill's answer says.
	 */
	async announce(events: readonly MemoryWriteEvent[]): Promise<readonly string[]> {
		const checks = events.flatMap((event) => this.tell(event));
		const warnings = await Promise.all(checks.map((check) => check()));
		return [...new Set(warnings.flat())];
	}

	/** Tells the listeners; `remember`/`relate` answer the write alone, so nobody runs the checks. */
	private notify<T>(event: MemoryWriteEvent, result: T): T {
		this.tell(event);
		return result;
	}

	private tell(event: MemoryWriteEvent): MemoryWriteCheck[] {
		const checks: MemoryWriteCheck[] = [];
		for (const listener of this.writeListeners) {
			const check = listener(event);
			if (check) checks.push(check);
		}
		return checks;
	}

	/** Archives (soft) or erases (hard, `hardForget`) one node. */
	async forget(ctx: WriteContext, ref: NodeRef, options: { hard?: boolean } = {}): Promise<NodeRecord> {
		if (!options.hard) return this.write(() => this.pipeline.archive(ctx, ref), REPLAYABLE);
		const node = await this.pipeline.requireNode(requireScope(ctx.scope), ref, "node");
		return (await this.hardForget(ctx, node)).node;
	}

	/** Removes one node for good (`erase`): its row, edges, words, vector, history and the note Engrama wrote for it. */
	async hardForget(ctx: WriteContext, node: NodeRecord): Promise<{ node: NodeRecord; notes: NotesErased }> {
		const scope = requireScope(ctx.scope);
		const { notes } = await this.erase({ scope, ids: new Set([node.id]) }, async () => {
			// As it is now: a note may have been written for it while the erase waited.
			const current = (await this.graph.getNodeById(scope, node.id)) ?? node;
			await this.pipeline.hardDelete(ctx, current);
			return { result: undefined, erased: [current] };
		});
		return { node, notes };
	}

	/** Calls `hook` around every erase from now on (the vault's copies); returns the function that stops it. */
	onErase(hook: EraseHook): () => void {
		this.eraseHooks.add(hook);
		return () => this.eraseHooks.delete(hook);
	}

	/**
	 * The one erase path (GDPR forget, hard forget, TTL expiry): `job` deletes in one unit of writes
	 * and names the nodes it removed; then the store makes the deleted content unreadable in its
	 * files (fulltext segments merged, the write-ahead log emptied). Around both, every erase hook
	 * holds its own work, so a pending vault write cannot bring an erased node back, and answers
	 * for the notes of the removed nodes.
	 */
	async erase<T>(target: EraseTarget, job: () => Promise<{ result: T; erased: readonly NodeRecord[] }>): Promise<{ result: T; notes: NotesErased }> {
		let result!: T;
		const notes = await eraseWithin([...this.eraseHooks], target, async () => {
			const done = await this.write(() => this.pipeline.transaction(job));
			result = done.result;
			// Alone: SQLite refuses a WAL checkpoint inside a transaction.
			await this.write(() => this.pipeline.purgeDeleted(), { alone: true });
			return done.erased;
		});
		return { result, notes };
	}

	/** Looks a node up by label (any case) and key; null when absent or out of scope. */
	async get(scope: PartialScope, label: string, key: string): Promise<NodeRecord | null> {
		if (!isFullScope(scope)) return null;
		const def = resolveLabelOrThrow(this.profile, label);
		return this.graph.getNode(scope, def.label, sanitiseKey(key, def.keyField));
	}

	/**
	 * Hybrid search (fulltext + vector, RRF or linear, graph rerank, temporal and trust). Labels are
	 * resolved against the profile; `validAt` must be a date. Never fails for an embedder fault:
	 * the answer is then fulltext only, with `degraded` and the reason.
	 */
	async search(scope: PartialScope, text: string, options: SearchOptions = {}): Promise<SearchView> {
		const labels = options.labels?.map((l) => resolveLabelOrThrow(this.profile, l).label);
		if (options.validAt !== undefined && !Number.isFinite(Date.parse(options.validAt))) {
			throw new ValidationError(`valid_at "${options.validAt}" is not a date. Use an ISO date such as 2026-01-31.`);
		}
		const outcome = await this.searcher.search(scope, text, { ...options, labels });
		return {
			query: text,
			mode: outcome.fusion,
			degraded: outcome.degraded,
			...(outcome.reason !== undefined ? { reason: outcome.reason } : {}),
			...(outcome.cause !== undefined ? { degraded_cause: outcome.cause } : {}),
			results: outcome.hits.map((hit) => hybridResultView(hit, outcome.fusion, text)),
		};
	}

	/** Fulltext channel only; hybrid search builds on top of this. */
	async searchFulltext(
		scope: PartialScope,
		text: string,
		options: { limit?: number; labels?: readonly string[] } = {},
	): Promise<SearchResultView[]> {
		const labels = options.labels?.map((l) => resolveLabelOrThrow(this.profile, l).label);
		const hits = await this.graph.fulltext(scope, { text, limit: options.limit ?? 10, labels });
		const top = hits[0]?.score ?? 1;
		return hits.map((hit) => {
			const normalised = top > 0 ? hit.score / top : 0;
			return searchResultView(hit.node, normalised, { fulltext: normalised });
		});
	}
}
