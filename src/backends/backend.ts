import type { GraphStore, VectorStore } from "../engine/backend-kit";

/** An opened backend: its graph store and, where it keeps vectors, its vector store. */
export interface Backend {
	readonly graph: GraphStore;
	readonly vectors: VectorStore | null;
}
