type Transformers = typeof import("./transformers-web");

/**
 * transformers.js (web build) over onnxruntime-web's WebAssembly backend, loaded once per
 * session. Both are inside main.js but only evaluated here, on first use; the 14 MB ONNX Runtime
 * binary is read from the model store (downloaded with the model) and handed over as bytes, so
 * nothing is fetched from a CDN. Models are read through `env.fetch` from the vault adapter with
 * remote loading off: after the download everything works offline.
 */
export interface LocalRuntime {
	readonly transformers: Transformers;
	readonly ortVersion: string;
}

/** Model files are asked for as `${LOCAL_PREFIX}<owner>/<name>/<file>`. */
export const LOCAL_PREFIX = "/engrama-models/";

export type ModelFileReader = (model: string, file: string) => Promise<ArrayBuffer | null>;

const readers = new Map<string, ModelFileReader>();
let runtime: Promise<LocalRuntime> | undefined;

/** Where a model's files come from while it loads (its installed folder, or a download being checked). */
export function registerModelReader(model: string, reader: ModelFileReader): void {
	readers.set(model, reader);
}

/** The onnxruntime-web version inside main.js (its WASM binary must be the same version). */
export async function bundledOrtVersion(): Promise<string> {
	const ort = await import("onnxruntime-web/wasm");
	return ort.env.versions.web ?? ort.env.versions.common;
}

export function loadRuntime(readWasm: () => Promise<ArrayBuffer>): Promise<LocalRuntime> {
	runtime ??= open(readWasm).catch((error: unknown) => {
		runtime = undefined;
		throw error;
	});
	return runtime;
}

interface WorkerGlobals {
	__engramaOrtWorkerUrl?: string;
	__engramaOrtWorker?: Worker;
}

/** Whether inference runs in ONNX Runtime's proxy worker (off the main thread) or on the main thread. */
export let inWorker = false;

/** Set when unload ended the worker: this copy of main.js cannot start ONNX Runtime again. */
let released = false;

async function open(readWasm: () => Promise<ArrayBuffer>): Promise<LocalRuntime> {
	if (released) throw new Error("ONNX Runtime's worker was stopped when the plugin unloaded; reload the plugin");
	const wasmBinary = await readWasm();
	// Warning kept (obsidianmd/no-global-this): ONNX Runtime's glue, patched at build time
	// (esbuild-local-model-plugin.mjs), stores its worker on globalThis; in the renderer that is the
	// main window, where main.js runs.
	const globals = globalThis as WorkerGlobals;
	// Where Web Workers exist (Obsidian desktop and mobile), inference runs in ONNX Runtime's proxy
	// worker so the main thread only tokenizes and pools; elsewhere (Node tests) on this thread.
	// ONNX Runtime cannot fall back once its worker failed to start, so module workers from blob:
	// URLs are checked first (older mobile web views lack them): then inference stays on this thread.
	inWorker = await moduleWorkersWork();
	if (inWorker && !globals.__engramaOrtWorkerUrl) {
		const { default: source } = await import("engrama:ort-worker-source");
		globals.__engramaOrtWorkerUrl = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
	}
	const ort = await import("onnxruntime-web/wasm");
	const transformers = await import("./transformers-web");
	const { env } = transformers;
	// transformers.js pointed ONNX Runtime at a CDN copy of its glue and binary: use the inlined glue and our bytes.
	const wasm = ort.env.wasm as { wasmPaths?: unknown; wasmBinary?: ArrayBuffer | Uint8Array; numThreads?: number; proxy?: boolean };
	wasm.wasmPaths = undefined;
	wasm.wasmBinary = wasmBinary;
	// Obsidian is not cross-origin isolated (no SharedArrayBuffer threads); one thread, no worker.
	wasm.numThreads = 1;
	wasm.proxy = inWorker;
	env.allowRemoteModels = false;
	env.allowLocalModels = true;
	env.localModelPath = LOCAL_PREFIX;
	env.useBrowserCache = false;
	env.useFSCache = false;
	env.useWasmCache = false;
	env.useCustomCache = false;
	env.fetch = localFetch;
	return { transformers, ortVersion: ort.env.versions.web ?? ort.env.versions.common };
}

/** transformers.js's fetch: local model files only; anything else is refused (no network). */
async function localFetch(input: string | URL | Request): Promise<Response> {
	const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
	if (!url.startsWith(LOCAL_PREFIX)) return new Response(null, { status: 404, statusText: `Engrama loads models from its model folder only (${url})` });
	const rest = url.slice(LOCAL_PREFIX.length);
	const [owner, name, ...file] = rest.split("/");
	const model = `${owner}/${name}`;
	const reader = readers.get(model);
	const bytes = reader ? await reader(model, decodeURIComponent(file.join("/"))) : null;
	if (!bytes) return new Response(null, { status: 404, statusText: "Not downloaded" });
	return new Response(bytes, { status: 200, headers: { "content-type": "application/octet-stream", "content-length": String(bytes.byteLength) } });
}

/** Whether this platform runs a module worker from a blob: URL (answers within 3 s). */
async function moduleWorkersWork(): Promise<boolean> {
	if (typeof Worker !== "function" || typeof URL.createObjectURL !== "function" || typeof Blob !== "function") return false;
	const url = URL.createObjectURL(new Blob(["self.onmessage = () => self.postMessage('ok'); export {};"], { type: "text/javascript" }));
	let worker: Worker | undefined;
	try {
		return await new Promise<boolean>((resolve) => {
			const timer = window.setTimeout(() => resolve(false), 3000);
			const done = (ok: boolean) => {
				window.clearTimeout(timer);
				resolve(ok);
			};
			worker = new Worker(url, { type: "module" });
			worker.onmessage = () => done(true);
			worker.onerror = () => done(false);
			worker.postMessage("ping");
		});
	} catch {
		return false;
	} finally {
		worker?.terminate();
		URL.revokeObjectURL(url);
	}
}

/** Plugin unload: ends ONNX Runtime's worker (its WASM memory) and frees the script's blob: URL. */
export function releaseRuntime(): void {
	// Warning kept (obsidianmd/no-global-this): the same object ONNX Runtime's glue writes (see open()).
	const globals = globalThis as WorkerGlobals;
	if (globals.__engramaOrtWorker) released = true;
	globals.__engramaOrtWorker?.terminate();
	if (globals.__engramaOrtWorkerUrl) URL.revokeObjectURL(globals.__engramaOrtWorkerUrl);
	delete globals.__engramaOrtWorker;
	delete globals.__engramaOrtWorkerUrl;
	runtime = undefined;
}
