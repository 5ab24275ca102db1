export { createSkills, Skills, type SkillsOptions } from "./skills";
export type { ContextRelationView, ContextSkillView } from "./context";
export { findLiveNode, findNode, type NodeName } from "./find-node";
export type { ForgetResult, GdprCounts, GdprReport, TtlOptions, TtlReport } from "./forget";
export { extractMentions, extractionGuidance, guessKind, type DedupHint, type IngestInput, type IngestKind, type IngestResult } from "./ingest";
export { INLINE_LIMITS, parseInlineRelations, type InlineRelations, type InlineTarget } from "./inline-relations";
export {
	PROACTIVE_THRESHOLD,
	bumpProactiveCounter,
	proactiveHint,
	readProactiveCounter,
	resetProactiveCounter,
} from "../reflect/proactive-counter";
export type { RecallOptions, RecallView } from "./search";
export type { RelateResult } from "./relate";
export { chooseRelation, findTagAnchors, TAG_ANCHOR_RELATIONS, type RelationChoice, type TagAnchorLink } from "./relation-choice";
export {
	ENRICH_DEGREE,
	inferStubLabel,
	type EnrichHintView,
	type RelationOutcome,
	type RelationOutcomeView,
	type RelationResolution,
	type RememberInput,
	type RememberResult,
	type SuggestedRelationView,
} from "./remember";
export { DuplicateEntityError } from "./skill-errors";
export type { AtDateNodeView, AtDateView, HistoryEntryView, HistoryView } from "./temporal-skills";
export { candidateView, duplicateView, nodeRef, type CandidateView, type DuplicateView, type NodeRefView } from "./node-refs";
export { isSystemInsight } from "../resolver/system-insight";
