import { isNullEmbedder } from "./embedding/null-embedding-provider";
import { errorMessage } from "./errors";
import type { IntegrityCheck, IntegrityCheckId } from "./protocols";
import { reindex, type ReindexDeps } from "./search/reindex";
import type { Scope } from "./types";
import type { StoreUpkeep } from "./write/store-upkeep";

/** What to do about each kind of problem (the command line prints it beside the count). */
export const INTEGRITY_ADVICE: Readonly<Record<IntegrityCheckId | "vectors_missing", string>> = {
	storage: "The database file is damaged: restore it from a backup (or rebuild the memory from the vault with engrama sync into a new --db).",
	fulltext_missing: "Search cannot find these nodes by words: engrama verify --fix indexes them.",
	fulltext_orphans: "Fulltext rows of deleted nodes (search skips them): engrama verify --fix removes them.",
	dangling_edges: "Relations to deleted nodes (reads skip them): engrama verify --fix removes them.",
	edge_scope: "Relations cross scopes (org/user): neither scope sees them whole; check which program wrote them (nothing is fixed automatically).",
	vector_orphans: "Vectors of deleted nodes or note sections (search skips them; they still hold a trace of the deleted text): engrama verify --fix removes them.",
	vector_dimensions: "The vectors do not match the memory's dimension: run engrama reindex --rebuild --apply.",
	vectors_missing: "These nodes or note sections have no current vector (semantic search misses them): run engrama reindex --apply.",
};

export interface VerifyFinding extends Omit<IntegrityCheck, "check"> {
	readonly check: IntegrityCheckId | "vectors_missing";
	readonly ok: boolean;
	/** Empty when ok. */
	readonly advice: string;
}

export interface VerifyReport {
	readonly ok: boolean;
	readonly backend: string;
	readonly checks: readonly VerifyFinding[];
	/** Live nodes of the caller's scope without a current vector (null: no embedder, nothing expected). */
	readonly vectors_missing: number | null;
	readonly notes: readonly string[];
}

/**
 * `fix`: what the stores' repairIntegrity does (rows of no node removed, missing fulltext entries
 * written), as one transaction, before the checks; returns how many rows each repair touched.
 */
export function repairMemory(memory: Pick<ReindexDeps, "pipeline" | "write">): Promise<Partial<Record<IntegrityCheckId, number>>> {
	return memory.write(() => memory.pipeline.repairIntegrity());
}

/** Read-only: runs the backend's integrity checks and counts the scope's nodes that need embedding. */
export async function verifyMemory(
	deps: ReindexDeps,
	scope: Scope,
): Promise<VerifyReport> {
	const notes: string[] = [];
	const raw: IntegrityCheck[] = [...((await deps.graph.checkIntegrity?.()) ?? [])];
	if (deps.vectors?.checkIntegrity) raw.push(...(await deps.vectors.checkIntegrity()));
	if (!deps.graph.checkIntegrity) notes.push(`The ${deps.graph.name} backend has nothing to check.`);
	let vectorsMissing: number | null = null;
	if (deps.embedder && !isNullEmbedder(deps.embedder) && deps.vectors) {
		try {
			// The reindex dry run: same rules as engrama reindex, writes nothing.
			const plan = await reindex(deps, scope, { apply: false });
			vectorsMissing = plan.to_embed + plan.passages.to_embed;
			notes.push(...plan.errors);
		} catch (error) {
			notes.push(`Vectors not checked: ${errorMessage(error)}`);
		}
	} else {
		notes.push("No embedder configured: nodes without vectors are expected.");
	}
	const checks: VerifyFinding[] = raw.map((c) => ({ ...c, ok: c.problems === 0, advice: c.problems === 0 ? "" : INTEGRITY_ADVICE[c.check] }));
	if (vectorsMissing !== null) {
		checks.push({ check: "vectors_missing", problems: vectorsMissing, samples: [], ok: vectorsMissing === 0, advice: vectorsMissing === 0 ? "" : INTEGRITY_ADVICE.vectors_missing });
	}
	return { ok: checks.every((c) => c.ok), backend: deps.graph.name, checks, vectors_missing: vectorsMissing, notes };
}

/** What `engrama compact` and the plugin's "Compact the memory database" report. */
export interface CompactView {
	readonly backend: string;
	/** False for a backend without files of its own to compact (Neo4j manages its store). */
	readonly compacted: boolean;
	readonly bytes_before: number | null;
	readonly bytes_after: number | null;
}

/**
 * Rewrites the memory's file without its free space, alone in the write queue (no other write
 * runs meanwhile, and SQLite refuses VACUUM inside a transaction). Nothing stored changes.
 */
export async function compactMemory(memory: {
	readonly graph: { readonly name: string };
	readonly pipeline: StoreUpkeep;
	write<T>(job: () => Promise<T>, options?: { readonly alone?: boolean }): Promise<T>;
}): Promise<CompactView> {
	const { graph, pipeline } = memory;
	if (!pipeline.compacts) return { backend: graph.name, compacted: false, bytes_before: null, bytes_after: null };
	const report = await memory.write(() => pipeline.compact(), { alone: true });
	return { backend: graph.name, compacted: true, bytes_before: report.bytesBefore, bytes_after: report.bytesAfter };
}

/** One line for a person: what the compact did, or why there was nothing to do. */
export function describeCompact(view: CompactView): string {
	if (!view.compacted) {
		const own = view.backend === "neo4j" ? " (Neo4j manages its own store files)" : "";
		return `Nothing to compact: compacting rewrites the SQLite memory file, and this memory is on the ${view.backend} backend${own}.`;
	}
	const mb = (b: number | null) => `${((b ?? 0) / 1e6).toFixed(1)} MB`;
	return `Compacted the memory file: ${mb(view.bytes_before)} → ${mb(view.bytes_after)}.`;
}
