// Shared by the sync benchmarks: bundles scripts/bench/sync-bench-lib.ts (the same sources as the
// CLI) and imports it; the repository root, `--name value` arguments, the vault generator.
import * as esbuild from "esbuild";
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const ROOT = resolve(fileURLToPath(import.meta.url), "../../..");

/** The value after `--name` on the command line, or `fallback`. */
export function arg(name, fallback) {
	const i = process.argv.indexOf(`--${name}`);
	return i >= 0 ? process.argv[i + 1] : fallback;
}

/** Writes a synthetic vault of `notes` notes to `out` (scripts/bench/generate-vault.mjs). */
export function generateVault(notes, out, extra = []) {
	execFileSync(process.execPath, [join(ROOT, "scripts/bench/generate-vault.mjs"), "--notes", String(notes), "--out", out, ...extra]);
}

export async function loadSyncBenchLib(root, tag) {
	const outDir = join(root, ".test-out");
	mkdirSync(outDir, { recursive: true });
	const libFile = join(outDir, `${tag}-lib-${process.pid}.mjs`);
	await esbuild.build({
		entryPoints: [join(root, "scripts/bench/sync-bench-lib.ts")],
		bundle: true,
		platform: "node",
		format: "esm",
		target: "node20",
		outfile: libFile,
		packages: "external",
		logLevel: "error",
		banner: { js: "import { createRequire as __r } from 'node:module'; const require = __r(import.meta.url);" },
	});
	try {
		return await import(pathToFileURL(libFile).href);
	} finally {
		// Imported modules stay loaded; the file is not needed any more.
		rmSync(libFile, { force: true });
	}
}
