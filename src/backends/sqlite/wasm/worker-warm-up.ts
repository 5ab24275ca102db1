// V8 compiles a WASM function on its first call, on the calling thread, and shares the compiled
// code with every instance of the same WebAssembly.Module, in any thread of the process. So where
// Web Workers exist (Obsidian desktop and mobile), a throwaway worker runs a few SQL statements
// on its own instance first: the big functions (the parser, the VDBE) are compiled there, off
// Obsidian's main thread. Best effort: any failure only means the main thread compiles them.
import { hostClearTimeout, hostSetTimeout } from "../../../platform/host-timers";
import { importedMemoryLimits } from "./wasm-sections.mjs";

const WORKER_SOURCE = `
onmessage = async (event) => {
	const { module, pages, sql, enumJson } = event.data;
	try {
		const memory = new WebAssembly.Memory(pages);
		const imports = { env: { memory } };
		for (const imp of WebAssembly.Module.imports(module)) {
			if (imp.kind !== "function") continue;
			imports[imp.module] ??= {};
			imports[imp.module][imp.name] = imp.name === "_abort_js" || imp.name === "__assert_fail" ? () => { throw new Error("abort"); } : () => 0;
		}
		const { exports: x } = await WebAssembly.instantiate(module, imports);
		x.__wasm_call_ctors?.();
		x.sqlite3_initialize();
		const heap = () => new Uint8Array(memory.buffer);
		const cstring = (text) => {
			const bytes = new TextEncoder().encode(text + "\\0");
			const at = x.sqlite3_malloc(bytes.length);
			heap().set(bytes, at);
			return at;
		};
		const dbOut = x.sqlite3_malloc(4);
		x.sqlite3_open_v2(cstring(":memory:"), dbOut, 6, 0);
		const db = new Uint32Array(memory.buffer, dbOut, 1)[0];
		for (const statement of sql) x.sqlite3_exec(db, cstring(statement), 0, 0, 0);
		// The JS API's bootstrap calls this first thing: a huge function (every constant and
		// struct layout as JSON) that took 100 ms to compile on the main thread. Not needed
		// when the bundle carries its result (enum-json.ts): the main thread never calls it then.
		if (enumJson) x.sqlite3_wasm_enum_json?.();
		postMessage("done");
	} catch (error) {
		postMessage("failed: " + String(error));
	}
};`;

/** The limits (in pages) of the module's imported memory (import section), or null. */
export const importedMemoryPages = importedMemoryLimits;

/** `compileEnumJson`: whether the main thread will call sqlite3_wasm_enum_json() (no precomputed JSON). */
export async function warmUpInWorker(
	module: WebAssembly.Module,
	wasm: Uint8Array,
	sql: readonly string[],
	compileEnumJson = true,
	timeoutMs = 20_000,
): Promise<string> {
	if (typeof Worker !== "function" || typeof Blob !== "function" || typeof URL.createObjectURL !== "function") return "no worker";
	const pages = importedMemoryPages(wasm);
	if (pages === null) return "no imported memory";
	const url = URL.createObjectURL(new Blob([WORKER_SOURCE], { type: "text/javascript" }));
	let worker: Worker | undefined;
	try {
		worker = new Worker(url);
		const started = worker;
		return await new Promise<string>((resolve) => {
			const timer = hostSetTimeout(() => resolve("timed out"), timeoutMs);
			started.onmessage = (event: MessageEvent<string>) => {
				hostClearTimeout(timer);
				resolve(event.data);
			};
			started.onerror = (event) => {
				hostClearTimeout(timer);
				event.preventDefault();
				resolve(`failed: ${event.message}`);
			};
			started.postMessage({ module, pages, sql, enumJson: compileEnumJson });
		});
	} catch (error) {
		return `failed: ${String(error)}`;
	} finally {
		worker?.terminate();
		URL.revokeObjectURL(url);
	}
}
