// esbuild plugin for bundles that include the SQLite WASM layer (Obsidian main.js, the CLI).
//
// - Replaces ./wasm-binary.ts with a module that imports sqlite3.wasm through esbuild's `binary`
//   loader, so the 4.4 MB of bytes travel inside the bundle (a plugin release ships only main.js).
// - Rewrites `import.meta.url` in the package's sqlite3.mjs to `undefined`: CommonJS output has no
//   import.meta, and our loader never needs a URL (it instantiates the bytes itself). This keeps
//   CJS and ESM bundles behaving the same and esbuild free of empty-import-meta warnings.
//
// Usage (esbuild.config.mjs):
//   import { sqliteWasmPlugin } from "./src/backends/sqlite/wasm/esbuild-wasm-plugin.mjs";
//   await esbuild.build({ ..., plugins: [sqliteWasmPlugin()] });
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGE = "sqlite-vec-wasm-demo";
const NAMESPACE = "engrama-sqlite-wasm";
const HERE = path.dirname(fileURLToPath(import.meta.url));
const WASM_BINARY_MODULE = path.join(HERE, "wasm-binary");

/** @returns {import("esbuild").Plugin} */
export function sqliteWasmPlugin() {
	return {
		name: "engrama-sqlite-wasm",
		setup(build) {
			let wasmFile;
			async function locateWasmFile() {
				if (wasmFile) return wasmFile;
				const entry = await build.resolve(PACKAGE, { kind: "import-statement", resolveDir: HERE });
				if (entry.errors.length > 0) throw new Error(`${PACKAGE} is not installed: ${entry.errors[0].text}`);
				wasmFile = path.join(path.dirname(entry.path), "sqlite3.wasm");
				return wasmFile;
			}

			build.onResolve({ filter: /wasm-binary(\.[cm]?[jt]s)?$/ }, (args) => {
				const target = path.resolve(args.resolveDir, args.path).replace(/\.[cm]?[jt]s$/, "");
				return target === WASM_BINARY_MODULE ? { path: "wasm-binary", namespace: NAMESPACE } : undefined;
			});

			build.onLoad({ filter: /^wasm-binary$/, namespace: NAMESPACE }, async () => {
				const file = await locateWasmFile();
				return {
					contents: `import bytes from ${JSON.stringify(file)};\nexport async function loadWasmBinary() { return bytes; }\n`,
					loader: "js",
					resolveDir: path.dirname(file),
				};
			});

			build.onLoad({ filter: /sqlite3\.wasm$/ }, async (args) => ({ contents: await readFile(args.path), loader: "binary" }));

			build.onLoad({ filter: new RegExp(`${PACKAGE}[\\\\/]sqlite3\\.mjs$`) }, async (args) => {
				const source = await readFile(args.path, "utf8");
				return { contents: source.replaceAll("import.meta.url", "undefined"), loader: "js" };
			});
		},
	};
}
