/** onnxruntime-web's WASM bundle as text (esbuild-local-model-plugin.mjs): the proxy worker's script. */
declare module "engrama:ort-worker-source" {
	const source: string;
	export default source;
}
