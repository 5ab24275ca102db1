import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(__dirname, "..");
const read = (file: string): string => readFileSync(join(ROOT, file), "utf8");

/** The shell lines of the README's first fenced `sh` block (the two commands). */
function readmeCommands(): string[] {
	const block = /```sh\n([\s\S]*?)```/.exec(read("README.md"))?.[1] ?? "";
	return block.split("\n").map((line) => line.replace(/#.*/, "").trim()).filter(Boolean);
}

describe("the README's install on a fresh clone", () => {
	it("CI runs the install exactly as the README writes it, with no onnxruntime variable set", () => {
		const install = readmeCommands()[0];
		expect(install).toBe("npm install");
		const ci = read(".ci/run");
		expect(ci.split("\n").map((line) => line.trim())).toContain(install);
		expect(ci).not.toMatch(/ONNXRUNTIME_NODE_INSTALL/);
	});

	it("the project's own files make onnxruntime-node's postinstall skip its CUDA download", () => {
		// onnxruntime-node's own flag reader, run under npm with this repo's .npmrc and no variables.
		const env = { ...process.env };
		for (const key of Object.keys(env)) if (/^(ONNXRUNTIME_NODE_INSTALL|npm_config_onnxruntime)/i.test(key)) delete env[key];
		const probe = "console.log(String(require('./node_modules/onnxruntime-node/script/install-utils.js').parseInstallFlag()))";
		const result = spawnSync("npm", ["exec", "--offline", "-c", `node -e "${probe}"`], { cwd: ROOT, env, encoding: "utf8", timeout: 60_000 });
		expect(result.status, result.stderr).toBe(0);
		expect(result.stdout.trim().split("\n").pop()).toBe("false");
		const pkg = JSON.parse(read("package.json")) as { allowScripts?: Record<string, boolean> };
		expect(pkg.allowScripts?.["onnxruntime-node"]).toBe(false);
	});
});
