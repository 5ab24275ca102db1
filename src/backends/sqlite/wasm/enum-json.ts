// What sqlite3.wasm's `sqlite3_wasm_enum_json()` returns: every SQLite constant and struct layout
// as JSON, a constant of the wasm file. This module is a seam, like wasm-binary.ts: bundles
// (esbuild-wasm-plugin.mjs) replace it with the JSON computed at build time, keyed by the SHA-256
// of the wasm bytes the loader may see. Unbundled (tests, tsx) there is none and SQLite builds it.

export interface PrecomputedEnumJson {
	/** Hex SHA-256 of each wasm byte sequence this JSON belongs to (the file, its stripped copy). */
	readonly sha256: readonly string[];
	readonly json: string;
}

export const PRECOMPUTED_ENUM_JSON: PrecomputedEnumJson | undefined = undefined;
