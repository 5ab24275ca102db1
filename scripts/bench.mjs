#!/usr/bin/env node
// `npm run bench -- <name> [args]`: bundles scripts/bench/<name>.ts with esbuild and runs it in Node.
// Benchmarks print numbers; they assert nothing.
import esbuild from "esbuild";
import { existsSync, readdirSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";

const [name, ...args] = process.argv.slice(2);
const available = readdirSync("scripts/bench").filter((f) => f.endsWith(".ts")).map((f) => f.replace(/\.ts$/, ""));
if (!name || !available.includes(name)) {
	console.error(`usage: npm run bench -- <${available.join("|")}> [args]`);
	process.exit(name ? 2 : 0);
}
const outfile = join(".bench-out", `${name}.mjs`);
await esbuild.build({
	entryPoints: [join("scripts/bench", `${name}.ts`)],
	bundle: true,
	platform: "node",
	format: "esm",
	target: "node20",
	outfile,
	packages: "external",
	logLevel: "warning",
	loader: { ".yaml": "text" },
	banner: { js: "import { createRequire as __r } from 'node:module'; const require = __r(import.meta.url);" },
});
if (!existsSync(outfile)) process.exit(1);
const result = spawnSync(process.execPath, ["--expose-gc", outfile, ...args], { stdio: "inherit" });
process.exit(result.status ?? 1);
