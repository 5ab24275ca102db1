// Unpacks the sqlite3.wasm that main.js carries gzip-compressed and base64-encoded
// (esbuild-wasm-plugin.mjs). Runs when the engine first opens, not when main.js is evaluated, and
// in slices with a macrotask between them, so no step holds Obsidian's main thread for long.
import { hostSleep } from "../../../platform/host-timers";

/** Base64 characters decoded per slice (a multiple of 4): ≈190 kB of gzip, a few ms of work. */
const SLICE = 256 * 1024;

export async function unpackWasm(base64: string, size: number): Promise<Uint8Array<ArrayBuffer>> {
	if (typeof DecompressionStream !== "function") {
		throw new Error("This device cannot unpack Engrama's SQLite engine: DecompressionStream is missing (it needs Obsidian 1.x on a current system WebView: iOS 16.4+, Android WebView/Chrome 80+).");
	}
	let offset = 0;
	const source = new ReadableStream<Uint8Array<ArrayBuffer>>({
		async pull(controller) {
			if (offset >= base64.length) return controller.close();
			if (offset > 0) await hostSleep(0);
			controller.enqueue(decodeBase64(base64.slice(offset, offset + SLICE)));
			offset += SLICE;
		},
	});
	const reader = source.pipeThrough(new DecompressionStream("gzip")).getReader();
	const bytes = new Uint8Array(size);
	let filled = 0;
	for (;;) {
		const { done, value } = await reader.read();
		if (done) break;
		if (filled + value.length > size) throw new Error(`The SQLite engine inside main.js is damaged: more than ${size} bytes unpacked. Reinstall the plugin.`);
		bytes.set(value, filled);
		filled += value.length;
	}
	if (filled !== size) throw new Error(`The SQLite engine inside main.js is damaged: ${filled} of ${size} bytes unpacked. Reinstall the plugin.`);
	return bytes;
}

function decodeBase64(text: string): Uint8Array<ArrayBuffer> {
	const binary = atob(text);
	const out = new Uint8Array(binary.length);
	for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
	return out;
}
