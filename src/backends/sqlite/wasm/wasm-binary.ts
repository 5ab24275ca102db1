// The bytes of sqlite3.wasm. This module is the one seam bundles replace: `esbuild-wasm-plugin.mjs`
// substitutes a module that imports the .wasm file with esbuild's `binary` loader, so main.js
// carries the bytes and never touches the file system here.
import { createRequire } from "node:module";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

const PACKAGE = "sqlite-vec-wasm-demo";

export async function loadWasmBinary(): Promise<Uint8Array> {
	return readFileSync(locateWasmFile());
}

/** The package exports only its ESM entry, so walk Node's own lookup paths instead of resolving. */
export function locateWasmFile(): string {
	const bases = [import.meta.url, join(process.cwd(), "noop.js")];
	for (const base of bases) {
		const lookup = createRequire(base).resolve.paths(PACKAGE) ?? [];
		for (const dir of lookup) {
			const candidate = join(dir, PACKAGE, "sqlite3.wasm");
			if (existsSync(candidate)) return candidate;
		}
	}
	throw new Error(`Cannot find ${PACKAGE}/sqlite3.wasm from ${bases.join(" or ")}; is the package installed?`);
}
