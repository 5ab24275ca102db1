import { execFileSync } from "node:child_process";
import { SYSTEM_TOOLS, findTool, missingToolMessage, type SystemTool } from "./helpers/system-tools";

/** Tests that spawn `bin/engrama.mjs` run the bundle built from the current sources. */
export default function setup(): void {
	// Said once, before the run: the tests that need a missing program fail with the same words.
	const missing = (Object.keys(SYSTEM_TOOLS) as SystemTool[]).filter((name) => !findTool(name) && !(name === "chromium" && process.env.ENGRAMA_CHROMIUM));
	for (const name of missing) console.warn(`\n${missingToolMessage(name)}\n`);
	execFileSync(process.execPath, ["esbuild.config.mjs", "cli"], { stdio: "inherit" });
}
