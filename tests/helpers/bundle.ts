import { buildSync } from "esbuild";
import { basename, join } from "node:path";

const ROOT = join(__dirname, "..", "..");

/**
 * Bundles a TypeScript entry for a child Node process. The bundle lives inside the repository
 * (`.test-out/`) so its npm imports resolve from our node_modules.
 */
export function bundleForNode(entry: string): string {
	const outfile = join(ROOT, ".test-out", `${basename(entry, ".ts")}-${process.pid}.mjs`);
	buildSync({
		entryPoints: [entry],
		bundle: true,
		platform: "node",
		format: "esm",
		target: "node20",
		outfile,
		packages: "external",
		logLevel: "error",
		banner: { js: "import { createRequire as __r } from 'node:module'; const require = __r(import.meta.url);" },
	});
	return outfile;
}
