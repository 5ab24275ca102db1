#!/usr/bin/env node
// The command line lives in dist/cli.mjs, built by `npm install` (prepare) or `npm run build`.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import v8 from "node:v8";

// One-shot commands: V8's optimising tier compiles the 4.4 MB SQLite WASM in the background and
// Node waits for that at exit (~1 s). The baseline compiler alone is plenty for one command;
// long-running commands keep the optimised tier.
const LONG_RUNNING = new Set(["serve", "watch", "mcp", "mcp-proxy"]);
if (!process.argv.slice(2).some((arg) => LONG_RUNNING.has(arg))) v8.setFlagsFromString("--liftoff-only");

const cli = new URL("../dist/cli.mjs", import.meta.url);
if (!existsSync(fileURLToPath(cli))) {
	process.stderr.write("engrama: the command line is not built yet. Run `npm install` (or `npm run build`) in the Engrama folder.\n");
	process.exit(1);
}
await import(cli.href);
