import { chunk } from "../embedding/batching";
import { isNullEmbedder } from "../embedding/null-embedding-provider";
import { embedderIdentity } from "../embedding/dimensions";
import { EMBEDDING_MODEL_META } from "../embedding/vector-model";
import { ValidationError, errorMessage } from "../errors";
import { nodeToText } from "../node-text";
import type { EmbeddingProvider, GraphReads, VectorReads } from "../protocols";
import { requireScope } from "../scope";
import type { NodeRecord, PartialScope, Scope } from "../types";
import type { StoreUpkeep } from "../write/store-upkeep";
import { countPassagesToEmbed, embedPassages, type PassageReindexReport } from "./reindex-passages";

/** Why a node needs (re-)embedding. */
export type ReindexReason =
	/** The memory holds no vectors at all: it was written with embedding off. */
	| "no_vectors_yet"
	/** Others have vectors, this one none: the embedder failed or was off when it was written. */
	| "missing"
	/** Its vector has another dimension than the embedder gives (the model changed). */
	| "dimension_changed"
	/** Its vector was made by another model (recorded at the last reindex). */
	| "model_changed"
	/** --rebuild: everything is re-embedded. */
	| "rebuild";

/**
 * Texts per embedder call (and per vector write). A local model sorts each call by length before
 * batching (lengthBatches): 256 texts per call embedded obsidian-hub's passages at 31.5 texts per
 * CPU-second against 20.5 with 32 (npm run bench -- embed-speed). HTTP embedders batch on their own.
 */
export const REINDEX_CALL_SIZE = 256;

export interface ReindexOptions {
	/** false (default): only report what would be embedded. */
	readonly apply?: boolean;
	/** Re-embed every node, not only the missing or stale ones (after a model change). */
	readonly rebuild?: boolean;
	/** At most this many nodes are embedded in this run. */
	readonly limit?: number;
	readonly batchSize?: number;
	readonly onProgress?: (progress: ReindexProgress) => void;
}

export interface ReindexProgress {
	readonly done: number;
	readonly total: number;
	readonly failed: number;
}

export interface ReindexReport {
	readonly dry_run: boolean;
	readonly embedder: string;
	readonly model: string;
	readonly dimensions: number;
	readonly stored_dimensions: number;
	readonly stored_model: string | null;
	readonly scanned: number;
	readonly up_to_date: number;
	readonly to_embed: number;
	readonly reasons: Readonly<Record<ReindexReason, number>>;
	/** Over the limit: left for the next run. */
	readonly deferred: number;
	readonly embedded: number;
	readonly failed: number;
	/** Every vector in the file was dropped first (the dimension changed). */
	readonly reset: boolean;
	/** A few of the nodes to embed, for the dry run's report. */
	readonly sample: readonly { readonly label: string; readonly name: string; readonly reason: ReindexReason }[];
	readonly errors: readonly string[];
	/** Sections of notes (reindex-passages.ts): `limit` bounds them apart from the nodes. */
	readonly passages: PassageReindexReport;
}

/** What reindex needs of a memory (`Memory` is one): reads, the embedder, the write door and queue. */
export interface ReindexDeps {
	readonly graph: GraphReads;
	readonly vectors: VectorReads | null;
	readonly embedder: EmbeddingProvider | null;
	/** The write door (vectors, the model's meta). */
	readonly pipeline: StoreUpkeep;
	/** Serialises the writes with the memory's other writers (Memory.write). */
	write<T>(job: () => Promise<T>): Promise<T>;
}

export { EMBEDDING_MODEL_META } from "../embedding/vector-model";
/**
 * Nodes read per listNodes call while looking for missing vectors. Each call is one stretch on
 * the caller's thread (the plugin's gate yields between calls): a page of 500 decoded nodes held
 * Obsidian's main thread ≈ 50 ms of CPU at the start of embedding a 5,000-note vault.
 */
const PAGE = 100;
const MAX_CONSECUTIVE_FAILURES = 3;

/**
 * The reindex skill: finds the scope's live nodes without a (current) vector, says why, and with
 * `apply` embeds them in batches. A dimension change drops the vector table first (it has one
 * dimension for the whole file), so every scope in the file needs its own reindex afterwards.
 */
export async function reindex(deps: ReindexDeps, scopeInput: PartialScope, options: ReindexOptions = {}): Promise<ReindexReport> {
	const scope = requireScope(scopeInput);
	const { graph, vectors, embedder, pipeline } = deps;
	const write = <T>(job: () => Promise<T>) => deps.write(job);
	const apply = options.apply ?? false;
	if (!embedder || isNullEmbedder(embedder)) {
		throw new ValidationError("Reindex needs an embedder. Set EMBEDDING_PROVIDER (local, openai or ollama) or choose one in the settings.");
	}
	if (!vectors) throw new ValidationError("Reindex needs a vector store, but VECTOR_BACKEND is none.");
	const errors: string[] = [];

	let dimensions = embedder.dimensions;
	if (dimensions === 0) {
		try {
			dimensions = (await embedder.embed("dimension probe")).length;
		} catch (error) {
			if (apply) throw error;
			errors.push(`The embedder did not answer: ${errorMessage(error)}`);
		}
	}
	const storedDimensions = await vectors.dimensions();
	const storedModel = await graph.getMeta(EMBEDDING_MODEL_META);
	const modelId = embedderIdentity(embedder);
	const dimensionChanged = storedDimensions > 0 && dimensions > 0 && storedDimensions !== dimensions;
	const modelChanged = storedModel !== null && storedModel !== modelId;
	const anyVectors = storedDimensions > 0 && (await vectors.count(scope)) > 0;

	const { scanned, upToDate, reasons, todo } = await findStale(graph, vectors, scope, { anyVectors, dimensionChanged, modelChanged, rebuild: !!options.rebuild });

	const limit = options.limit !== undefined && options.limit >= 0 ? options.limit : todo.length;
	const selected = todo.slice(0, limit);
	// Every passage too when the vectors are stale (a dimension change drops them all).
	const allPassages = dimensionChanged || modelChanged || !!options.rebuild;
	const passagesToEmbed = await countPassagesToEmbed(graph, scope, allPassages);
	const passageBudget = Math.min(passagesToEmbed, options.limit !== undefined && options.limit >= 0 ? options.limit : passagesToEmbed);
	const passagePlan = { to_embed: passagesToEmbed, deferred: passagesToEmbed - passageBudget };
	const report = {
		dry_run: !apply,
		embedder: embedder.name,
		model: embedder.model,
		dimensions,
		stored_dimensions: storedDimensions,
		stored_model: storedModel,
		scanned,
		up_to_date: upToDate,
		to_embed: todo.length,
		reasons,
		deferred: todo.length - selected.length,
		sample: selected.slice(0, 10).map(({ node, reason }) => ({ label: node.label, name: node.key, reason })),
	};
	if (!apply || (selected.length === 0 && passageBudget === 0)) {
		return { ...report, embedded: 0, failed: 0, reset: false, errors, passages: { ...passagePlan, embedded: 0, failed: 0 } };
	}

	// Another model's vectors go before any new one is written: a run cut short by `limit` or a
	// failing embedder then leaves vectors of one model only, and the next run finds the rest
	// missing (re-embedding every node again after each partial run would never finish).
	let reset = false;
	if (dimensionChanged || modelChanged) {
		reset = await write(() => pipeline.resetVectors());
		if (!reset && dimensionChanged) {
			throw new ValidationError(`The ${vectors.name} vector store cannot drop its vectors, so the dimension cannot change from ${storedDimensions} to ${dimensions}.`);
		}
		if (reset) await write(() => pipeline.setMeta(EMBEDDING_MODEL_META, modelId));
	}

	const total = selected.length + passageBudget;
	const progress = { ...options, onProgress: (p: ReindexProgress) => options.onProgress?.({ ...p, total }) };
	const { embedded, failed } = await embedInBatches({ pipeline, embedder, write }, scope, selected, progress, errors);
	const passages = await embedPassages(
		{ graph, embedder, pipeline, write },
		scope,
		{
			// After a reset every passage lacks its vector: read as missing ones.
			all: allPassages && !reset,
			budget: passageBudget,
			batchSize: options.batchSize ?? REINDEX_CALL_SIZE,
			onBatch: (done, bad) => options.onProgress?.({ done: embedded + failed + done + bad, total, failed: failed + bad }),
		},
		errors,
	);
	if (embedded + passages.embedded > 0) await write(() => pipeline.setMeta(EMBEDDING_MODEL_META, modelId));
	return { ...report, embedded, failed, reset, errors, passages: { ...passagePlan, ...passages } };
}

interface Staleness {
	readonly anyVectors: boolean;
	readonly dimensionChanged: boolean;
	readonly modelChanged: boolean;
	readonly rebuild: boolean;
}

/** Pages through the scope's nodes: which need a vector, and why. */
async function findStale(graph: GraphReads, vectors: VectorReads, scope: Scope, why: Staleness) {
	const reasons: Record<ReindexReason, number> = { no_vectors_yet: 0, missing: 0, dimension_changed: 0, model_changed: 0, rebuild: 0 };
	const todo: { node: NodeRecord; reason: ReindexReason }[] = [];
	let scanned = 0;
	let upToDate = 0;
	for (let offset = 0; ; offset += PAGE) {
		const page = await graph.listNodes(scope, { limit: PAGE, offset });
		if (page.length === 0) break;
		scanned += page.length;
		const has = await vectors.has(scope, page.map((n) => n.id));
		for (const node of page) {
			const reason: ReindexReason | undefined = !has.has(node.id)
				? why.anyVectors
					? "missing"
					: "no_vectors_yet"
				: why.dimensionChanged
					? "dimension_changed"
					: why.modelChanged
						? "model_changed"
						: why.rebuild
							? "rebuild"
							: undefined;
			if (reason === undefined) {
				upToDate++;
				continue;
			}
			reasons[reason]++;
			todo.push({ node, reason });
		}
		if (page.length < PAGE) break;
	}
	return { scanned, upToDate, reasons, todo };
}

/** Embeds and stores the selected nodes batch by batch; stops after MAX_CONSECUTIVE_FAILURES failed batches in a row. */
async function embedInBatches(
	deps: { pipeline: StoreUpkeep; embedder: EmbeddingProvider; write: <T>(job: () => Promise<T>) => Promise<T> },
	scope: Scope,
	selected: readonly { node: NodeRecord }[],
	options: ReindexOptions,
	errors: string[],
): Promise<{ embedded: number; failed: number }> {
	const { pipeline, embedder, write } = deps;
	let embedded = 0;
	let failed = 0;
	let consecutiveFailures = 0;
	for (const batch of chunk(selected, options.batchSize ?? REINDEX_CALL_SIZE)) {
		try {
			const vectorsOut = await embedder.embedBatch(batch.map(({ node }) => nodeToText(node)));
			await write(() =>
				pipeline.transaction(async () => {
					for (let i = 0; i < batch.length; i++) await pipeline.upsertVector(scope, batch[i].node.id, vectorsOut[i]);
				}),
			);
			embedded += batch.length;
			consecutiveFailures = 0;
		} catch (error) {
			failed += batch.length;
			consecutiveFailures++;
			if (errors.length < 10) errors.push(`${batch[0].node.label} "${batch[0].node.key}" and ${batch.length - 1} more: ${errorMessage(error)}`);
		}
		options.onProgress?.({ done: embedded + failed, total: selected.length, failed });
		if (consecutiveFailures >= MAX_CONSECUTIVE_FAILURES) {
			errors.push(`Stopped after ${MAX_CONSECUTIVE_FAILURES} failed batches in a row; ${selected.length - embedded - failed} nodes were not tried. Fix the embedder and run reindex again.`);
			break;
		}
	}
	return { embedded, failed };
}
