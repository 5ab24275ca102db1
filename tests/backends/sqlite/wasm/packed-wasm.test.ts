// The SQLite WASM as main.js carries it: gzip + base64, unpacked with DecompressionStream when the engine opens.
import { gzipSync } from "node:zlib";
import { readFileSync } from "node:fs";
import { expect, test } from "vitest";
import { unpackWasm } from "../../../../src/backends/sqlite/wasm/packed-wasm";
import { locateWasmFile } from "../../../../src/backends/sqlite/wasm/wasm-binary";
import { withoutDebugSections } from "../../../../src/backends/sqlite/wasm/esbuild-wasm-plugin.mjs";
import { importedMemoryPages, warmUpInWorker } from "../../../../src/backends/sqlite/wasm/worker-warm-up";

test("unpacks the real sqlite3.wasm byte for byte, and it compiles", async () => {
	const bytes = readFileSync(locateWasmFile());
	const packed = gzipSync(bytes, { level: 9 }).toString("base64");
	expect(packed.length).toBeLessThan(bytes.length * 0.6);
	const unpacked = await unpackWasm(packed, bytes.length);
	expect(Buffer.from(unpacked).equals(bytes)).toBe(true);
	expect(await WebAssembly.compile(unpacked)).toBeInstanceOf(WebAssembly.Module);
});

test("a damaged or truncated copy fails with a message that says to reinstall", async () => {
	const bytes = Buffer.from("0123456789".repeat(100_000));
	const packed = gzipSync(bytes).toString("base64");
	await expect(unpackWasm(packed, bytes.length + 1)).rejects.toThrow(/damaged: 1000000 of 1000001 bytes unpacked\. Reinstall the plugin/);
	await expect(unpackWasm(packed, bytes.length - 1)).rejects.toThrow(/damaged: more than 999999 bytes/);
	await expect(unpackWasm(packed.slice(0, 2000), bytes.length)).rejects.toThrow();
});

test("dropping the debug sections keeps every import and export of sqlite3.wasm", async () => {
	const bytes = readFileSync(locateWasmFile());
	const stripped = withoutDebugSections(bytes);
	expect(stripped.length).toBeLessThan(bytes.length * 0.6);
	const [full, lean] = await Promise.all([WebAssembly.compile(new Uint8Array(bytes)), WebAssembly.compile(new Uint8Array(stripped))]);
	expect(WebAssembly.Module.customSections(full, ".debug_info").length).toBe(1);
	expect(WebAssembly.Module.customSections(lean, ".debug_info")).toEqual([]);
	expect(WebAssembly.Module.exports(lean)).toEqual(WebAssembly.Module.exports(full));
	expect(WebAssembly.Module.imports(lean)).toEqual(WebAssembly.Module.imports(full));
	expect(() => withoutDebugSections(Buffer.from("not wasm at all"))).toThrow(/not a WebAssembly module/);
});

test("the worker warm-up reads the imported memory's limits and steps aside where there is no Worker", async () => {
	const bytes = new Uint8Array(readFileSync(locateWasmFile()));
	const module = await WebAssembly.compile(bytes);
	// The limits the worker's instance needs (a LinkError without the maximum).
	const pages = importedMemoryPages(bytes);
	expect(pages?.initial).toBeGreaterThan(0);
	expect(pages?.maximum).toBeGreaterThanOrEqual(pages?.initial ?? Infinity);
	expect(() => new WebAssembly.Memory(pages!)).not.toThrow();
	// Node has no global Worker: the main thread does the compiling, as before.
	expect(typeof (globalThis as { Worker?: unknown }).Worker).toBe("undefined");
	expect(await warmUpInWorker(module, bytes, ["SELECT 1"])).toBe("no worker");
	expect(importedMemoryPages(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]))).toBeNull();
});
