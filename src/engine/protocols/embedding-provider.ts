export interface EmbedderHealth {
	readonly ok: boolean;
	readonly detail?: string;
}

/** Turns text into vectors. `dimensions` is 0 for the null provider. */
export interface EmbeddingProvider {
	readonly name: string;
	readonly model: string;
	/** Local sentence models only: how token vectors become one (absent: the provider's own way). */
	readonly pooling?: "mean" | "cls";
	readonly dimensions: number;
	embed(text: string): Promise<Float32Array>;
	embedBatch(texts: readonly string[]): Promise<Float32Array[]>;
	/**
	 * A search query's vector, for models trained to read queries apart from the texts searched
	 * (E5: "query: " against "passage: "); absent: `embed` serves both.
	 */
	embedQuery?(text: string): Promise<Float32Array>;
	health(): Promise<EmbedderHealth>;
}
