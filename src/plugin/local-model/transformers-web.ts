// What the plugin uses of transformers.js, imported by name. runtime.ts reaches it with import();
// an import() of the package itself made esbuild build the package's namespace object (973
// getters) every time main.js was evaluated, and kept every export from tree shaking.
export { env, pipeline } from "@huggingface/transformers";
