/**
 * The engine's face for adapters (src/cli, src/mcp, src/plugin, src/main.ts): the verbs and what
 * they answer. Verbs are methods of the face objects, never free functions: `Skills` (remember …
 * import, status) and `VaultSync` (vault ↔ graph). Adapters import the engine only from here,
 * `./errors` and `./types`; the hosts that build an engine also from `./host`, and backends only
 * from `./backend-kit` (tests/architecture.test.ts enforces all three).
 */

// --- The face: every verb ---
export { Skills, type ImportRequest } from "./skills/skills";
export type { StatusOptions, StatusView } from "./skills/status";
export type { NoteParseResult } from "./sync/note-parser";
export { VaultSync, type FullSyncOptions } from "./sync/vault-sync";
export type { SyncSettings } from "./sync/sync-settings";
export type { DegradedCause, FusionMode, SearchReadiness, SearchSettings } from "./search/hybrid-search";
export { isFullScope } from "./scope";

// --- What the verbs answer ---
export type { NodeView, PassageView, SearchOptions, SearchResultView, SearchView } from "./memory";
export type {
	AtDateView,
	ContextRelationView,
	ContextSkillView,
	ForgetResult,
	GdprReport,
	HistoryView,
	IngestInput,
	IngestKind,
	IngestResult,
	RecallView,
	RelateResult,
	RelationOutcomeView,
	RememberInput,
	RememberResult,
	TtlReport,
} from "./skills";
export type { NodeName } from "./skills/find-node";
export { CONTEXT_LIMIT } from "./skills/context";
export { RELATED_LIMIT, type RelatedNoteView, type RelatedOptions, type RelatedReason, type RelatedView } from "./skills/related";
export { INSIGHT_STATUSES, REFLECT_DETECTORS, type InsightStatus, type InsightView, type ListInsightsOptions, type ReflectOptions, type ReflectReport, type ReviewResult } from "./reflect";
export type { SurfaceResult, WriteInsightResult } from "./reflect/proactive";
export type { ReindexOptions, ReindexProgress, ReindexReport } from "./search/reindex";
export { describeCompact, INTEGRITY_ADVICE, type CompactView, type VerifyReport } from "./verify";
export type { ExportCounts } from "./transfer/memory-export";
export type { ImportReport, LineSource } from "./transfer/memory-import";
export type { SyncCounts, SyncProblem, SyncReport } from "./sync/sync-report";
export type { DecayOptions, DecayReport } from "./temporal";
export type { WriteContext } from "./write/write-pipeline";
export {
	DEFAULT_INSIGHTS_FOLDER,
	describeLanguages,
	EARLIER_DEFAULT_LOCAL_MODEL,
	HIDDEN_PROPS,
	isNoop,
	isSystemInsight,
	mostlyEnglish,
	normaliseVaultPath,
	safeFileName,
} from "./plain-values";
export { bodyLineOf } from "./sync/note-parser";
export { noteSection } from "./sync/passages";
export { languageShares, type LanguageShare } from "./embedding/text-language";
export type { ReflectDetectorId } from "./protocols/reflect-rows";
