// scripts/release-check.mjs (what `npm run release-check` and `npm test` run before a release) and
// scripts/version-bump.mjs (what `npm version` runs), on copies of the three version files.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { makeTempDir } from "./helpers/temp-dir";

const ROOT = join(__dirname, "..");
const dirs: { path: string; cleanup(): void }[] = [];
afterEach(() => {
	for (const d of dirs.splice(0)) d.cleanup();
});

function project(files: { pkg: string; manifest: string; min: string; versions: Record<string, string> }): string {
	const dir = makeTempDir("engrama-release-");
	dirs.push(dir);
	writeFileSync(join(dir.path, "package.json"), JSON.stringify({ name: "engrama-obsidian", version: files.pkg }));
	writeFileSync(join(dir.path, "manifest.json"), JSON.stringify({ id: "engrama", name: "Engrama", version: files.manifest, minAppVersion: files.min, description: "A memory.", author: "x", isDesktopOnly: false }, null, "\t"));
	writeFileSync(join(dir.path, "versions.json"), JSON.stringify(files.versions, null, "\t"));
	return dir.path;
}

function check(dir: string): { status: number | null; output: string } {
	const run = spawnSync(process.execPath, [join(ROOT, "scripts/release-check.mjs"), "--root", dir, "--only", "versions"], { encoding: "utf8" });
	return { status: run.status, output: run.stdout + run.stderr };
}

describe("release-check", () => {
	test("passes when package.json, manifest.json and versions.json agree", () => {
		expect(check(project({ pkg: "1.2.0", manifest: "1.2.0", min: "1.11.4", versions: { "1.1.0": "1.8.7", "1.2.0": "1.11.4" } }))).toMatchObject({ status: 0 });
	});

	test("fails on a version mismatch, naming both and the fix", () => {
		const { status, output } = check(project({ pkg: "1.3.0", manifest: "1.2.0", min: "1.11.4", versions: { "1.2.0": "1.11.4" } }));
		expect(status).toBe(1);
		expect(output).toContain("package.json says 1.3.0, manifest.json says 1.2.0");
		expect(output).toContain("npm version");
	});

	test("fails on a stale versions.json: no entry for the release, or an old minimum app version", () => {
		const missing = check(project({ pkg: "1.3.0", manifest: "1.3.0", min: "1.11.4", versions: { "1.2.0": "1.11.4" } }));
		expect(missing.status).toBe(1);
		expect(missing.output).toContain("versions.json is stale: no entry for 1.3.0");
		const old = check(project({ pkg: "1.3.0", manifest: "1.3.0", min: "1.11.4", versions: { "1.3.0": "1.5.0" } }));
		expect(old.status).toBe(1);
		expect(old.output).toContain("1.3.0 → 1.5.0, but manifest.json's minAppVersion is 1.11.4");
	});

	test("the repository's own files agree", () => {
		expect(check(ROOT)).toMatchObject({ status: 0 });
	});
});

describe("version-bump (npm version)", () => {
	test("sets manifest.json's version and adds it to versions.json with the manifest's minAppVersion; release-check then passes", () => {
		const dir = project({ pkg: "1.4.0", manifest: "1.3.0", min: "1.11.4", versions: { "1.3.0": "1.11.4" } });
		const run = spawnSync(process.execPath, [join(ROOT, "scripts/version-bump.mjs")], { cwd: dir, encoding: "utf8", env: { ...process.env, npm_package_version: "1.4.0" } });
		expect(run.status).toBe(0);
		expect(JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"))).toMatchObject({ version: "1.4.0", minAppVersion: "1.11.4" });
		expect(JSON.parse(readFileSync(join(dir, "versions.json"), "utf8"))).toEqual({ "1.3.0": "1.11.4", "1.4.0": "1.11.4" });
		expect(check(dir)).toMatchObject({ status: 0 });
	});

	test("refuses to run outside npm version", () => {
		const dir = project({ pkg: "1.4.0", manifest: "1.3.0", min: "1.11.4", versions: {} });
		const env = { ...process.env };
		delete env.npm_package_version;
		const run = spawnSync(process.execPath, [join(ROOT, "scripts/version-bump.mjs")], { cwd: dir, encoding: "utf8", env });
		expect(run.status).toBe(1);
		expect(JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"))).toMatchObject({ version: "1.3.0" });
	});
});
