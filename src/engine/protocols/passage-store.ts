import type { PartialScope, Scope } from "../types";
import type { FulltextQuery } from "./fulltext-store";

/** One section of a note (engine/sync/passages.ts): what search indexes besides the node's own text. */
export interface PassageInput {
	/** Heading path, "Setup > Linux"; "" before the first heading. */
	readonly heading: string;
	/** 1-based line of the note where the passage starts. */
	readonly line: number;
	readonly text: string;
	/** Hash of heading path and text: an unchanged passage keeps its row and its vector. */
	readonly hash: string;
}

export interface StoredPassage extends PassageInput {
	/** The backend's id of the passage (vectors are keyed by it). */
	readonly id: string;
}

/** A passage that needs a vector, with its node (the embedded text names the note). */
export interface PassageToEmbed extends StoredPassage {
	/** Its node's engrama_id. */
	readonly nodeId: string;
}

/** What `writePassages` changed: passages added (they need vectors), kept and removed. */
export interface PassageChange {
	readonly added: readonly StoredPassage[];
	readonly kept: number;
	readonly removed: number;
}

/** One note's passages for `writeManyPassages`. */
export interface NotePassages {
	readonly nodeId: string;
	readonly passages: readonly PassageInput[];
}

/** A passage found by words or by vector, with its node's engrama_id. */
export interface PassageHit {
	readonly nodeId: string;
	readonly passage: StoredPassage;
	/** Higher is better: bm25 (flipped) for words, cosine similarity for vectors. */
	readonly score: number;
}

/**
 * Passages of notes, kept with the node of their note: a node's delete removes them, a rename
 * or move keeps them (they hang on the node, the path is the node's). Optional role: a backend
 * without it searches nodes only.
 */
export interface PassageStore {
	/** Replaces a node's passages with these, keeping rows (and vectors) whose hash is unchanged. */
	writePassages(scope: Scope, nodeId: string, passages: readonly PassageInput[]): Promise<PassageChange>;
	/**
	 * `writePassages` for several notes at once (a sync batch), answers in their order; a backend
	 * that pays per statement (Neo4j) writes them in one. Optional: the pipeline falls back to
	 * one call per note.
	 */
	writeManyPassages?(scope: Scope, notes: readonly NotePassages[]): Promise<readonly PassageChange[]>;
	/** True when any node of the scope has passages (false: a memory from before them, which sync fills). */
	hasPassages(scope: PartialScope): Promise<boolean>;
	/** A node's passages in note order. */
	passagesOf(scope: PartialScope, nodeId: string): Promise<readonly StoredPassage[]>;
	/** The best passages of live nodes of the scope for these words, best first. */
	searchPassages(scope: PartialScope, query: FulltextQuery): Promise<readonly PassageHit[]>;
	/** Stores passage vectors (one dimension with the node vectors). */
	upsertPassageVectors(scope: Scope, vectors: readonly { readonly passageId: string; readonly vector: Float32Array }[]): Promise<void>;
	/** The passages of live nodes of the scope nearest to `vector`, best first. */
	passageKnn(scope: PartialScope, vector: Float32Array, k: number): Promise<readonly PassageHit[]>;
	/** The vectors of a node's passages, by passage id (related notes). */
	passageVectorsOf(scope: PartialScope, nodeId: string): Promise<ReadonlyMap<string, Float32Array>>;
	/** Passages of the scope's live nodes that have no vector yet (reindex), at most `limit`, in a stable order. */
	passagesWithoutVectors(scope: Scope, limit: number): Promise<readonly PassageToEmbed[]>;
	/** How many `passagesWithoutVectors` would return without a limit (reindex's dry run; optional: it reads them all instead). */
	countPassagesWithoutVectors?(scope: Scope): Promise<number>;
	/**
	 * How many passages hold each word (lower-case, accents as the fulltext index folds them), and
	 * how many passages there are: the document counts bm25 ranks with, for related notes' term
	 * weights. Counted over the whole index, as bm25's idf is. Optional: related notes then weigh
	 * words by their frequency in the note alone.
	 */
	passageTermCounts?(scope: PartialScope, words: readonly string[]): Promise<PassageTermCounts>;
}

/** Passages of the index and, per word asked, how many hold it (0: none). */
export interface PassageTermCounts {
	readonly documents: number;
	readonly counts: ReadonlyMap<string, number>;
}
