import { errorMessage } from "../errors";
import type { EmbeddingProvider, GraphReads, StoredPassage } from "../protocols";
import type { NodeRecord, Scope } from "../types";
import { passageEmbeddingText } from "../write/passage-writes";
import type { StoreUpkeep } from "../write/store-upkeep";

/**
 * Passages (sections of notes) in reindex: those stored while the embedder was off or down, or
 * before a model was chosen, get their vectors; after a model change or with --rebuild every
 * passage of the scope's live notes is embedded again, as the nodes are.
 */

/** The passage half of a reindex report. */
export interface PassageReindexReport {
	readonly to_embed: number;
	/** Over the limit: left for the next run. */
	readonly deferred: number;
	readonly embedded: number;
	readonly failed: number;
}

export interface PassageReindexDeps {
	readonly graph: GraphReads;
	readonly embedder: EmbeddingProvider;
	readonly pipeline: StoreUpkeep;
	write<T>(job: () => Promise<T>): Promise<T>;
}

const PAGE = 500;
/** Read to count where the store cannot count (a dry run only). */
const COUNT_CAP = 1_000_000;
const MAX_CONSECUTIVE_FAILURES = 3;

type Batch = readonly { readonly node: Pick<NodeRecord, "id" | "key">; readonly passage: StoredPassage }[];

/** Each live node of the scope with its passages, a page of nodes at a time. */
async function* nodesWithPassages(graph: GraphReads, scope: Scope): AsyncGenerator<Batch> {
	if (!graph.passagesOf) return;
	for (let offset = 0; ; offset += PAGE) {
		const page = await graph.listNodes(scope, { limit: PAGE, offset });
		for (const node of page) {
			const passages = await graph.passagesOf(scope, node.id);
			if (passages.length > 0) yield passages.map((passage) => ({ node, passage }));
		}
		if (page.length < PAGE) return;
	}
}

/** How many passages a run would embed: every one when `all` (rebuild, model change), else those without a vector. */
export async function countPassagesToEmbed(graph: GraphReads, scope: Scope, all: boolean): Promise<number> {
	if (!graph.passagesWithoutVectors) return 0;
	if (all) {
		let total = 0;
		for await (const batch of nodesWithPassages(graph, scope)) total += batch.length;
		return total;
	}
	if (graph.countPassagesWithoutVectors) return graph.countPassagesWithoutVectors(scope);
	return (await graph.passagesWithoutVectors(scope, COUNT_CAP)).length;
}

/**
 * Embeds at most `budget` passages, `batchSize` per embedder call: every passage when `all`, else
 * those without a vector (read again after each batch, so a stopped run resumes where it was).
 */
export async function embedPassages(
	deps: PassageReindexDeps,
	scope: Scope,
	options: { readonly all: boolean; readonly budget: number; readonly batchSize: number; readonly onBatch?: (done: number, failed: number) => void },
	errors: string[],
): Promise<{ embedded: number; failed: number }> {
	let embedded = 0;
	let failed = 0;
	let consecutiveFailures = 0;
	const size = Math.max(1, options.batchSize);
	/** false: the batch failed; "stop": too many failures in a row. */
	const embedBatch = async (batch: Batch): Promise<boolean | "stop"> => {
		let ok = true;
		try {
			const vectors = await deps.embedder.embedBatch(batch.map(({ node, passage }) => passageEmbeddingText(node, passage)));
			await deps.write(() => deps.pipeline.upsertPassageVectors(scope, batch.map(({ passage }, i) => ({ passageId: passage.id, vector: vectors[i] }))));
			embedded += batch.length;
			consecutiveFailures = 0;
		} catch (error) {
			ok = false;
			failed += batch.length;
			consecutiveFailures++;
			if (errors.length < 10) errors.push(`The section "${batch[0].passage.heading || "(top)"}" of ${batch[0].node.key} and ${batch.length - 1} more: ${errorMessage(error)}`);
		}
		options.onBatch?.(embedded, failed);
		if (consecutiveFailures < MAX_CONSECUTIVE_FAILURES) return ok;
		errors.push(`Stopped after ${MAX_CONSECUTIVE_FAILURES} failed batches of passages in a row. Fix the embedder and run reindex again.`);
		return "stop";
	};
	if (options.all) {
		const pending: Batch[number][] = [];
		let taken = 0;
		for await (const passages of nodesWithPassages(deps.graph, scope)) {
			const part = passages.slice(0, options.budget - taken);
			if (part.length === 0) break;
			taken += part.length;
			pending.push(...part);
			while (pending.length >= size) if ((await embedBatch(pending.splice(0, size))) === "stop") return { embedded, failed };
		}
		if (pending.length > 0) await embedBatch(pending);
		return { embedded, failed };
	}
	if (!deps.graph.passagesWithoutVectors) return { embedded, failed };
	// Passages of a failed batch stay without a vector: skipped from then on, not read again and again.
	const skip = new Set<string>();
	const nodes = new Map<string, Pick<NodeRecord, "id" | "key"> | null>();
	while (embedded + failed < options.budget) {
		const want = Math.min(size, options.budget - embedded - failed);
		const next = (await deps.graph.passagesWithoutVectors(scope, want + skip.size)).filter((p) => !skip.has(p.id)).slice(0, want);
		if (next.length === 0) break;
		const batch: Batch[number][] = [];
		for (const passage of next) {
			if (!nodes.has(passage.nodeId)) nodes.set(passage.nodeId, await deps.graph.getNodeById(scope, passage.nodeId));
			const node = nodes.get(passage.nodeId);
			if (node) batch.push({ node, passage });
			else skip.add(passage.id);
		}
		if (batch.length === 0) continue;
		const outcome = await embedBatch(batch);
		if (outcome === "stop") break;
		if (!outcome) for (const { passage } of batch) skip.add(passage.id);
	}
	return { embedded, failed };
}
