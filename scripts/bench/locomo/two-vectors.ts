import type { VectorStore } from "../../../src/engine/protocols";
import type { PartialScope, VectorHit } from "../../../src/engine/types";

/**
 * Two vectors per item, for measuring before the product stores them: the memory's own vectors
 * (the turn with its context) and a second one per turn held here (e.g. the turn alone). A
 * query's similarity to a turn is the larger of the two; the k nearest come back.
 */
export class TwoVectorStore implements VectorStore {
	readonly name: string;

	constructor(
		private readonly inner: VectorStore,
		private readonly second: ReadonlyMap<string, Float32Array>,
	) {
		this.name = `${inner.name}+second`;
	}

	dimensions = () => this.inner.dimensions();
	upsert = (...args: Parameters<VectorStore["upsert"]>) => this.inner.upsert(...args);
	delete = (...args: Parameters<VectorStore["delete"]>) => this.inner.delete(...args);
	has = (...args: Parameters<VectorStore["has"]>) => this.inner.has(...args);
	count = (...args: Parameters<VectorStore["count"]>) => this.inner.count(...args);

	async knn(scope: PartialScope, vector: Float32Array, k: number): Promise<readonly VectorHit[]> {
		const best = new Map<string, number>();
		for (const hit of await this.inner.knn(scope, vector, k)) best.set(hit.nodeId, hit.similarity);
		for (const [id, v] of this.second) {
			let dot = 0;
			for (let i = 0; i < v.length; i++) dot += v[i] * vector[i];
			if (dot > (best.get(id) ?? -Infinity)) best.set(id, dot);
		}
		return [...best]
			.sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
			.slice(0, k)
			.map(([nodeId, similarity]) => ({ nodeId, similarity }));
	}
}
