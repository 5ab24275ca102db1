import { newEngramaId } from "../clock";
import { nodeView, type Memory, type NodeView, type SearchOptions, type SearchView } from "../memory";
import type { IntegrityCheckId } from "../protocols";
import { insightView, listInsights, reflect, requireInsight, reviewInsight } from "../reflect";
import type { InsightView, ListInsightsOptions, ReflectOptions, ReflectReport, ReviewResult } from "../reflect";
import { surfaceInsights, writeInsightToNote } from "../reflect/proactive";
import type { SurfaceOptions, SurfaceResult, WriteInsightOptions, WriteInsightResult } from "../reflect/proactive";
import { EntityResolver, resolverSettings, type ResolverSettings } from "../resolver";
import type { SearchReadiness } from "../search/hybrid-search";
import { reindex, type ReindexOptions, type ReindexReport } from "../search/reindex";
import type { VaultSource } from "../sync/vault-source";
import type { DecayOptions, DecayReport } from "../temporal";
import type { ExportOptions } from "../transfer/memory-export";
import type { Envelope, ExportLine } from "../transfer/export-format";
import type { ImportOptions, ImportReport, LineSource } from "../transfer/memory-import";
import type { NodeRecord, PartialScope, Scope } from "../types";
import { compactMemory, repairMemory, verifyMemory, type CompactView, type VerifyReport } from "../verify";
import type { WriteContext } from "../write/write-pipeline";
import { context, type ContextSkillView } from "./context";
import type { NodeName } from "./find-node";
import { decay, forgetByTtl, forgetNode, gdprForget, type ForgetResult, type GdprReport, type TtlOptions, type TtlReport } from "./forget";
import { ingest, type IngestInput, type IngestResult } from "./ingest";
import { recall, search, type RecallOptions, type RecallView } from "./search";
import { relate, type RelateResult } from "./relate";
import { related, relatedToNote, type RelatedOptions, type RelatedView } from "./related";
import { remember, type RememberInput, type RememberResult } from "./remember";
import { status, type StatusOptions, type StatusView } from "./status";
import type { SkillDeps } from "./skill-deps";
import { atDate, nodeHistory, type AtDateView, type HistoryView } from "./temporal-skills";

export interface SkillsOptions {
	/** Resolver thresholds and modes (config.resolver); unset fields take DEFAULT_RESOLVER_SETTINGS. */
	readonly resolver?: Partial<ResolverSettings>;
}

/** What an import needs from its caller; the rest (ids, time, known labels, the model) the memory knows. */
export type ImportRequest = Pick<ImportOptions, "merge" | "dryRun" | "callerScope"> & Partial<Pick<ImportOptions, "embeddingModel">>;

/**
 * The engine's one face: what the command line, the MCP bridge and the plugin call, one method
 * per verb (reflect, insights, reindex, verify, export and import included), so a verb answers
 * the same on every surface. `Memory` is the core beneath it (protocols, write queue, pipeline,
 * hybrid search); adapters do not call its verbs directly. Vault sync is the other face object
 * (`VaultSync`, src/engine/sync). No Obsidian, no MCP, no query text, no adapter's wording.
 */
export class Skills {
	readonly resolver: EntityResolver;
	private readonly deps: SkillDeps;

	constructor(
		readonly memory: Memory,
		options: SkillsOptions = {},
	) {
		this.resolver = new EntityResolver({
			graph: memory.graph,
			vectors: memory.vectors,
			profile: memory.profile,
			settings: resolverSettings(options.resolver),
		});
		this.deps = { memory, resolver: this.resolver };
	}

	remember(ctx: WriteContext, input: RememberInput): Promise<RememberResult> {
		return remember(this.deps, ctx, input);
	}

	search(scope: PartialScope, query: string, options?: SearchOptions): Promise<SearchView> {
		return search(this.deps, scope, query, options);
	}

	/** The mode and degradation the next search will report (status): no embedding, no query. */
	searchReadiness(): Promise<SearchReadiness> {
		return this.memory.searcher.readiness();
	}

	/** The backend, profile, embedder and search mode, and (when asked) the caller's counts: what every surface's status shows. */
	status(scope: PartialScope, options?: StatusOptions): Promise<StatusView> {
		return status(this.memory, scope, options);
	}

	recall(scope: PartialScope, query: string, options?: RecallOptions): Promise<RecallView> {
		return recall(this.deps, scope, query, options);
	}

	/** One node by its id, as stored (the panel keeps it); null when absent or out of scope. */
	nodeById(scope: PartialScope, id: string): Promise<NodeRecord | null> {
		return this.memory.graph.getNodeById(scope, id);
	}

	/** The node a note documents: by its engrama_id when the node still points at that path, else by the path. */
	async nodeOfNote(scope: PartialScope, path: string, engramaId?: string): Promise<NodeRecord | null> {
		if (engramaId) {
			const byId = await this.memory.graph.getNodeById(scope, engramaId);
			if (byId && byId.props.obsidian_path === path) return byId;
		}
		const [byPath] = await this.memory.graph.listNodes(scope, { where: { obsidian_path: path }, limit: 1 });
		return byPath ?? null;
	}

	/** One node by its exact label (any case) and key; null when absent or out of scope. */
	async get(scope: PartialScope, ref: { label: string; name: string }): Promise<NodeView | null> {
		const node = await this.memory.get(scope, ref.label, ref.name);
		return node ? nodeView(node) : null;
	}

	relate(ctx: WriteContext, from: NodeName, type: string, to: NodeName): Promise<RelateResult> {
		return relate(this.deps, ctx, from, type, to);
	}

	context(scope: PartialScope, ref: NodeName, hops?: number, limit?: number): Promise<ContextSkillView | null> {
		return context(this.deps, scope, ref, hops, limit);
	}

	/** The notes most related to a note (by meaning, shared words and relations), each with the passage that makes it so. */
	related(scope: PartialScope, ref: NodeName, options?: RelatedOptions): Promise<RelatedView | null> {
		return related(this.deps, scope, ref, options);
	}

	/** `related` for a note given by its vault path ("Guides/Setup.md") or its name; null when there is none. */
	relatedToNote(scope: PartialScope, note: string, options?: RelatedOptions): Promise<RelatedView | null> {
		return relatedToNote(this.deps, scope, note, options);
	}

	forget(ctx: WriteContext, ref: NodeName, options?: { hard?: boolean }): Promise<ForgetResult> {
		return forgetNode(this.deps, ctx, ref, options);
	}

	forgetByTtl(ctx: WriteContext, options: TtlOptions): Promise<TtlReport> {
		return forgetByTtl(this.deps, ctx, options);
	}

	decay(ctx: WriteContext, options: DecayOptions): Promise<DecayReport> {
		return decay(this.deps, ctx, options);
	}

	gdprForget(ctx: WriteContext, options: { apply: boolean }): Promise<GdprReport> {
		return gdprForget(this.deps, ctx, options);
	}

	ingest(scope: PartialScope, input: IngestInput): Promise<IngestResult> {
		return ingest(this.deps, scope, input);
	}

	history(scope: PartialScope, ref: NodeName, limit?: number): Promise<HistoryView> {
		return nodeHistory(this.deps, scope, ref, limit);
	}

	atDate(scope: PartialScope, options: { at: string; label?: string; limit?: number }): Promise<AtDateView> {
		return atDate(this.deps, scope, options);
	}

	// --- Reflect and its Insights ---

	reflect(ctx: WriteContext, options?: ReflectOptions): Promise<ReflectReport> {
		return reflect(this.memory, ctx, options);
	}

	insights(scope: PartialScope, options?: ListInsightsOptions): Promise<InsightView[]> {
		return listInsights(this.memory, scope, options);
	}

	/** One Insight by its exact title, whatever its status; NotFoundError (with close titles) otherwise. */
	async insight(scope: PartialScope, title: string): Promise<InsightView> {
		return insightView(this.memory, scope, await requireInsight(this.memory, scope, title));
	}

	surfaceInsights(scope: PartialScope, options?: SurfaceOptions): Promise<SurfaceResult> {
		return surfaceInsights(this.memory, scope, options);
	}

	reviewInsight(ctx: WriteContext, title: string, verdict: "approved" | "dismissed", reason?: string): Promise<ReviewResult> {
		return reviewInsight(this.memory, ctx, title, verdict, reason);
	}

	writeInsightToNote(ctx: WriteContext, vault: VaultSource, title: string, options?: WriteInsightOptions): Promise<WriteInsightResult> {
		return writeInsightToNote(this.memory, ctx, vault, title, options);
	}

	// --- Upkeep: vectors, integrity, the file, export and import ---

	reindex(scope: PartialScope, options?: ReindexOptions): Promise<ReindexReport> {
		return reindex(this.memory, scope, options);
	}

	verify(scope: Scope): Promise<VerifyReport> {
		return verifyMemory(this.memory, scope);
	}

	/** What `verify --fix` repairs before it checks; how many rows each repair touched. */
	repair(): Promise<Partial<Record<IntegrityCheckId, number>>> {
		return repairMemory(this.memory);
	}

	/** The backend's name (sqlite, neo4j, null), for answers that say where they ran. */
	get backendName(): string {
		return this.memory.graph.name;
	}

	/** False where the backend has no file of its own to compact (Neo4j). */
	get compacts(): boolean {
		return this.memory.pipeline.compacts;
	}

	compact(): Promise<CompactView> {
		return compactMemory(this.memory);
	}

	// Export and import load their modules (and the export format's schemas) when first used:
	// building those schemas was 5-15 ms of every command's start (docs/archive/benchmarks-history.md, command line).
	async *exportMemory(options: ExportOptions): AsyncGenerator<Envelope | ExportLine> {
		const { exportMemory } = await import("../transfer/memory-export");
		yield* exportMemory(this.memory.graph, this.memory.vectors, options);
	}

	/** Reads an export in; the whole file is checked first and bad input changes nothing. */
	async importMemory(source: LineSource, request: ImportRequest): Promise<ImportReport> {
		const { memory } = this;
		const { importMemory } = await import("../transfer/memory-import");
		return memory.write(() =>
			importMemory(memory, source, {
				...request,
				embeddingModel: request.embeddingModel ?? memory.embedder?.model ?? "",
				newId: newEngramaId,
				now: memory.clock.now().toISOString(),
				knownLabel: (label) => memory.profile.resolveLabel(label) !== undefined,
			}),
		);
	}
}

export function createSkills(memory: Memory, options: SkillsOptions = {}): Skills {
	return new Skills(memory, options);
}
