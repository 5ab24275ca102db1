import type { Plugin } from "esbuild";

/** Inlines sqlite3.wasm into the bundle and makes sqlite3.mjs independent of import.meta.url. */
export function sqliteWasmPlugin(): Plugin;

/** The WASM module without its custom sections (DWARF debug info, names) except target_features. */
export function withoutDebugSections(wasm: Buffer): Buffer;
