import type { IntegrityCheck, IntegrityCheckId } from "./graph-store";
import type { PartialScope, Scope, VectorHit } from "../types";

/** The vector half of a backend: one vector per node id, cosine similarity. */
export interface VectorStore {
	readonly name: string;
	/** 0 until the first vector fixes the dimension. */
	dimensions(): Promise<number>;
	upsert(scope: Scope, nodeId: string, vector: Float32Array): Promise<void>;
	/**
	 * True when the graph store may write a vector of this dimension with the node itself
	 * (`MergeNodeInput.vector`): the vectors live on the graph's nodes (Neo4j) and this dimension
	 * and its index are already known. Answers from what it holds, without a query.
	 */
	acceptsNodeVector?(dimensions: number): boolean;
	/** Many upserts at once (an import, `engrama migrate`), where the store does that faster than one by one. */
	upsertMany?(scope: Scope, entries: readonly (readonly [string, Float32Array])[]): Promise<void>;
	delete(scope: Scope, nodeIds: readonly string[]): Promise<number>;
	knn(scope: PartialScope, vector: Float32Array, k: number): Promise<readonly VectorHit[]>;
	/** Ids (of the given ones) that have a vector. */
	has(scope: PartialScope, nodeIds: readonly string[]): Promise<ReadonlySet<string>>;
	count(scope: PartialScope): Promise<number>;
	/**
	 * Drops every vector in the store, all scopes (the dimension is fixed per store, so a model
	 * with another dimension needs this before reindex --rebuild). Optional: a store that cannot
	 * leaves it out and reindex says so.
	 */
	reset?(): Promise<void>;
	/** The stored vectors of the given nodes (`engrama export`, `engrama migrate`); absent ids have none. */
	vectorsOf?(scope: Scope, nodeIds: readonly string[]): Promise<ReadonlyMap<string, Float32Array>>;
	/** Read-only: vector_orphans and vector_dimensions over the whole store (see GraphStore.checkIntegrity). */
	checkIntegrity?(): Promise<readonly IntegrityCheck[]>;
	/** Removes vectors of nodes that no longer exist (see GraphStore.repairIntegrity). */
	repairIntegrity?(): Promise<Partial<Record<IntegrityCheckId, number>>>;
}

const WRITES = ["upsert", "upsertMany", "delete", "reset", "repairIntegrity"] as const satisfies readonly (keyof VectorStore)[];

/** The VectorStore methods that change what is stored (the plugin's writer guard checks them). */
export const VECTOR_STORE_WRITES: ReadonlySet<keyof VectorStore> = new Set<keyof VectorStore>(WRITES);

/** A VectorStore seen by everything but the write door: every read, no write (`Memory.vectors`). */
export type VectorReads = Omit<VectorStore, (typeof WRITES)[number]>;
