export { EntityResolver, type EntityResolverDeps, type TargetQuery, type TargetResolution } from "./entity-resolver";
export { aliasesOf, indexedNames, nameFragments, normaliseName, queryFragments, MAX_QUERY_FRAGMENTS, NAME_INDEX_LIMITS } from "./normalise";
export {
	decideTarget,
	lexicalDuplicates,
	mergeFindings,
	scoreCandidates,
	type DuplicateFinding,
	type DuplicateReason,
	type ScoredCandidate,
	type TargetDecision,
} from "./policy";
export {
	CANDIDATE_LIMIT,
	DEFAULT_RESOLVER_SETTINGS,
	DID_YOU_MEAN_LIMIT,
	VECTOR_NEIGHBOURS,
	resolverSettings,
	type DedupeMode,
	type ResolverSettings,
	type TagLinkingMode,
} from "./settings";
export { similarity } from "./similarity";
export { isSystemInsight } from "./system-insight";
