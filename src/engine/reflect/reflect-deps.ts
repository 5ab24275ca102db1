import type { Clock } from "../clock";
import type { Profile } from "../profile";
import type { EmbeddingProvider, GraphStore, VectorStore } from "../protocols";
import type { WritePipeline } from "../write/write-pipeline";

/**
 * What reflect's insight and proactive-hint code needs of a memory: the protocols, the profile,
 * the write pipeline and the write queue. `Memory` implements it; code that `Memory` itself calls
 * (the proactive hint of a search) takes this instead of `Memory`, so the two do not import each other.
 */
export interface ReflectDeps {
	readonly graph: GraphStore;
	readonly vectors: VectorStore | null;
	readonly embedder: EmbeddingProvider | null;
	readonly profile: Profile;
	readonly clock: Clock;
	readonly pipeline: WritePipeline;
	/** Serialises a unit of writes; everything that mutates goes through here. */
	write<T>(job: () => Promise<T>): Promise<T>;
}
