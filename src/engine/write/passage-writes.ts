import { ValidationError, errorMessage } from "../errors";
import type { EmbeddingProvider, GraphStore, PassageInput, StoredPassage } from "../protocols";
import type { NodeRecord, Scope } from "../types";

/** What writing a note's passages did. */
export interface PassagesWrite {
	readonly added: number;
	readonly kept: number;
	readonly removed: number;
	/** Passages given a vector now (0 without an embedder; reindex embeds the rest). */
	readonly embedded: number;
	readonly warnings: readonly string[];
}

/** Passages per embedBatch call (a local model's batch). */
const EMBED_BATCH = 32;

/** The text a passage is embedded as: its note's name and heading path give the section its subject. */
export function passageEmbeddingText(node: Pick<NodeRecord, "key">, passage: Pick<StoredPassage, "heading" | "text">): string {
	const where = passage.heading ? `${node.key} > ${passage.heading}` : node.key;
	return `${where}\n${passage.text}`.slice(0, 4000);
}

/**
 * A note's passages through the write pipeline (WritePipeline.writePassages): stored by the
 * store's passage role, and the new ones embedded (unchanged passages keep their vectors). Only
 * vault sync writes passages: they are the note's text, which only the note states.
 */
export async function writeNotePassages(
	deps: { readonly graph: GraphStore; readonly embedder: EmbeddingProvider | null },
	scope: Scope,
	source: string,
	node: NodeRecord,
	passages: readonly PassageInput[],
): Promise<PassagesWrite> {
	if (source !== "sync") throw new ValidationError(`Only vault sync writes a note's passages; a ${source} write cannot.`);
	const { graph, embedder } = deps;
	if (!graph.writePassages) return { added: 0, kept: 0, removed: 0, embedded: 0, warnings: [] };
	const change = await graph.writePassages(scope, node.id, passages);
	const warnings: string[] = [];
	let embedded = 0;
	if (embedder && embedder.dimensions > 0 && graph.upsertPassageVectors && change.added.length > 0) {
		try {
			for (let i = 0; i < change.added.length; i += EMBED_BATCH) {
				const batch = change.added.slice(i, i + EMBED_BATCH);
				const vectors = await embedder.embedBatch(batch.map((p) => passageEmbeddingText(node, p)));
				await graph.upsertPassageVectors(
					scope,
					batch.map((p, j) => ({ passageId: p.id, vector: vectors[j] })),
				);
				embedded += batch.length;
			}
		} catch (error) {
			// A failing embedder never fails the write: the passages are stored and found by their words.
			warnings.push(`Embedding the passages of ${node.key} failed (${errorMessage(error)}); reindex embeds them later.`);
		}
	}
	return { added: change.added.length, kept: change.kept, removed: change.removed, embedded, warnings };
}
