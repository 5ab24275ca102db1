import { nodeView, type Memory, type NodeView, type SearchOptions, type SearchView } from "../memory";
import { EntityResolver, resolverSettings, type ResolverSettings } from "../resolver";
import type { DecayOptions, DecayReport } from "../temporal";
import type { PartialScope } from "../types";
import type { WriteContext } from "../write/write-pipeline";
import { context, type ContextSkillView } from "./context";
import type { NodeName } from "./find-node";
import { decay, forgetByTtl, forgetNode, gdprForget, type ForgetResult, type GdprReport, type TtlOptions, type TtlReport } from "./forget";
import { ingest, type IngestInput, type IngestResult } from "./ingest";
import { recall, search, type RecallOptions, type RecallView } from "./recall";
import { relate, type RelateResult } from "./relate";
import { remember, type RememberInput, type RememberResult } from "./remember";
import type { SkillDeps } from "./skill-deps";
import { atDate, nodeHistory, type AtDateView, type HistoryView } from "./temporal-skills";

export interface SkillsOptions {
	/** Resolver thresholds and modes (config.resolver); unset fields take DEFAULT_RESOLVER_SETTINGS. */
	readonly resolver?: Partial<ResolverSettings>;
}

/**
 * The engine's one face: what the command line, the MCP bridge and the plugin call, one method
 * per verb, so a verb answers the same on every surface. `Memory` is the core beneath it
 * (protocols, write queue, pipeline, hybrid search); adapters do not call its verbs directly.
 * No Obsidian, no MCP, no query text.
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

	recall(scope: PartialScope, query: string, options?: RecallOptions): Promise<RecallView> {
		return recall(this.deps, scope, query, options);
	}

	/** One node by its exact label (any case) and key; null when absent or out of scope. */
	async get(scope: PartialScope, ref: { label: string; name: string }): Promise<NodeView | null> {
		const node = await this.memory.get(scope, ref.label, ref.name);
		return node ? nodeView(node) : null;
	}

	relate(ctx: WriteContext, from: NodeName, type: string, to: NodeName): Promise<RelateResult> {
		return relate(this.deps, ctx, from, type, to);
	}

	context(scope: PartialScope, ref: NodeName, hops?: number): Promise<ContextSkillView | null> {
		return context(this.deps, scope, ref, hops);
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
}

export function createSkills(memory: Memory, options: SkillsOptions = {}): Skills {
	return new Skills(memory, options);
}
