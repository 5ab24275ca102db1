import { EmbedderError } from "./embedder-error";

/**
 * Output sizes of common embedding models, so a provider knows its dimension before the first
 * call (the write pipeline skips embedding while it is 0). Keys are lowercase, without a tag.
 */
export const KNOWN_MODEL_DIMENSIONS: Readonly<Record<string, number>> = {
	"text-embedding-3-small": 1536,
	"text-embedding-3-large": 3072,
	"text-embedding-ada-002": 1536,
	"nomic-embed-text": 768,
	"nomic-embed-text-v1.5": 768,
	"nomic-embed-text-v2-moe": 768,
	"mxbai-embed-large": 1024,
	"all-minilm": 384,
	"all-minilm-l6-v2": 384,
	"all-minilm-l12-v2": 384,
	"paraphrase-multilingual-minilm-l12-v2": 384,
	"bge-small-en-v1.5": 384,
	"bge-base-en-v1.5": 768,
	"bge-m3": 1024,
	"snowflake-arctic-embed": 1024,
	"jina-embeddings-v3": 1024,
	"multilingual-e5-small": 384,
	"e5-small-v2": 384,
	"e5-base-v2": 768,
	"gte-small": 384,
};

/**
 * Models trained on English text only: their vectors of another language's text say little about
 * its meaning (all-MiniLM-L6-v2 on Spanish notes: docs/benchmarks-search.md), so search trusts
 * them less there (HybridSearch, foreignVectorShare). Unknown models count as reading any language.
 */
const ENGLISH_ONLY_MODELS = new Set([
	"all-minilm",
	"all-minilm-l6-v2",
	"all-minilm-l12-v2",
	"bge-small-en-v1.5",
	"bge-base-en-v1.5",
	"e5-small-v2",
	"e5-base-v2",
	"gte-small",
	"nomic-embed-text",
	"nomic-embed-text-v1.5",
	"mxbai-embed-large",
]);

export function readsEnglishOnly(model: string): boolean {
	return ENGLISH_ONLY_MODELS.has(modelKey(model));
}

/** "Xenova/all-MiniLM-L6-v2", "nomic-embed-text:latest" → the table's key form. */
export function modelKey(model: string): string {
	const base = model.trim().toLowerCase().split("/").pop() ?? "";
	return base.replace(/:[^:]*$/, "");
}

/**
 * How a local sentence model turns token vectors into one vector: BGE models were trained to use
 * the first ([CLS]) token, sentence-transformers models the mean. Pooling a model the way it was
 * not trained costs recall (LoCoMo any@10 with bge-small-en-v1.5: docs/benchmarks-search.md).
 */
export type Pooling = "mean" | "cls";

export function poolingOf(model: string): Pooling {
	return /^bge-/.test(modelKey(model)) ? "cls" : "mean";
}

/**
 * What a model was trained to see before a text: the E5 family reads "query: " before a search and
 * "passage: " before what is searched, as it was trained.
 * Other models take the text as it is.
 */
export interface TextPrompts {
	readonly query: string;
	readonly passage: string;
}

const NO_PROMPTS: TextPrompts = { query: "", passage: "" };
const E5_PROMPTS: TextPrompts = { query: "query: ", passage: "passage: " };

export function promptsOf(model: string): TextPrompts {
	return /^(multilingual-)?e5-/.test(modelKey(model)) ? E5_PROMPTS : NO_PROMPTS;
}

/** A search query's vector: the provider's query form where it has one (E5's "query: "), else its plain one. */
export function embedQuery(embedder: { embed(text: string): Promise<Float32Array>; embedQuery?(text: string): Promise<Float32Array> }, text: string): Promise<Float32Array> {
	return embedder.embedQuery ? embedder.embedQuery(text) : embedder.embed(text);
}

/**
 * What the vectors of a file were made with, as reindex records it: `<provider>:<model>`, plus the
 * pooling when it is not the mean (so vectors a release pooled differently count as another model).
 */
export function embedderIdentity(embedder: { readonly name: string; readonly model: string; readonly pooling?: Pooling }): string {
	const base = `${embedder.name}:${embedder.model}`;
	return embedder.pooling && embedder.pooling !== "mean" ? `${base}#${embedder.pooling}` : base;
}

export function knownDimensions(model: string): number {
	return KNOWN_MODEL_DIMENSIONS[modelKey(model)] ?? 0;
}

/** Throws when a vector does not have the expected size (0 = not known yet: accept and learn). */
export function checkVector(vector: Float32Array, expected: number, source: string): void {
	if (vector.length === 0) throw new EmbedderError("bad_response", `${source} returned an empty vector.`);
	for (let i = 0; i < vector.length; i++) {
		if (!Number.isFinite(vector[i])) throw new EmbedderError("bad_response", `${source} returned a vector with a non-numeric value at ${i}.`);
	}
	if (expected > 0 && vector.length !== expected) {
		throw new EmbedderError(
			"dimension",
			`${source} returned ${vector.length}-dimensional vectors, but ${expected} were expected. If you changed the model, set the new dimension and run "engrama reindex --rebuild --apply".`,
			{ expected, got: vector.length },
		);
	}
}

/** Unit length, so cosine similarity is a dot product and scores compare across providers. */
export function normalise(vector: Float32Array): Float32Array {
	let sum = 0;
	for (let i = 0; i < vector.length; i++) sum += vector[i] * vector[i];
	const norm = Math.sqrt(sum);
	if (norm === 0) return vector;
	for (let i = 0; i < vector.length; i++) vector[i] /= norm;
	return vector;
}

export function toFloat32(values: unknown, source: string): Float32Array {
	if (!Array.isArray(values)) throw new EmbedderError("bad_response", `${source} returned no embedding array.`);
	const out = new Float32Array(values.length);
	for (let i = 0; i < values.length; i++) {
		const v: unknown = values[i];
		if (typeof v !== "number") throw new EmbedderError("bad_response", `${source} returned a non-numeric embedding value.`);
		out[i] = v;
	}
	return out;
}

/** A pooled `[rows, width]` tensor (transformers.js feature extraction) as one checked vector per text. */
export function pooledVectors(tensor: { readonly dims: readonly number[]; readonly data: unknown }, texts: number, expected: number, source: string): Float32Array[] {
	const [rows, width] = tensor.dims;
	if (rows !== texts) throw new EmbedderError("bad_response", `${source} returned ${rows} vectors for ${texts} texts.`);
	const data = tensor.data as Float32Array;
	const out: Float32Array[] = [];
	for (let r = 0; r < rows; r++) {
		const vector = data.slice(r * width, (r + 1) * width);
		checkVector(vector, expected, source);
		out.push(vector);
	}
	return out;
}
