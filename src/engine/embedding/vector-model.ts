import type { MemoryMeta } from "../memory-meta";
import type { EmbeddingProvider, GraphStore, VectorReads, VectorStore } from "../protocols";
import { embedderIdentity } from "./dimensions";
import { EARLIER_DEFAULT_LOCAL_MODEL } from "../plain-values";

/** Meta key holding `<provider>:<model>` (embedderIdentity) of the memory's vectors. */
export const EMBEDDING_MODEL_META = "embedding_model";


/** The model part of a recorded `local:<model>[#pooling]`; undefined for another provider's vectors. */
export function localModelOfIdentity(identity: string): string | undefined {
	const m = /^local:([^#]+)/.exec(identity);
	return m ? m[1] : undefined;
}

/**
 * For a local provider whose model the user left unset: the model the memory's vectors were made
 * with, so a memory keeps its model (and its vectors keep answering) when the default changes,
 * until the user picks a model and re-embeds. Undefined: the memory holds no vectors, or another
 * provider's, so the default applies.
 */
export async function memoryLocalModel(graph: Pick<GraphStore, "getMeta">, vectors: Pick<VectorStore, "dimensions"> | null): Promise<string | undefined> {
	if (!vectors || (await vectors.dimensions()) === 0) return undefined;
	const recorded = await graph.getMeta(EMBEDDING_MODEL_META);
	return recorded === null ? EARLIER_DEFAULT_LOCAL_MODEL : localModelOfIdentity(recorded);
}

/**
 * Records which embedder the memory's vectors come from, when nothing is recorded yet or the
 * memory holds no vector (the next ones will be this embedder's). A memory with vectors whose
 * model was never recorded is taken to hold this embedder's: that is the one its settings named.
 */
export async function recordVectorModel(
	memory: MemoryMeta & { readonly vectors: Pick<VectorReads, "dimensions"> | null; readonly embedder: Pick<EmbeddingProvider, "name" | "model" | "pooling"> | null },
): Promise<void> {
	const { vectors, embedder } = memory;
	if (!embedder || !vectors || embedder.name === "none") return;
	const identity = embedderIdentity(embedder);
	const recorded = await memory.graph.getMeta(EMBEDDING_MODEL_META);
	if (recorded === identity) return;
	if (recorded === null || (await vectors.dimensions()) === 0) await memory.writeMeta(EMBEDDING_MODEL_META, identity);
}
