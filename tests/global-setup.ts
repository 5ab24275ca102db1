import { execFileSync } from "node:child_process";

/** Tests that spawn `bin/engrama.mjs` run the bundle built from the current sources. */
export default function setup(): void {
	execFileSync(process.execPath, ["esbuild.config.mjs", "cli"], { stdio: "inherit" });
}
