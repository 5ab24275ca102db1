import type { SearchResultView } from "../memory";
import type { PartialScope } from "../types";
import type { SkillDeps } from "./skill-deps";

export interface RecallOptions {
	readonly limit?: number;
	readonly labels?: readonly string[];
}

export interface RecallView {
	readonly query: string;
	readonly mode: string;
	readonly degraded: boolean;
	readonly reason?: string;
	readonly results: readonly SearchResultView[];
}

/** The search a recall runs: Memory.search (hybrid) unless the adapter wires another. */
export type SearchFn = (scope: PartialScope, text: string, options: RecallOptions) => Promise<RecallView>;

/** Hybrid search through the facade (fulltext + vector, degraded to fulltext without an embedder). */
export function hybridSearch(deps: SkillDeps): SearchFn {
	return (scope, text, options) => deps.memory.search(scope, text, { limit: options.limit, labels: options.labels });
}

/** Fulltext only: for adapters that want the cheap channel. */
export function fulltextSearch(deps: SkillDeps): SearchFn {
	return async (scope, text, options) => ({
		query: text,
		mode: "fulltext",
		degraded: true,
		reason: "fulltext only",
		results: await deps.memory.searchFulltext(scope, text, { limit: options.limit ?? 10, labels: options.labels }),
	});
}

/** recall / search: ranked nodes for a query, archived nodes never included. */
export function recall(search: SearchFn, scope: PartialScope, text: string, options: RecallOptions = {}): Promise<RecallView> {
	return search(scope, text, { limit: Math.max(1, Math.min(options.limit ?? 10, 100)), labels: options.labels });
}
