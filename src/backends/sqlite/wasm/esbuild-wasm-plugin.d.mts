import type { Plugin } from "esbuild";

/** Inlines sqlite3.wasm into the bundle and makes sqlite3.mjs independent of import.meta.url. */
export function sqliteWasmPlugin(): Plugin;
