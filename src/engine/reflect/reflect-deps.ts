import type { Clock } from "../clock";
import type { Profile } from "../profile";
import type { EmbeddingProvider, GraphReads, VectorReads } from "../protocols";
import type { WritePipeline } from "../write/write-pipeline";

/**
 * What reflect's insight and proactive-hint code needs of a memory: the protocols, the profile,
 * the write pipeline and the write queue. `Memory` has all of it; reflect takes this narrower shape so
 * it depends on what it uses, not on the core's class.
 */
export interface ReflectDeps {
	readonly graph: GraphReads;
	readonly vectors: VectorReads | null;
	readonly embedder: EmbeddingProvider | null;
	readonly profile: Profile;
	readonly clock: Clock;
	readonly pipeline: WritePipeline;
	/** Serialises a unit of writes; everything that mutates goes through here. */
	write<T>(job: () => Promise<T>): Promise<T>;
}
