/** What remember does when the remembered node looks like an existing one. */
export type DedupeMode = "off" | "warn" | "block";
/** What a tag naming an anchor node (Project, Client, Course, Domain) turns into. */
export type TagLinkingMode = "off" | "suggest" | "auto";

/**
 * The resolver's policy knobs, the same on every backend. Environment: ENGRAMA_RESOLVE_CONNECT / _MARGIN /
 * _SUGGEST / _DUPLICATE / _VECTOR, ENGRAMA_REMEMBER_DEDUPE, ENGRAMA_TAG_LINKING,
 * ENGRAMA_REQUIRE_RELATIONS (see src/config/engrama-config.ts).
 */
export interface ResolverSettings {
	/** Fuzzy name score that connects an inline target without asking. */
	readonly connect: number;
	/** ...but only when it beats the runner-up by at least this much. */
	readonly margin: number;
	/** Candidates scoring at least this are offered as did_you_mean (ambiguous). */
	readonly suggest: number;
	/** Name score at which the remembered node is reported as a possible duplicate. */
	readonly duplicate: number;
	/** Cosine similarity at which the remembered node is reported as a semantic duplicate. */
	readonly vector: number;
	readonly dedupe: DedupeMode;
	readonly tagLinking: TagLinkingMode;
	/** Refuse writes that leave a non-anchor node with no relations. */
	readonly requireRelations: boolean;
}

export const DEFAULT_RESOLVER_SETTINGS: ResolverSettings = {
	connect: 0.9,
	margin: 0.08,
	suggest: 0.6,
	duplicate: 0.85,
	vector: 0.9,
	dedupe: "warn",
	tagLinking: "suggest",
	requireRelations: false,
};

/** Candidates fetched per name: bounded, so resolving a name costs the same at 1k and 100k nodes. */
export const CANDIDATE_LIMIT = 200;
/** Suggestions returned with an ambiguous answer. */
export const DID_YOU_MEAN_LIMIT = 5;
/** Vector neighbours examined for semantic duplicates. */
export const VECTOR_NEIGHBOURS = 10;

export function resolverSettings(partial: Partial<ResolverSettings> = {}): ResolverSettings {
	const merged = { ...DEFAULT_RESOLVER_SETTINGS };
	for (const [key, value] of Object.entries(partial) as [keyof ResolverSettings, unknown][]) {
		if (value !== undefined) (merged as Record<string, unknown>)[key] = value;
	}
	return merged;
}
