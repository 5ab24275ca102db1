import { errorMessage } from "../errors";
import { nodeToText } from "../node-text";
import type { EmbeddingProvider, MergeNodeInput, MergeNodeResult, VectorStore } from "../protocols";
import type { NodeRecord, PropValue, Scope } from "../types";

/** A vector made before the MERGE, from the node as the MERGE should leave it. */
export interface EarlyVector {
	/** The text it embeds: the MERGE's node must give the same, or the vector is made again. */
	readonly text: string;
	readonly vector: Float32Array | null;
	readonly error?: unknown;
}

/**
 * A node's embedding. Where the vectors live on the graph's own nodes (Neo4j), it is made before
 * the MERGE from the node the MERGE will leave (the stored props under the new ones) and written
 * in the MERGE's statement: a remember then costs one statement and one round trip less. Elsewhere,
 * and when the stored node turns out otherwise, it is made from the MERGE's node and upserted after.
 * A failed embedding never fails the write: the node is stored and reindex embeds it later.
 */
export class NodeVectors {
	constructor(private readonly deps: { readonly embedder: EmbeddingProvider | null; readonly vectors: VectorStore | null }) {}

	/**
	 * The vector to send with the MERGE, or undefined when the store cannot take one there yet.
	 * `previous`: one made for the same write before (a guess that the node was new), kept if its text holds.
	 */
	async beforeMerge(merge: MergeNodeInput, existing: NodeRecord | null, previous?: EarlyVector): Promise<EarlyVector | undefined> {
		const { embedder, vectors } = this.deps;
		// The first write of a process takes the upsert path, which checks the dimension and the index.
		if (!embedder || embedder.dimensions === 0 || !vectors?.acceptsNodeVector?.(embedder.dimensions)) return undefined;
		const text = nodeToText(expectedNode(merge, existing));
		if (previous?.text === text) return previous;
		try {
			return { text, vector: await embedder.embed(text) };
		} catch (error) {
			return { text, vector: null, error };
		}
	}

	/** `merge` with the early vector in it, when the store takes a vector of its dimension. */
	withVector(merge: MergeNodeInput, early: EarlyVector | undefined): MergeNodeInput {
		const vector = early?.vector;
		return vector && this.deps.vectors?.acceptsNodeVector?.(vector.length) ? { ...merge, vector } : merge;
	}

	/** After the MERGE: the node's vector (stored by now), or null when there is none. */
	async afterMerge(scope: Scope, result: MergeNodeResult, early: EarlyVector | undefined, warnings: string[]): Promise<Float32Array | null> {
		if (!early || nodeToText(result.node) !== early.text) return this.embed(scope, result.node, warnings);
		if (early.error !== undefined || !early.vector) return this.failed(early.error, warnings);
		if (result.vectorWritten) return early.vector;
		return this.store(scope, result.node.id, early.vector, warnings);
	}

	/** Embeds the node as stored and upserts its vector. */
	async embed(scope: Scope, node: NodeRecord, warnings: string[]): Promise<Float32Array | null> {
		const { embedder, vectors } = this.deps;
		if (!embedder || !vectors || embedder.dimensions === 0) return null;
		try {
			return await this.store(scope, node.id, await embedder.embed(nodeToText(node)), warnings);
		} catch (error) {
			return this.failed(error, warnings);
		}
	}

	private async store(scope: Scope, nodeId: string, vector: Float32Array, warnings: string[]): Promise<Float32Array | null> {
		try {
			await this.deps.vectors?.upsert(scope, nodeId, vector);
			return vector;
		} catch (error) {
			return this.failed(error, warnings);
		}
	}

	private failed(error: unknown, warnings: string[]): null {
		// The write stands; reindex finds nodes without a vector later.
		warnings.push(`Embedding failed (${errorMessage(error)}); the node is stored and will be embedded by reindex.`);
		return null;
	}
}

/** The node a MERGE leaves (its label, key and props), by the arithmetic every store's mergeNode follows. */
function expectedNode(merge: MergeNodeInput, existing: NodeRecord | null): Pick<NodeRecord, "label" | "key" | "props"> {
	const props: Record<string, PropValue> = existing ? { ...existing.props, ...merge.set } : { ...merge.setOnCreate, ...merge.set };
	for (const name of merge.unset ?? []) delete props[name];
	return { label: merge.label, key: merge.key, props };
}
