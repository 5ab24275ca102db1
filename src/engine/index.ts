/**
 * The engine's one exported surface. Adapters (src/cli, src/mcp, src/plugin, src/main.ts) and the
 * hosts that build an engine (src/nodejs) import the engine only from here, `./errors` and `./types`
 * (tests/architecture.test.ts enforces it). Verbs are methods of the face objects, never free
 * functions: `Skills` (remember … import), `VaultSync` (vault ↔ graph). `Memory` is the core
 * beneath them, handed to hosts to build the face and to read counts; its stores are read-only.
 */

// --- The face: every verb ---
export { createSkills, Skills, type ImportRequest, type SkillsOptions } from "./skills/skills";
export type { NoteParseResult } from "./sync/note-parser";
export { VaultSync, createVaultSync, type FullSyncOptions, type SyncTimers, type VaultSyncDeps } from "./sync/vault-sync";

// --- Building one (hosts) ---
export { FAN_OUT_CAP, Memory, type MemoryDeps, type MemoryWriteEvent, type MemoryWriteListener } from "./memory";
export { resolveIdentity, STANDALONE_ID_META, STANDALONE_ORG_META } from "./standalone-identity";
export { labelsOfOtherModules, loadProfile, Profile, type LabelDef, type ProfileResult, type ProfileSource, type RelationDef } from "./profile";
export { DEFAULT_SYNC_SETTINGS, syncSettings, type SyncSettings } from "./sync/sync-settings";
export { DEFAULT_SEARCH_SETTINGS, type DegradedCause, type FusionMode, type SearchReadiness, type SearchSettings } from "./search/hybrid-search";
export { DEFAULT_RESOLVER_SETTINGS, type ResolverSettings } from "./resolver";
export { DEFAULT_REFLECT_SETTINGS } from "./reflect";
export { systemClock, newEngramaId, type Clock } from "./clock";
export { isFullScope, requireScope, standaloneScope } from "./scope";

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
	RememberInput,
	RememberResult,
	TtlReport,
} from "./skills";
export type { NodeName } from "./skills/find-node";
export { CONTEXT_LIMIT } from "./skills/context";
export { RELATED_LIMIT, type RelatedNoteView, type RelatedOptions, type RelatedReason, type RelatedView } from "./skills/related";
export { INSIGHT_STATUSES, REFLECT_DETECTORS, type InsightStatus, type InsightView, type ListInsightsOptions, type ReflectOptions, type ReflectReport, type ReviewResult } from "./reflect";
export { DEFAULT_INSIGHTS_FOLDER, type SurfaceResult, type WriteInsightResult } from "./reflect/proactive";
export type { ReindexOptions, ReindexProgress, ReindexReport } from "./search/reindex";
export { describeCompact, INTEGRITY_ADVICE, type CompactView, type VerifyReport } from "./verify";
export type { ExportCounts } from "./transfer/memory-export";
export type { ImportReport, LineSource } from "./transfer/memory-import";
export { isNoop, type SyncCounts, type SyncProblem, type SyncReport } from "./sync/sync-report";
export type { DecayOptions, DecayReport } from "./temporal";
export type { WriteContext } from "./write/write-pipeline";
export { HIDDEN_PROPS } from "./system-props";

// --- For hosts that implement a protocol (stores, embedders, a vault) ---
export { GRAPH_STORE_WRITES } from "./protocols/graph-store";
export { VECTOR_STORE_WRITES } from "./protocols/vector-store";
export type * from "./protocols";
export { isMarkdownPath, normaliseVaultPath, parentFolder, type FrontmatterWriteOptions, type SkippedFile, type VaultEvent, type VaultEventListener, type VaultFileInfo, type VaultSource, type FrontmatterMutator } from "./sync/vault-source";
export { contentHash } from "./sync/content-hash";
export { editFrontmatter } from "./sync/frontmatter";
export { safeFileName } from "./sync/markdown-text";
export { isSystemInsight } from "./resolver/system-insight";
export {
	chunk,
	checkVector,
	createHttpEmbeddingProvider,
	EmbedderError,
	HashEmbeddingProvider,
	isNullEmbedder,
	knownDimensions,
	LoadOnce,
	normalise,
	NullEmbeddingProvider,
	poolingOf,
	type EmbeddingSettings,
	type HttpClient,
	type HttpResponse,
	type Pooling,
} from "./embedding";
export { pooledVectors, promptsOf, type TextPrompts } from "./embedding/dimensions";
export { EARLIER_DEFAULT_LOCAL_MODEL, memoryLocalModel, recordVectorModel } from "./embedding/vector-model";
export type { SynonymSource } from "./search/synonyms";
export { decodeNote } from "./sync/note-encoding";
export { bodyLineOf } from "./sync/note-parser";
export { noteSection } from "./sync/passages";
export { sha256Hex } from "./sha256";
