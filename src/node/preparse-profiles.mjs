// Build step for the command line (esbuild.config.mjs): parses the shipped profile files once,
// at build time, and puts the data in the bundle in place of shipped-profile-data.ts.
// Parsing base.yaml and its modules took 40-60 ms of CPU in every command (docs/benchmarks.md).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { parseDocument } from "yaml";

/**
 * The key of a profile file's text: the text itself (23 kB for all shipped files), so a lookup
 * compares it whole; a hash would load node:crypto, 5-15 ms of every command (docs/benchmarks.md).
 */
export function profileTextKey(text) {
	return text;
}

/**
 * The data of every .yaml file in `dir` and `dir/modules`, as the profile loader's YAML step
 * gives it (load-profile.ts parseFile), keyed by profileTextKey. Files with YAML errors, or data
 * that JSON cannot carry unchanged, are left out: they are parsed from text at run time.
 * @returns {Record<string, unknown>}
 */
export function preparseProfiles(dir) {
	/** @type {Record<string, unknown>} */
	const out = {};
	for (const sub of [dir, join(dir, "modules")]) {
		if (!existsSync(sub)) continue;
		for (const name of readdirSync(sub).filter((f) => f.endsWith(".yaml")).sort()) {
			const text = readFileSync(join(sub, name), "utf8");
			const doc = parseDocument(text, { prettyErrors: false });
			if (doc.errors.length > 0) continue;
			const data = doc.toJS({ maxAliasCount: 100 });
			if (isDeepStrictEqual(JSON.parse(JSON.stringify(data)), data)) out[profileTextKey(text)] = data;
		}
	}
	return out;
}

/**
 * esbuild plugin: shipped-profile-data.ts becomes the pre-parsed profiles of `dir`.
 * @returns {import("esbuild").Plugin}
 */
export function preparsedProfilesPlugin(dir) {
	return {
		name: "engrama-preparsed-profiles",
		setup(build) {
			build.onLoad({ filter: /[\\/]src[\\/]node[\\/]shipped-profile-data\.ts$/ }, () => ({
				contents: `export const PREPARSED_PROFILES = ${JSON.stringify(preparseProfiles(dir))};\n`,
				loader: "js",
				watchDirs: [dir, join(dir, "modules")],
			}));
		},
	};
}
