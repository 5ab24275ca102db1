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

/** @returns {import("esbuild").Plugin} */
export function localModelPlugin() {
	const ortDist = dirname(require.resolve("onnxruntime-web/ort-wasm-simd-threaded.wasm"));
	return {
		name: "engrama-local-model",
		setup(build) {
			build.onResolve({ filter: /^onnxruntime-web\/webgpu$/ }, () => ({ path: join(ortDist, "ort.wasm.bundle.min.mjs") }));
			build.onLoad({ filter: /[\\/]@huggingface[\\/]transformers[\\/]dist[\\/]transformers\.web\.js$/ }, async (args) => {
				const source = await readFile(args.path, "utf8");
				if (!NODE_CHECK.test(source)) throw new Error("transformers.web.js changed: IS_NODE_ENV not found (update esbuild-local-model-plugin.mjs)");
				return { contents: source.replace(NODE_CHECK, "var IS_NODE_ENV = false;"), loader: "js" };
			});
		},
	};
}
