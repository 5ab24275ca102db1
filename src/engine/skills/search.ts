import type { SearchOptions, SearchView } from "../memory";
import { searchProactiveHint } from "../reflect/proactive";
import type { PartialScope } from "../types";
import type { SkillDeps } from "./skill-deps";

export interface RecallOptions {
	readonly limit?: number;
	readonly labels?: readonly string[];
}

export type RecallView = SearchView;

/**
 * search: hybrid (fulltext + vector, fused, reranked by the graph, recency and trust), fulltext
 * only with `degraded` and the reason when the vector channel is missing; archived nodes never
 * included; `proactive_hint` when pending Insights relate to the query.
 */
export async function search(deps: SkillDeps, scope: PartialScope, text: string, options: SearchOptions = {}): Promise<SearchView> {
	const view = await deps.memory.search(scope, text, options);
	const hint = await searchProactiveHint(deps.memory, scope, text, view.results.map((r) => ({ id: r.node_id, label: r.label })));
	return hint === undefined ? view : { ...view, proactive_hint: hint };
}

/** recall: search with the spec's bounds (1–100 results, labels only). */
export function recall(deps: SkillDeps, scope: PartialScope, text: string, options: RecallOptions = {}): Promise<RecallView> {
	return search(deps, scope, text, { limit: Math.max(1, Math.min(options.limit ?? 10, 100)), labels: options.labels });
}
