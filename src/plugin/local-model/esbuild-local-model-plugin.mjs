// esbuild plugin for the plugin bundle's local embedder (transformers.js web build + onnxruntime-web).
// - "onnxruntime-web/webgpu" (what transformers.web.js imports) becomes the WASM-only bundle: the
//   JavaScript glue is inlined (≈75 kB), the 14 MB ort-wasm-simd-threaded.wasm is NOT: the plugin
//   downloads it with the model and passes the bytes as env.wasm.wasmBinary.
// - transformers.js decides "Node" from process.release.name, which Obsidian desktop (Electron with
//   Node integration) also reports; its web build then takes the onnxruntime-node branch, which the
//   web build leaves empty. In the plugin it is always the web build: the check is fixed to false.
import { createRequire } from "node:module";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);

const NODE_CHECK = /var IS_NODE_ENV = [^;]+;/;

/** onnxruntime-web 1.30.0 (minified names, the same in 1.31.0-dev.20260914): the proxy worker's script URL, and the Worker it makes. */
const PROXY_PATCHES = [
	["to=async()=>{", "to=async()=>{oe=globalThis.__engramaOrtWorkerUrl??oe;"],
	['n=>new Worker(n??oe,{type:"module",name:zr})', 'n=>globalThis.__engramaOrtWorker=new Worker(n??oe,{type:"module",name:zr})'],
];

/** @returns {import("esbuild").Plugin} */
export function localModelPlugin() {
	const ortDist = dirname(require.resolve("onnxruntime-web/ort-wasm-simd-threaded.wasm"));
	return {
		name: "engrama-local-model",
		setup(build) {
			build.onResolve({ filter: /^onnxruntime-web\/webgpu$/ }, () => ({ path: join(ortDist, "ort.wasm.bundle.min.mjs") }));
			// ONNX Runtime's proxy worker (inference off Obsidian's main thread) is started from the
			// bundle's own script URL, which a CommonJS main.js does not have: the plugin gives it a
			// blob: URL of the same bundle's text (below), and keeps the Worker to end it on unload.
			build.onLoad({ filter: /[\\/]onnxruntime-web[\\/]dist[\\/]ort\.wasm\.bundle\.min\.mjs$/, namespace: "file" }, async (args) => {
				let source = await readFile(args.path, "utf8");
				for (const [from, to] of PROXY_PATCHES) {
					if (source.split(from).length !== 2) throw new Error(`ort.wasm.bundle.min.mjs changed: "${from}" not found once (update esbuild-local-model-plugin.mjs)`);
					source = source.replace(from, to);
				}
				return { contents: source, loader: "js" };
			});
			build.onResolve({ filter: /^engrama:ort-worker-source$/ }, () => ({ path: join(ortDist, "ort.wasm.bundle.min.mjs"), namespace: "engrama-ort-text" }));
			build.onLoad({ filter: /.*/, namespace: "engrama-ort-text" }, async (args) => ({ contents: await readFile(args.path, "utf8"), loader: "text" }));
			build.onLoad({ filter: /[\\/]@huggingface[\\/]transformers[\\/]dist[\\/]transformers\.web\.js$/, namespace: "file" }, async (args) => {
				const source = await readFile(args.path, "utf8");
				if (!NODE_CHECK.test(source)) throw new Error("transformers.web.js changed: IS_NODE_ENV not found (update esbuild-local-model-plugin.mjs)");
				return { contents: source.replace(NODE_CHECK, "var IS_NODE_ENV = false;"), loader: "js" };
			});
		},
	};
}
