import type { Memory } from "../memory";
import { EntityResolver, resolverSettings, type ResolverSettings } from "../resolver";
import type { DecayOptions, DecayReport } from "../temporal";
import type { PartialScope } from "../types";
import type { WriteContext } from "../write/write-pipeline";
import { context, type ContextSkillView } from "./context";
import type { NodeName } from "./find-node";
import { decay, forgetByTtl, forgetNode, gdprForget, type ForgetResult, type GdprReport, type TtlOptions, type TtlReport } from "./forget";
import { ingest, type IngestInput, type IngestResult } from "./ingest";
import { recall, hybridSearch, type RecallOptions, type RecallView, type SearchFn } from "./recall";
import { relate, type RelateResult } from "./relate";
import { remember, type RememberInput, type RememberResult } from "./remember";
import type { SkillDeps } from "./skill-deps";
import { atDate, nodeHistory, type AtDateView, type HistoryView } from "./temporal-skills";

export interface SkillsOptions {
	/** Resolver thresholds and modes (config.resolver); unset fields take DEFAULT_RESOLVER_SETTINGS. */
	readonly resolver?: Partial<ResolverSettings>;
	/** The search recall runs; Memory.search (hybrid) when absent. */
	readonly search?: SearchFn;
}

/**
 * The skills as plain engine functions over one Memory: what the command line, the MCP bridge
 * and the plugin call. No Obsidian, no MCP, no query text.
 */
export class Skills {
	readonly resolver: EntityResolver;
	private readonly deps: SkillDeps;
	private readonly search: SearchFn;

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
		this.search = options.search ?? hybridSearch(this.deps);
	}

	remember(ctx: WriteContext, input: RememberInput): Promise<RememberResult> {
		return remember(this.deps, ctx, input);
	}

	recall(scope: PartialScope, query: string, options?: RecallOptions): Promise<RecallView> {
		return recall(this.search, scope, query, options);
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
