/**
 * The host face: what a host (src/nodejs, the plugin's engine host, the MCP bridge's services)
 * needs to build an engine — open a `Memory` over a backend's stores, resolve who writes, load a
 * profile, build `Skills` and `VaultSync` — and to implement the protocols a host provides
 * (embedders, vault sources, synonyms). Adapters' verbs and answers are in `./index`.
 */

export { createSkills, type SkillsOptions } from "./skills/skills";
export { createVaultSync, type SyncTimers, type VaultSyncDeps } from "./sync/vault-sync";
// --- Building one ---
export { FAN_OUT_CAP, Memory, type MemoryDeps, type MemoryWriteEvent, type MemoryWriteListener } from "./memory";
export type { MemoryMeta } from "./memory-meta";
export { resolveIdentity, STANDALONE_ID_META, STANDALONE_ORG_META } from "./standalone-identity";
export { labelsOfOtherModules, loadProfile, Profile, type LabelDef, type ProfileResult, type ProfileSource, type RelationDef } from "./profile";
export { DEFAULT_SYNC_SETTINGS, syncSettings } from "./sync/sync-settings";
export { DEFAULT_SEARCH_SETTINGS } from "./search/hybrid-search";
export { DEFAULT_RESOLVER_SETTINGS, type ResolverSettings } from "./resolver";
export { DEFAULT_REFLECT_SETTINGS } from "./reflect";
export { systemClock, newEngramaId, type Clock } from "./clock";
export { requireScope, standaloneScope } from "./scope";

// --- For hosts that implement a protocol (stores, embedders, a vault) ---
export { GRAPH_STORE_WRITES } from "./protocols/graph-store";
export { VECTOR_STORE_WRITES } from "./protocols/vector-store";
export type * from "./protocols";
export { isMarkdownPath, parentFolder, type FrontmatterWriteOptions, type SkippedFile, type VaultEvent, type VaultEventListener, type VaultFileInfo, type VaultSource, type FrontmatterMutator } from "./sync/vault-source";
export { contentHash } from "./sync/content-hash";
export { editFrontmatter } from "./sync/frontmatter";
export {
	chunk,
	checkVector,
	embedByLength,
	LOCAL_BATCH_CHARS,
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
export { memoryLocalModel, recordVectorModel } from "./embedding/vector-model";
export type { SynonymSource } from "./search/synonyms";
export { decodeNote } from "./sync/note-encoding";
export { sha256Hex } from "./plain-values";
