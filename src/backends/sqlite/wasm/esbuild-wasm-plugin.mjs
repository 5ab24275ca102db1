// esbuild plugin for bundles that include the SQLite WASM layer (Obsidian main.js, the CLI).
//
// - Replaces ./wasm-binary.ts with a module that carries sqlite3.wasm gzip-compressed (zlib, level 9)
//   as a base64 string, so the bytes travel inside the bundle (a plugin release ships only main.js):
//   2.5 MB of text instead of 5.9 MB, and nothing is decoded while main.js is evaluated;
//   packed-wasm.ts unpacks it with DecompressionStream when the engine first opens. The package's
//   build keeps 2.2 MB of DWARF debug sections and an 85 kB name section, which only a debugger
//   reads; they are dropped (4.4 MB -> 2.1 MB before gzip, 0.8 MB after).
// - Rewrites `import.meta.url` in the package's sqlite3.mjs to `undefined`: CommonJS output has no
//   import.meta, and our loader never needs a URL (it instantiates the bytes itself). This keeps
//   CJS and ESM bundles behaving the same and esbuild free of empty-import-meta warnings.
// - Replaces ./enum-json.ts with what the wasm's sqlite3_wasm_enum_json() returns, computed here
//   once and keyed by the SHA-256 of the file and of its stripped copy (sqliteEnumJsonPlugin, also
//   used alone by the CLI, which reads sqlite3.wasm from the package at run time).
//
// Usage (esbuild.config.mjs):
//   import { sqliteWasmPlugin } from "./src/backends/sqlite/wasm/esbuild-wasm-plugin.mjs";
//   await esbuild.build({ ..., plugins: [sqliteWasmPlugin()] });
import { readFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { gzipSync, constants } from "node:zlib";
import { createHash } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { importedMemoryLimits, wasmSections } from "./wasm-sections.mjs";

const PACKAGE = "sqlite-vec-wasm-demo";
const NAMESPACE = "engrama-sqlite-wasm";
const HERE = path.dirname(fileURLToPath(import.meta.url));
const WASM_BINARY_MODULE = path.join(HERE, "wasm-binary");
const UNPACK_MODULE = path.join(HERE, "packed-wasm.ts");
const ENUM_JSON_MODULE = path.join(HERE, "enum-json");

/** The package's sqlite3.wasm, as esbuild resolves the package from this folder (Node's lookup if external). */
async function resolveWasmFile(build) {
	const entry = await build.resolve(PACKAGE, { kind: "import-statement", resolveDir: HERE });
	if (entry.errors.length > 0) throw new Error(`${PACKAGE} is not installed: ${entry.errors[0].text}`);
	if (!entry.external && path.isAbsolute(entry.path)) return path.join(path.dirname(entry.path), "sqlite3.wasm");
	for (const dir of createRequire(import.meta.url).resolve.paths(PACKAGE) ?? []) {
		const candidate = path.join(dir, PACKAGE, "sqlite3.wasm");
		if (existsSync(candidate)) return candidate;
	}
	throw new Error(`Cannot find ${PACKAGE}/sqlite3.wasm from ${HERE}; is the package installed?`);
}

/** @returns {import("esbuild").Plugin} */
export function sqliteWasmPlugin() {
	return {
		name: "engrama-sqlite-wasm",
		setup(build) {
			let wasmFile;
			async function locateWasmFile() {
				wasmFile ??= await resolveWasmFile(build);
				return wasmFile;
			}

			build.onResolve({ filter: /wasm-binary(\.[cm]?[jt]s)?$/ }, (args) => {
				const target = path.resolve(args.resolveDir, args.path).replace(/\.[cm]?[jt]s$/, "");
				return target === WASM_BINARY_MODULE ? { path: "wasm-binary", namespace: NAMESPACE } : undefined;
			});

			build.onLoad({ filter: /^wasm-binary$/, namespace: NAMESPACE }, async () => {
				const file = await locateWasmFile();
				const bytes = withoutDebugSections(await readFile(file));
				const packed = gzipSync(bytes, { level: constants.Z_BEST_COMPRESSION }).toString("base64");
				return {
					contents: [
						`import { unpackWasm } from ${JSON.stringify(UNPACK_MODULE)};`,
						`const packed = ${JSON.stringify(packed)};`,
						`export function loadWasmBinary() { return unpackWasm(packed, ${bytes.length}); }`,
					].join("\n"),
					loader: "js",
					resolveDir: HERE,
					watchFiles: [file],
				};
			});

			build.onLoad({ filter: new RegExp(`${PACKAGE}[\\\\/]sqlite3\\.mjs$`) }, async (args) => {
				const source = await readFile(args.path, "utf8");
				return { contents: initializersInTasks(source.replaceAll("import.meta.url", "undefined")), loader: "js" };
			});

			sqliteEnumJsonPlugin().setup(build);
		},
	};
}

/**
 * Replaces ./enum-json.ts with the JSON the package's sqlite3.wasm returns from
 * sqlite3_wasm_enum_json(), so the JS API bootstrap never calls (and V8 never compiles) it.
 * load-sqlite.ts uses it only for wasm bytes with one of the listed SHA-256 hashes.
 * @returns {import("esbuild").Plugin}
 */
export function sqliteEnumJsonPlugin() {
	return {
		name: "engrama-sqlite-enum-json",
		setup(build) {
			build.onResolve({ filter: /enum-json(\.[cm]?[jt]s)?$/ }, (args) => {
				const target = path.resolve(args.resolveDir, args.path).replace(/\.[cm]?[jt]s$/, "");
				return target === ENUM_JSON_MODULE ? { path: "enum-json", namespace: NAMESPACE } : undefined;
			});

			build.onLoad({ filter: /^enum-json$/, namespace: NAMESPACE }, async () => {
				const file = await resolveWasmFile(build);
				const precomputed = await precomputeEnumJson(await readFile(file));
				return { contents: `export const PRECOMPUTED_ENUM_JSON = ${JSON.stringify(precomputed)};`, loader: "js", watchFiles: [file] };
			});
		},
	};
}

/** The enum JSON of a sqlite3.wasm file, with the SHA-256 of the file and of its stripped copy. */
export async function precomputeEnumJson(wasm) {
	const stripped = withoutDebugSections(wasm);
	const sha256 = [...new Set([wasm, stripped].map((bytes) => createHash("sha256").update(bytes).digest("hex")))];
	return { sha256, json: await computeEnumJson(stripped) };
}

/**
 * What sqlite3_wasm_enum_json() returns, from an instance whose imports are stubs: the function
 * only formats compile-time constants into a static buffer. Throws if it fails or returns nothing.
 */
export async function computeEnumJson(wasm) {
	const module = await WebAssembly.compile(wasm);
	const limits = importedMemoryLimits(wasm);
	if (!limits) throw new Error("sqlite3.wasm imports no memory: the enum JSON step (esbuild-wasm-plugin.mjs) needs updating");
	const memory = new WebAssembly.Memory(limits);
	const imports = {};
	for (const imp of WebAssembly.Module.imports(module)) {
		imports[imp.module] ??= {};
		if (imp.kind === "memory") imports[imp.module][imp.name] = memory;
		else if (imp.kind === "function") {
			imports[imp.module][imp.name] = () => {
				throw new Error(`sqlite3_wasm_enum_json() called ${imp.module}.${imp.name}: the enum JSON step (esbuild-wasm-plugin.mjs) needs updating`);
			};
		}
	}
	const { exports } = await WebAssembly.instantiate(module, imports);
	const pointer = exports.sqlite3_wasm_enum_json();
	if (!pointer) throw new Error("sqlite3_wasm_enum_json() returned no string");
	const heap = new Uint8Array(memory.buffer);
	const json = Buffer.from(heap.subarray(pointer, heap.indexOf(0, pointer))).toString("utf8");
	JSON.parse(json);
	return json;
}

const SYNC_INITIALIZERS = `    sqlite3ApiBootstrap.initializers.forEach((f)=>{
      f(sqlite3);
    });`;

/**
 * The JS API bootstrap runs its initializers (the C bindings, oo1, the VFS helpers: 30-60 ms of
 * JavaScript) in one synchronous call, one task on Obsidian's main thread. Run each in front of
 * the async initializers instead, with a macrotask before it: same order, same sqlite3 object,
 * several short tasks. The build fails if the package's code changed shape.
 */
export function initializersInTasks(source) {
	if (!source.includes(SYNC_INITIALIZERS) || !source.includes("while(lia.length) p = p.then(lia.shift());")) {
		throw new Error(`${PACKAGE}/sqlite3.mjs changed: the patch that splits its bootstrap into tasks (esbuild-wasm-plugin.mjs) needs updating`);
	}
	// An initializer may push an async one (the OPFS installer does) onto the global, which is gone by
	// then: give it a stand-in and run what it pushed after the last initializer, as before.
	return source.replace(
		SYNC_INITIALIZERS,
		`    const lateAsync = [];
    sqlite3ApiBootstrap.initializersAsync.unshift(...sqlite3ApiBootstrap.initializers.map((f)=>async (s)=>{
      await new Promise((resolve)=>globalThis.setTimeout(resolve, 0));
      const global = Object.getOwnPropertyDescriptor(globalThis, "sqlite3ApiBootstrap");
      globalThis.sqlite3ApiBootstrap = { initializersAsync: lateAsync };
      try {
        f(s);
      } finally {
        if (global) Object.defineProperty(globalThis, "sqlite3ApiBootstrap", global);
        else delete globalThis.sqlite3ApiBootstrap;
      }
    }), async (s)=>{
      for (const f of lateAsync) await f(s);
    });`,
	);
}

/** The WASM module without its custom sections (debug info, names) except target_features. */
export function withoutDebugSections(wasm) {
	if (wasm.readUInt32BE(0) !== 0x0061736d) throw new Error("sqlite3.wasm is not a WebAssembly module");
	const kept = [wasm.subarray(0, 8)];
	for (const section of wasmSections(wasm)) {
		if (section.end > wasm.length) throw new Error("sqlite3.wasm is truncated");
		if (section.id !== 0 || section.name === "target_features") kept.push(wasm.subarray(section.start, section.end));
	}
	return Buffer.concat(kept);
}
