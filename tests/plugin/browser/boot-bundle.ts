// The fake obsidian module bundled for a real browser page (browser test, Chromium benchmark).
import { build } from "esbuild";
import { ROOT } from "../harness";

export async function bootBundle(entry = "tests/plugin/browser/boot.ts"): Promise<string> {
	const result = await build({
		absWorkingDir: ROOT,
		entryPoints: [entry],
		bundle: true,
		platform: "browser",
		format: "iife",
		target: "es2022",
		write: false,
		logLevel: "error",
		plugins: [
			{
				// The fake only uses happy-dom (no DOM) and ws (no WebSocket) under Node; a browser has both.
				name: "node-only-stubs",
				setup(b) {
					b.onResolve({ filter: /^(happy-dom|ws)$/ }, (args) => ({ path: args.path, namespace: "stub" }));
					b.onLoad({ filter: /.*/, namespace: "stub" }, () => ({ contents: "export const Window = undefined; export const WebSocket = undefined;", loader: "js" }));
				},
			},
		],
	});
	return result.outputFiles[0].text;
}
