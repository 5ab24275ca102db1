/**
 * The face's plain values: constants, and pure functions from modules that import nothing, so
 * importing this evaluates no other part of the engine. Adapter code that runs before the engine
 * opens takes them from here: the plugin's, which Obsidian evaluates with main.js at every start
 * while the engine waits for layout ready (tests/plugin/main-js-start.test.ts). The face
 * (./index.ts) exports the same values.
 */
export { normaliseVaultPath } from "./sync/vault-source";
export { HIDDEN_PROPS } from "./system-props";
export { isSystemInsight } from "./resolver/system-insight";
export { isNoop } from "./sync/sync-report";
export { safeFileName } from "./sync/markdown-text";
export { describeLanguages, mostlyEnglish } from "./embedding/text-language";
export { sha256Hex } from "./sha256";

/** Beside the notes sync writes for entities (Engrama/<Label>/): the same place in the CLI, MCP and the plugin. */
export const DEFAULT_INSIGHTS_FOLDER = "Engrama/Insights";

/**
 * The local model every release used when none was chosen, before the model was recorded: vectors written
 * before the model was recorded came from it, unless the user named another.
 */
export const EARLIER_DEFAULT_LOCAL_MODEL = "Xenova/all-MiniLM-L6-v2";
