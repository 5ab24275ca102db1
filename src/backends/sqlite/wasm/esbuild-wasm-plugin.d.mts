import type { Plugin } from "esbuild";

/** Inlines sqlite3.wasm into the bundle and makes sqlite3.mjs independent of import.meta.url. */
export function sqliteWasmPlugin(): Plugin;

/** The WASM module without its custom sections (DWARF debug info, names) except target_features. */
export function withoutDebugSections(wasm: Buffer): Buffer;

/** Replaces ./enum-json.ts with the JSON sqlite3_wasm_enum_json() returns (the CLI's build). */
export function sqliteEnumJsonPlugin(): Plugin;

/** The enum JSON of a sqlite3.wasm file, keyed by the SHA-256 of the file and of its stripped copy. */
export function precomputeEnumJson(wasm: Buffer): Promise<{ sha256: string[]; json: string }>;

/** What sqlite3_wasm_enum_json() returns for this wasm, from an instance with stub imports. */
export function computeEnumJson(wasm: Buffer): Promise<string>;
