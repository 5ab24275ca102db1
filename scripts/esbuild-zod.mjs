// esbuild plugin for every bundle that carries zod (the Obsidian plugin's main.js, the command line):
// zod's classic index is one namespace object (`z`), which esbuild cannot tree-shake, so two parts
// nothing here uses are cut out at build time:
// - its ~50 message locales (260 kB of main.js): nothing switches locale, the index serves English only;
// - `fromJSONSchema` (JSON Schema → zod, 10 kB minified), whose module built its tables every time
//   main.js was evaluated (1.7 ms of each Obsidian start): the export stays, and says it is not there.

/** @type {import("esbuild").Plugin} */
export const zodTrimmed = {
	name: "zod-trimmed",
	setup(build) {
		build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({
			contents: 'export { default as en } from "./en.js";',
			loader: "js",
		}));
		build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]classic[\\/]from-json-schema\.js$/ }, () => ({
			contents: 'export function fromJSONSchema() { throw new Error("zod\'s fromJSONSchema is not in this build (scripts/esbuild-zod.mjs)"); }',
			loader: "js",
		}));
	},
};
