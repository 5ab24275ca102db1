// The package ships no types; `sqlite3-api.ts` describes what we use of it.
declare module "sqlite-vec-wasm-demo" {
	const sqlite3InitModule: (moduleArg?: Record<string, unknown>) => Promise<unknown>;
	export default sqlite3InitModule;
}
