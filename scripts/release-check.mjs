// Checks what a release would hold before the tag is pushed (.github/workflows/release.yml builds
// and attaches the same three files): versions in step, versions.json not stale, the manifest as
// the community directory reads it, main.js built for release (size, no bare import(), CommonJS),
// styles.css, and lint. Exits 1 with every problem listed.
//
//   npm run release-check                 everything (lint included)
//   npm run release-check -- --no-lint    what `npm test` runs (it lints on its own)
//   node scripts/release-check.mjs --root <dir> --only versions
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const option = (name) => {
	const at = args.indexOf(name);
	return at >= 0 ? args[at + 1] : undefined;
};
const root = resolve(option("--root") ?? ".");
const only = option("--only");

/** Limits a release is held to (the community directory loads main.js at every Obsidian start). */
const LIMITS = { mainJsBytes: 5 * 1024 * 1024, stylesBytes: 64 * 1024, descriptionChars: 250 };

const SEMVER = /^\d+\.\d+\.\d+$/;

function readJson(file, problems) {
	try {
		return JSON.parse(readFileSync(join(root, file), "utf8"));
	} catch (error) {
		problems.push(`${file} cannot be read: ${error instanceof Error ? error.message : String(error)}`);
		return null;
	}
}

/** package.json, manifest.json and versions.json agree, and versions.json names this release's minimum app version. */
function checkVersions(problems) {
	const pkg = readJson("package.json", problems);
	const manifest = readJson("manifest.json", problems);
	const versions = readJson("versions.json", problems);
	if (!pkg || !manifest || !versions) return;
	if (!SEMVER.test(manifest.version ?? "")) problems.push(`manifest.json version "${manifest.version}" is not x.y.z (Obsidian compares it as such; no "v" prefix)`);
	if (pkg.version !== manifest.version) problems.push(`package.json says ${pkg.version}, manifest.json says ${manifest.version}: run \`npm version <x.y.z>\`, which keeps them in step`);
	if (!SEMVER.test(manifest.minAppVersion ?? "")) problems.push(`manifest.json minAppVersion "${manifest.minAppVersion}" is not x.y.z`);
	const listed = versions[manifest.version];
	if (listed === undefined) problems.push(`versions.json is stale: no entry for ${manifest.version} (it should map it to ${manifest.minAppVersion})`);
	else if (listed !== manifest.minAppVersion) problems.push(`versions.json is stale: ${manifest.version} → ${listed}, but manifest.json's minAppVersion is ${manifest.minAppVersion}`);
	for (const [version, app] of Object.entries(versions)) {
		if (!SEMVER.test(version) || !SEMVER.test(String(app))) problems.push(`versions.json entry "${version}": "${app}" is not x.y.z → x.y.z`);
	}
}

/** The fields the community directory and Obsidian read. */
function checkManifest(problems) {
	const manifest = readJson("manifest.json", problems);
	if (!manifest) return;
	for (const field of ["id", "name", "version", "minAppVersion", "description", "author"]) {
		if (typeof manifest[field] !== "string" || manifest[field].trim() === "") problems.push(`manifest.json has no ${field}`);
	}
	if (typeof manifest.isDesktopOnly !== "boolean") problems.push("manifest.json isDesktopOnly must be true or false");
	if (/obsidian/i.test(manifest.id ?? "")) problems.push(`manifest.json id "${manifest.id}" must not contain "obsidian"`);
	const description = String(manifest.description ?? "");
	if (description.length > LIMITS.descriptionChars) problems.push(`manifest.json description is ${description.length} characters (at most ${LIMITS.descriptionChars})`);
	if (!/[.?!]$/.test(description)) problems.push("manifest.json description should end with a period");
}

/** The specifier of every `import("…")` with a literal string (tests/plugin/main-js-imports.test.ts has the same scan). */
function bareImports(code) {
	const specifiers = [...code.matchAll(/\bimport\(\s*(?:\/\*[\s\S]*?\*\/\s*)*(["'`])([^"'`]*)\1/g)].map((m) => m[2] ?? "");
	return specifiers.filter((s) => s.startsWith("node:") || !/^(\.{0,2}\/|[a-z][a-z0-9+.-]*:)/i.test(s));
}

function checkBuild(problems) {
	const out = join(root, ".release-check");
	mkdirSync(out, { recursive: true });
	const mainJs = join(out, "main.js");
	const started = Date.now();
	const build = spawnSync(process.execPath, ["esbuild.config.mjs", "release"], { cwd: root, env: { ...process.env, ENGRAMA_PLUGIN_OUT: mainJs }, encoding: "utf8" });
	if (build.status !== 0) {
		problems.push(`the release build failed:\n${build.stderr || build.stdout}`);
		return;
	}
	const code = readFileSync(mainJs, "utf8");
	const size = statSync(mainJs).size;
	console.log(`release-check: main.js ${(size / 1024 / 1024).toFixed(2)} MB, built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
	if (size > LIMITS.mainJsBytes) problems.push(`main.js is ${(size / 1024 / 1024).toFixed(2)} MB, over the ${LIMITS.mainJsBytes / 1024 / 1024} MB limit`);
	const bare = bareImports(code);
	if (bare.length > 0) problems.push(`main.js has import() of bare specifiers Obsidian's renderer cannot resolve: ${bare.join(", ")}`);
	if (code.includes("sourceMappingURL=data:")) problems.push("main.js carries an inline source map (a development build)");
	if (!/\bmodule\.exports\s*=/.test(code)) problems.push("main.js is not CommonJS (Obsidian loads it with require)");
	const styles = join(root, "styles.css");
	if (!existsSync(styles)) problems.push("styles.css is missing (the release attaches it)");
	else if (statSync(styles).size > LIMITS.stylesBytes) problems.push(`styles.css is ${statSync(styles).size} bytes, over ${LIMITS.stylesBytes}`);
}

function checkLint(problems) {
	const lint = spawnSync("npx", ["eslint", "src", "tests", "--max-warnings", "0"], { cwd: root, encoding: "utf8", shell: process.platform === "win32" });
	if (lint.status !== 0) problems.push(`lint is not clean:\n${lint.stdout}${lint.stderr}`);
}

const problems = [];
checkVersions(problems);
if (only !== "versions") {
	checkManifest(problems);
	if (!flag("--no-build")) checkBuild(problems);
	if (!flag("--no-lint")) checkLint(problems);
}
if (problems.length > 0) {
	console.error(`release-check: ${problems.length} problem${problems.length === 1 ? "" : "s"}:\n- ${problems.join("\n- ")}`);
	process.exit(1);
}
console.log("release-check: ok");
