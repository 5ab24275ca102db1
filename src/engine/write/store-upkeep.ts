import type { CompactReport, GraphCapabilities, GraphStore, HistoryEntry, IntegrityCheckId, MergeEdgeInput, MergeNodeInput, MergeNodeResult, ScopeForgetReport, VectorStore } from "../protocols";
import type { Scope } from "../types";

/** The stores the write door writes to. */
export interface UpkeepDeps {
	readonly graph: GraphStore;
	readonly vectors: VectorStore | null;
}

/**
 * The half of the write door that is not an entity's or a relation's: units of writes, the
 * memory's own notes (meta), vectors, a scope's removal, integrity repair, compaction and the
 * verbatim writes of an import (a file's nodes, edges and history keep the provenance they carry).
 * `WritePipeline` extends it, so every write in the engine goes through one object; the
 * architecture test keeps store write methods out of the engine outside src/engine/write.
 */
export class StoreUpkeep<Deps extends UpkeepDeps = UpkeepDeps> {
	constructor(protected readonly deps: Deps) {}

	/**
	 * Runs `fn` as one unit of writes (atomic where the store is; nested: a savepoint where it has
	 * them). Callers queue it through `Memory.write` (group commit) as any other write.
	 */
	transaction<T>(fn: () => Promise<T>): Promise<T> {
		return this.deps.graph.transaction(fn);
	}

	/** The store's abilities (the write queue groups jobs by them). */
	get capabilities(): GraphCapabilities {
		return this.deps.graph.capabilities;
	}

	setMeta(key: string, value: string): Promise<void> {
		return this.deps.graph.setMeta(key, value);
	}

	deleteMeta(key: string): Promise<void> {
		return this.deps.graph.deleteMeta(key);
	}

	/** Stores one node's vector (reindex, import); nothing without a vector store. */
	async upsertVector(scope: Scope, nodeId: string, vector: Float32Array): Promise<void> {
		await this.deps.vectors?.upsert(scope, nodeId, vector);
	}

	/** Stores many nodes' vectors (import, migrate): in one call where the store takes many, else one by one. */
	async upsertVectors(scope: Scope, entries: readonly (readonly [string, Float32Array])[]): Promise<void> {
		const { vectors } = this.deps;
		if (vectors?.upsertMany) await vectors.upsertMany(scope, entries);
		else for (const [id, vector] of entries) await vectors?.upsert(scope, id, vector);
	}

	/** Stores vectors of note passages (reindex); nothing where the store keeps no passages. */
	async upsertPassageVectors(scope: Scope, vectors: readonly { readonly passageId: string; readonly vector: Float32Array }[]): Promise<void> {
		await this.deps.graph.upsertPassageVectors?.(scope, vectors);
	}

	/** Removes the vectors of these nodes; how many were removed. */
	async deleteVectors(scope: Scope, nodeIds: readonly string[]): Promise<number> {
		return this.deps.vectors ? this.deps.vectors.delete(scope, nodeIds) : 0;
	}

	/** Drops every vector, all scopes (a new dimension); false where the store cannot. */
	async resetVectors(): Promise<boolean> {
		if (!this.deps.vectors?.reset) return false;
		await this.deps.vectors.reset();
		return true;
	}

	/** Removes everything the scope holds in the graph (its vectors go first, with `deleteVectors`). */
	forgetScope(scope: Scope): Promise<ScopeForgetReport> {
		return this.deps.graph.forgetScope(scope);
	}

	/** Makes deleted rows unreadable in the files (where the store keeps old pages). */
	async purgeDeleted(): Promise<void> {
		await this.deps.graph.purgeDeleted?.();
	}

	/** Fixes what `checkIntegrity` finds, graph and vectors, as one unit. */
	repairIntegrity(): Promise<Partial<Record<IntegrityCheckId, number>>> {
		const { graph, vectors } = this.deps;
		return graph.transaction(async () => ({ ...((await graph.repairIntegrity?.()) ?? {}), ...((await vectors?.repairIntegrity?.()) ?? {}) }));
	}

	/** True where the store can compact its file. */
	get compacts(): boolean {
		return this.deps.graph.compact !== undefined;
	}

	compact(): Promise<CompactReport> {
		const compact = this.deps.graph.compact?.bind(this.deps.graph);
		return compact ? compact() : Promise.reject(new Error(`The ${this.deps.graph.name} backend does not compact.`));
	}

	/** An imported node as the file states it (its props and provenance verbatim), then its updated_at. */
	async importNode(scope: Scope, input: MergeNodeInput, updatedAt: string): Promise<MergeNodeResult> {
		const { graph } = this.deps;
		const result = await graph.mergeNode(scope, input);
		if (result.node.updatedAt !== updatedAt) await graph.updateNode(scope, result.node.id, {}, [], updatedAt);
		return result;
	}

	/** True when the store merges many edges in one call (`mergeStampedEdges` is then one call). */
	get mergesEdgesInBulk(): boolean {
		return this.deps.graph.mergeEdges !== undefined;
	}

	/**
	 * Edges as given (props and provenance verbatim, types already checked by the caller): an import's,
	 * or reflect's ABOUT links when the profile allows them to every label. One call where the store
	 * merges many at once.
	 */
	async mergeStampedEdges(scope: Scope, edges: readonly MergeEdgeInput[]): Promise<void> {
		const { graph } = this.deps;
		if (graph.mergeEdges) await graph.mergeEdges(scope, edges);
		else for (const edge of edges) await graph.mergeEdge(scope, edge);
	}

	/** History entries as an import carries them. */
	importHistory(scope: Scope, entries: readonly HistoryEntry[]): Promise<void> {
		return this.deps.graph.recordHistory(scope, entries);
	}
}
