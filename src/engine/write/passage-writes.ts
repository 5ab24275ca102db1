import { ValidationError, errorMessage } from "../errors";
import type { EmbeddingProvider, GraphStore, PassageChange, PassageInput, StoredPassage } from "../protocols";
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

/** One note's passages to store. */
export interface NotePassagesInput {
	readonly node: NodeRecord;
	readonly passages: readonly PassageInput[];
}

/**
 * Notes' passages through the write pipeline (WritePipeline.storeNotesPassages): stored by the
 * store's passage role (several notes in one call where it has `writeManyPassages`), and the new
 * ones embedded in batches across the notes (unchanged passages keep their vectors). Only vault
 * sync writes passages: they are the note's text, which only the note states. Answers in the
 * notes' order.
 */
export async function writeNotesPassages(
	deps: { readonly graph: GraphStore; readonly embedder: EmbeddingProvider | null },
	scope: Scope,
	source: string,
	notes: readonly NotePassagesInput[],
): Promise<PassagesWrite[]> {
	if (source !== "sync") throw new ValidationError(`Only vault sync writes a note's passages; a ${source} write cannot.`);
	const { graph, embedder } = deps;
	if (!graph.writePassages || notes.length === 0) return notes.map(() => ({ added: 0, kept: 0, removed: 0, embedded: 0, warnings: [] }));
	const changes: PassageChange[] = [];
	if (graph.writeManyPassages && notes.length > 1) {
		changes.push(...(await graph.writeManyPassages(scope, notes.map((n) => ({ nodeId: n.node.id, passages: n.passages })))));
	} else {
		for (const n of notes) changes.push(await graph.writePassages(scope, n.node.id, n.passages));
	}
	const embedded = notes.map(() => 0);
	const warnings: string[][] = notes.map(() => []);
	const todo = changes.flatMap((change, i) => change.added.map((passage) => ({ i, passage })));
	if (embedder && embedder.dimensions > 0 && graph.upsertPassageVectors && todo.length > 0) {
		for (let start = 0; start < todo.length; start += EMBED_BATCH) {
			const batch = todo.slice(start, start + EMBED_BATCH);
			try {
				const vectors = await embedder.embedBatch(batch.map(({ i, passage }) => passageEmbeddingText(notes[i].node, passage)));
				await graph.upsertPassageVectors(
					scope,
					batch.map(({ passage }, j) => ({ passageId: passage.id, vector: vectors[j] })),
				);
				for (const { i } of batch) embedded[i]++;
			} catch (error) {
				// A failing embedder never fails the write: the passages are stored and found by their words.
				for (const i of new Set(batch.map((b) => b.i))) {
					warnings[i].push(`Embedding the passages of ${notes[i].node.key} failed (${errorMessage(error)}); reindex embeds them later.`);
				}
			}
		}
	}
	return changes.map((change, i) => ({ added: change.added.length, kept: change.kept, removed: change.removed, embedded: embedded[i], warnings: warnings[i] }));
}
