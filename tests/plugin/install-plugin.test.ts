import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { makeTempDir } from "../helpers/temp-dir";
import { ROOT, buildBundles } from "./harness";

const SCRIPT = join(ROOT, "scripts", "install-plugin.mjs");
const dirs: { cleanup(): void }[] = [];
afterEach(() => dirs.splice(0).forEach((d) => d.cleanup()));

test("copies main.js, manifest.json and styles.css into the vault and enables the plugin once", async () => {
	const { mainJs } = await buildBundles();
	const vault = makeTempDir("engrama-install-");
	dirs.push(vault);
	mkdirSync(join(vault.path, ".obsidian"));
	writeFileSync(join(vault.path, ".obsidian", "community-plugins.json"), JSON.stringify(["dataview"]));
	const install = () => execFileSync(process.execPath, [SCRIPT, vault.path, "--no-build", "--from", dirname(mainJs)], { encoding: "utf8" });
	expect(install()).toContain("Installed Engrama");
	install();
	const target = join(vault.path, ".obsidian", "plugins", "engrama");
	expect(readFileSync(join(target, "main.js")).equals(readFileSync(mainJs))).toBe(true);
	expect(readFileSync(join(target, "manifest.json"), "utf8")).toBe(readFileSync(join(ROOT, "manifest.json"), "utf8"));
	expect(readFileSync(join(target, "styles.css"), "utf8")).toBe(readFileSync(join(ROOT, "styles.css"), "utf8"));
	expect(JSON.parse(readFileSync(join(vault.path, ".obsidian", "community-plugins.json"), "utf8"))).toEqual(["dataview", "engrama"]);
});

test("refuses a path that is not a folder and explains the usage", () => {
	const missing = spawnSync(process.execPath, [SCRIPT, "/nonexistent/vault", "--no-build"], { encoding: "utf8" });
	expect(missing.status).toBe(1);
	expect(missing.stderr).toContain("/nonexistent/vault is not a folder");
	const usage = spawnSync(process.execPath, [SCRIPT], { encoding: "utf8" });
	expect(usage.status).toBe(2);
	expect(usage.stderr).toContain("Usage: npm run install-plugin -- <path to your vault>");
});
