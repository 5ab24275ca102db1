/** How the fulltext and vector channels are fused: reciprocal rank (default) or the legacy linear blend. */
export type FusionMode = "rrf" | "linear";

/**
 * What a caller may ask of a search, besides the text: one type from the CLI, the MCP tool and the
 * plugin through skills.search and Memory.search down to HybridSearch.
 */
export interface SearchOptions {
	readonly limit?: number;
	/** Any case at Memory.search (resolved against the profile); canonical at HybridSearch. */
	readonly labels?: readonly string[];
	/** Only nodes valid at this instant: valid_from ≤ t and (no valid_to or valid_to ≥ t). */
	readonly validAt?: string;
	/** Only items dated (valid_from) or mentioning a date on or after this day (YYYY-MM-DD). */
	readonly dateFrom?: string;
	/** … on or before this day. */
	readonly dateTo?: string;
	readonly fusion?: FusionMode;
	/** Graph rerank on/off for this call (default: settings.graphRerank). */
	readonly graph?: boolean;
	/** Temporal and trust terms on/off (default on). */
	readonly temporal?: boolean;
	/** Channels to run (default both). Turning one off is a choice, not a degradation. */
	readonly channels?: { readonly fulltext?: boolean; readonly vector?: boolean };
}
