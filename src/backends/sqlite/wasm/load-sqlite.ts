// Loads the browser-only Emscripten build of SQLite (+FTS5 +vec0) in Node, Electron and mobile.
import sqlite3InitModule from "sqlite-vec-wasm-demo";
import type { Sqlite3Static } from "./sqlite3-api";
import { loadWasmBinary } from "./wasm-binary";
import { hostSleep } from "../../../platform/host-timers";
import { warmUpInWorker } from "./worker-warm-up";
import { PRECOMPUTED_ENUM_JSON, type PrecomputedEnumJson } from "./enum-json";
import { sha256Hex } from "../../../engine/backend-kit";
import { sqliteWarmUpWanted } from "./warm-up-setting";

// Types only (erased from main.js): typeof import() keeps the mobile lint rule quiet.
type NodeCrypto = typeof import("crypto");

/** What the worker warm-up did in this process ("done", "no worker", "off", "failed: …"): for tests and benchmarks. */
export let lastWorkerWarmUp = "";
/** Where the JS API got SQLite's constants in this process ("precomputed" or "called"): for tests and benchmarks. */
export let lastEnumJson = "";

let cached: Promise<Sqlite3Static> | undefined;

export { setSqliteWarmUp } from "./warm-up-setting";

/** The sqlite3 API object, initialised once per process (init costs 65-120 ms). */
export function loadSqlite(): Promise<Sqlite3Static> {
	cached ??= initialiseSqlite(PRECOMPUTED_ENUM_JSON).catch((error: unknown) => {
		cached = undefined;
		throw error;
	});
	return cached;
}

/** A new sqlite3 API object, not cached (loadSqlite() is); tests pass their own precomputed JSON. */
export async function initialiseSqlite(precomputed: PrecomputedEnumJson | undefined): Promise<Sqlite3Static> {
	const wasmBinary = await loadWasmBinary();
	const [compiled, enumJson] = await Promise.all([
		WebAssembly.compile(wasmBinary as Uint8Array<ArrayBuffer>),
		matchingEnumJson(wasmBinary, precomputed),
	]);
	lastEnumJson = enumJson === undefined ? "called" : "precomputed";
	const warmUpWanted = sqliteWarmUpWanted();
	lastWorkerWarmUp = warmUpWanted ? await warmUpInWorker(compiled, wasmBinary, WARM_UP, enumJson === undefined) : "off";
	// Emscripten never settles its promise when instantiateWasm fails or the runtime aborts.
	let fail: (error: Error) => void = () => undefined;
	const failed = new Promise<never>((_resolve, reject) => (fail = reject));
	const moduleArg = createModuleArg(wasmBinary, compiled, fail, enumJson);
	const pending = withBrowserLikeGlobals(() => sqlite3InitModule(moduleArg));
	const sqlite3 = (await Promise.race([pending, failed])) as Sqlite3Static;
	if (warmUpWanted) await warmUp(sqlite3);
	return sqlite3;
}

/**
 * V8 compiles a WASM function the first time it is called, on the calling thread: the first
 * statements SQLite runs (opening, the schema) held Obsidian's main thread for 0.1-0.3 s in one
 * piece. Running one small statement per macrotask on a scratch database compiles the common
 * paths (prepare/step, the parser, indexes, JSON, FTS5, vec0) in several short tasks instead.
 */
const WARM_UP = [
	"SELECT 1",
	// What the schema check runs first on every open (sqlite-graph-store init, schema.ts).
	"PRAGMA foreign_keys = ON",
	"PRAGMA temp_store = MEMORY",
	"PRAGMA secure_delete = ON",
	"PRAGMA user_version",
	"SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = 'w'",
	"BEGIN",
	"CREATE TABLE w (id INTEGER PRIMARY KEY AUTOINCREMENT, k TEXT NOT NULL, p TEXT NOT NULL DEFAULT '{}', UNIQUE(k, p))",
	"CREATE INDEX wk ON w (json_extract(p, '$.x'), k)",
	"INSERT INTO w (k, p) VALUES ('a', '{\"x\":1}') ON CONFLICT DO UPDATE SET p = excluded.p",
	"SELECT k, COUNT(*) FROM w WHERE json_extract(p, '$.x') = 1 GROUP BY k ORDER BY k",
	"CREATE VIRTUAL TABLE wf USING fts5(a, b)",
	"INSERT INTO wf (rowid, a, b) VALUES (1, 'warm up', 'the engine')",
	"SELECT rowid, bm25(wf) FROM wf WHERE wf MATCH 'warm' ORDER BY bm25(wf)",
	"CREATE VIRTUAL TABLE wv USING vec0(id INTEGER PRIMARY KEY, e float[2] distance_metric=cosine)",
	"INSERT INTO wv (id, e) VALUES (1, '[1, 0]')",
	"SELECT id, distance FROM wv WHERE e MATCH '[1, 0]' AND k = 1",
	"PRAGMA table_info(w)",
	"COMMIT",
];

async function warmUp(sqlite3: Sqlite3Static): Promise<void> {
	const db = new sqlite3.oo1.DB(":memory:", "c");
	try {
		for (const sql of WARM_UP) {
			await hostSleep(0);
			db.exec(sql);
		}
	} finally {
		db.close();
	}
}

/**
 * The precomputed enum JSON when it was made from these very bytes (same SHA-256), else undefined
 * and the bootstrap calls the real function. With no SHA-256 at hand (no Node crypto, no WebCrypto), no shortcut.
 */
async function matchingEnumJson(wasm: Uint8Array, precomputed: PrecomputedEnumJson | undefined): Promise<string | undefined> {
	if (!precomputed) return undefined;
	try {
		const hex = await wasmSha256(wasm);
		return hex !== undefined && precomputed.sha256.includes(hex) ? precomputed.json : undefined;
	} catch {
		return undefined;
	}
}

async function wasmSha256(bytes: Uint8Array): Promise<string | undefined> {
	// Node's hash reads the bytes in place; WebCrypto copies them first (CLI peak RSS 184 -> 188 MB).
	// Through getBuiltinModule, never require: Obsidian mobile's require knows only "obsidian".
	const host = globalThis.process as { getBuiltinModule?: (id: string) => unknown } | undefined;
	const nodeCrypto = host?.getBuiltinModule?.("crypto") as NodeCrypto | undefined;
	if (typeof nodeCrypto?.createHash === "function") return nodeCrypto.createHash("sha256").update(bytes).digest("hex");
	return globalThis.crypto?.subtle ? sha256Hex(bytes) : undefined;
}

/**
 * The instance's exports as the JS API sees them, with sqlite3_wasm_enum_json() serving the
 * precomputed JSON: V8 compiles the real one, a huge function, on its first and only call
 * (45 ms of CPU and +39 MB RSS in a one-shot command). Same contract as the C function: a
 * NUL-terminated string in WASM memory that is never freed (the C one is a static buffer).
 */
function exportsWithEnumJson(exports: WebAssembly.Exports, memory: () => WebAssembly.Memory | undefined, json: string): WebAssembly.Exports {
	const malloc = exports.sqlite3_malloc as (bytes: number) => number;
	let pointer = 0;
	const sqlite3_wasm_enum_json = (): number => {
		const heap = memory();
		if (pointer === 0 && heap) {
			const bytes = new TextEncoder().encode(`${json}\0`);
			pointer = malloc(bytes.length);
			if (pointer) new Uint8Array(heap.buffer).set(bytes, pointer);
		}
		return pointer;
	};
	return Object.assign(Object.create(null) as WebAssembly.Exports, exports, { sqlite3_wasm_enum_json });
}

type ModuleArg = Record<string, unknown> & { calledRun?: boolean; wasmMemory?: WebAssembly.Memory };

function createModuleArg(wasmBinary: Uint8Array, compiled: WebAssembly.Module, fail: (error: Error) => void, enumJson: string | undefined): ModuleArg {
	// What the API bootstrap reads from globalThis.sqlite3ApiConfig besides our warning filter.
	const apiConfig: Record<string, unknown> = {};
	const moduleArg: ModuleArg = {
		// (a) Hand over the bytes; instantiating ourselves means no fetch() and no lookup of
		// "sqlite3.wasm" relative to the module URL, which CommonJS bundles do not have.
		wasmBinary,
		instantiateWasm(imports: WebAssembly.Imports, onSuccess: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void) {
			WebAssembly.instantiate(compiled, imports).then(
				(instance) => {
					if (enumJson !== undefined) apiConfig.exports = exportsWithEnumJson(instance.exports, () => moduleArg.wasmMemory, enumJson);
					onSuccess(instance, compiled);
				},
				(error: unknown) => fail(new Error("sqlite3.wasm failed to instantiate", { cause: error })),
			);
			return {};
		},
		onAbort: (what: unknown) => fail(new Error(`SQLite WASM runtime aborted: ${String(what)}`)),
		// (e) With a setStatus hook Emscripten starts the runtime (file system, then the JS API's
		// bootstrap) in a timer of its own rather than in the task that received the instance.
		setStatus: () => undefined,
		// (c) The sqlite3 API installs itself with `Module.postRun.push(...)` *after* run() has
		// consumed postRun, so such callbacks would never fire; run them as soon as they arrive.
		postRun: createLatePostRun(() => moduleArg, apiConfig),
	};
	// (d) The sqlite3 bootstrap probes Module.HEAPU64 (BigInt support) and the build does not
	// export the views; derive them from the live memory so they follow memory growth.
	const views = {
		HEAP8: Int8Array,
		HEAPU8: Uint8Array,
		HEAP16: Int16Array,
		HEAPU16: Uint16Array,
		HEAP32: Int32Array,
		HEAPU32: Uint32Array,
		HEAPF32: Float32Array,
		HEAPF64: Float64Array,
		HEAP64: BigInt64Array,
		HEAPU64: BigUint64Array,
	} as const;
	for (const [name, View] of Object.entries(views)) {
		Object.defineProperty(moduleArg, name, {
			configurable: true,
			enumerable: true,
			get: () => (moduleArg.wasmMemory ? new View(moduleArg.wasmMemory.buffer) : undefined),
		});
	}
	return moduleArg;
}

type PostRunCallback = (module: ModuleArg) => void;

function createLatePostRun(getModule: () => ModuleArg, apiConfig: Record<string, unknown>): PostRunCallback[] {
	const queue: PostRunCallback[] = [];
	queue.push = (...callbacks: PostRunCallback[]): number => {
		const module = getModule();
		for (const callback of callbacks) {
			// Queued when the runtime has not started yet (it starts in a timer of its own, see (e)).
			if (!module.calledRun) Array.prototype.push.call(queue, (m: ModuleArg) => withApiConfig(apiConfig, () => callback(m)));
			else withApiConfig(apiConfig, () => callback(module));
		}
		return queue.length;
	};
	return queue;
}

// Warnings that are expected here (no OPFS outside browser workers) or that duplicate an error
// we throw anyway (a failed step is rethrown as SqliteError).
const QUIET_WARNINGS = ["Ignoring inability to install OPFS", "sqlite3_step() rc=", "DB.exec() is propagating exception"];

/**
 * The API bootstrap reads `globalThis.sqlite3ApiConfig` once, over its defaults: use it to filter
 * its warnings and, with a precomputed enum JSON, to hand it the exports that serve it.
 */
function withApiConfig(apiConfig: Record<string, unknown>, bootstrap: () => void): void {
	// Warning kept (obsidianmd/no-global-this): SQLite's bootstrap reads the JS global object, not a
	// window; in Obsidian's renderer that is the main window, and the command line has no window.
	const g = globalThis as Record<string, unknown>;
	g.sqlite3ApiConfig = {
		...apiConfig,
		warn: (...args: unknown[]) => {
			const first = args[0];
			if (typeof first === "string" && QUIET_WARNINGS.some((w) => first.startsWith(w))) return;
			console.warn(...args);
		},
	};
	try {
		bootstrap();
	} finally {
		delete g.sqlite3ApiConfig;
	}
}

/**
 * (b) The build refuses to start when it sees Node (`process.versions.node`, also present in
 * Obsidian's Electron renderer) and when it sees neither a window nor a worker. Both checks run
 * synchronously at the start of the init call, so the disguise lasts exactly that long.
 */
function withBrowserLikeGlobals<T>(start: () => T): T {
	const restore = [hideNodeVersion(), pretendWorkerScope()];
	try {
		return start();
	} finally {
		for (const undo of restore) undo();
	}
}

function hideNodeVersion(): () => void {
	if (typeof process === "undefined" || !process.versions?.node) return () => undefined;
	const proc = process;
	const versions = Object.getOwnPropertyDescriptor(proc, "versions");
	if (versions?.configurable) {
		const { node: _node, ...others } = proc.versions;
		Object.defineProperty(proc, "versions", { ...versions, value: others });
		return () => Object.defineProperty(proc, "versions", versions);
	}
	// Fallback: hide the whole `process` global for the same instant. Warnings kept
	// (obsidianmd/no-global-this): `process` lives on the JS global object, which the build checks.
	const global = Object.getOwnPropertyDescriptor(globalThis, "process");
	if (!global?.configurable) return () => undefined;
	Object.defineProperty(globalThis, "process", { configurable: true, writable: true, value: undefined });
	return () => Object.defineProperty(globalThis, "process", global);
}

function pretendWorkerScope(): () => void {
	// Warning kept (obsidianmd/no-global-this): the build looks for WorkerGlobalScope on the JS global object.
	const g = globalThis as Record<string, unknown>;
	if ("WorkerGlobalScope" in g || g.window) return () => undefined;
	g.WorkerGlobalScope = function WorkerGlobalScope() {};
	return () => delete g.WorkerGlobalScope;
}
