// Build step for the command line (esbuild.config.mjs): parses the shipped profile files once,
// at build time, and puts the data in the bundle in place of shipped-profile-data.ts.
// Parsing base.yaml and its modules took 40-60 ms of CPU in every command (docs/archive/benchmarks-history.md).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { buildSync } from "esbuild";
import { parseDocument } from "yaml";

/**
 * The key of a profile file's text: the text itself (23 kB for all shipped files), so a lookup
 * compares it whole; a hash would load node:crypto, 5-15 ms of every command (docs/archive/benchmarks-history.md).
 */
export function profileTextKey(text) {
	return text;
}

/**
 * The profile schema of these sources (profileFileSchema() of profile-schema.ts), bundled for
 * this build step, which cannot import TypeScript.
 */
async function loadProfileSchema() {
	const entry = fileURLToPath(new URL("../engine/profile/profile-schema.ts", import.meta.url));
	const built = buildSync({ entryPoints: [entry], bundle: true, format: "esm", platform: "node", write: false, logLevel: "silent" });
	const module = await import(`data:text/javascript;base64,${Buffer.from(built.outputFiles[0].contents).toString("base64")}`);
	return module.profileFileSchema();
}

/**
 * The data of every .yaml file in `dir` and `dir/modules`, as the profile loader's YAML and
 * schema steps give it (load-profile.ts parseFile), keyed by profileTextKey: the command line uses
 * it as it is (ProfileSource.checked). Files with YAML errors, data the schema refuses, or data
 * that JSON cannot carry unchanged, are left out: they are parsed from text at run time.
 * @returns {Promise<Record<string, unknown>>}
 */
export async function preparseProfiles(dir) {
	const schema = await loadProfileSchema();
	/** @type {Record<string, unknown>} */
	const out = {};
	for (const sub of [dir, join(dir, "modules")]) {
		if (!existsSync(sub)) continue;
		for (const name of readdirSync(sub).filter((f) => f.endsWith(".yaml")).sort()) {
			const text = readFileSync(join(sub, name), "utf8");
			const doc = parseDocument(text, { prettyErrors: false });
			if (doc.errors.length > 0) continue;
			const result = schema.safeParse(doc.toJS({ maxAliasCount: 100 }));
			if (!result.success) continue;
			if (isDeepStrictEqual(JSON.parse(JSON.stringify(result.data)), result.data)) out[profileTextKey(text)] = result.data;
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
			build.onLoad({ filter: /[\\/]src[\\/]nodejs[\\/]shipped-profile-data\.ts$/ }, async () => ({
				contents: `export const PREPARSED_PROFILES = ${JSON.stringify(await preparseProfiles(dir))};\n`,
				loader: "js",
				watchDirs: [dir, join(dir, "modules")],
			}));
		},
	};
}
