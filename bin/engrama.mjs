#!/usr/bin/env node
// The command line lives in dist/cli.mjs, built by `npm install` (prepare) or `npm run build`.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const cli = new URL("../dist/cli.mjs", import.meta.url);
if (!existsSync(fileURLToPath(cli))) {
	process.stderr.write("engrama: the command line is not built yet. Run `npm install` (or `npm run build`) in the Engrama folder.\n");
	process.exit(1);
}
await import(cli.href);
