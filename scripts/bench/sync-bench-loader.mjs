// Bundles scripts/bench/sync-bench-lib.ts (the same sources as the CLI) and imports it.
import * as esbuild from "esbuild";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

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
