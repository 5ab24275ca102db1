export { contentHash } from "./content-hash";
export { editFrontmatter, parseFrontmatterYaml, splitFrontmatter, type FrontmatterSplit } from "./frontmatter";
export { GraphToVault, type ExportResult, type SyncLane } from "./graph-to-vault";
export { renderEntityNote } from "./entity-note";
export { bodyWikilinks, firstHeading, firstParagraph, inlineTags, safeFileName } from "./markdown-text";
export { NOTE_PROPS, NoteIndex, type NoteEntry } from "./note-index";
export { parseNote, type NoteParseInput, type NoteParseResult, type ParsedNote, type ParsedRelation } from "./note-parser";
export { NOTE_ORIGIN } from "./sync-run";
export { emptyCounts, isNoop, type SyncCounts, type SyncProblem, type SyncReport } from "./sync-report";
export { DEFAULT_SYNC_SETTINGS, folderLabelFor, isExcludedPath, syncSettings, type SyncSettings } from "./sync-settings";
export {
	isMarkdownPath,
	normaliseVaultPath,
	noteBasename,
	type FrontmatterMutator,
	type VaultEvent,
	type VaultEventListener,
	type VaultFileInfo,
	type VaultSource,
} from "./vault-source";
export { VaultSync, createVaultSync, type FullSyncOptions, type SyncTimers, type VaultSyncDeps } from "./vault-sync";
