#!/usr/bin/env node
// Installs the plugin into a vault: builds main.js (unless --no-build), copies main.js,
// manifest.json and styles.css into <vault>/.obsidian/plugins/engrama/, and turns it on in
// community-plugins.json. Usage: npm run install-plugin -- <vault> [--no-build] [--config-dir .obsidian]
// (--from <folder> takes main.js from another build folder; the tests use it.)
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const FILES = ["main.js", "manifest.json", "styles.css"];

function fail(message) {
	console.error(`install-plugin: ${message}`);
	process.exit(1);
}

const args = process.argv.slice(2);
const flags = new Set(args.filter((a) => a.startsWith("--")));
const valueOf = (flag, fallback) => {
	const at = args.indexOf(flag);
	return at >= 0 ? args[at + 1] : fallback;
};
const configDir = valueOf("--config-dir", ".obsidian");
const from = resolve(valueOf("--from", ROOT));
const valueIndexes = new Set(["--config-dir", "--from"].map((f) => args.indexOf(f)).filter((i) => i >= 0).map((i) => i + 1));
const positional = args.filter((a, i) => !a.startsWith("--") && !valueIndexes.has(i));
if (positional.length !== 1 || flags.has("--help")) {
	console.error("Usage: npm run install-plugin -- <path to your vault> [--no-build] [--config-dir .obsidian]");
	process.exit(positional.length === 1 ? 0 : 2);
}
const vault = resolve(positional[0]);
if (!existsSync(vault) || !statSync(vault).isDirectory()) fail(`${vault} is not a folder. Pass the path of your Obsidian vault.`);
if (!existsSync(join(vault, configDir))) {
	console.warn(`install-plugin: ${join(vault, configDir)} does not exist yet; creating it (open the folder as a vault in Obsidian once if this is not a vault).`);
}

if (!flags.has("--no-build")) {
	console.log("Building main.js…");
	execFileSync(process.execPath, [join(ROOT, "esbuild.config.mjs"), "production"], { cwd: ROOT, stdio: "inherit" });
}
const sourceOf = (file) => join(file === "main.js" ? from : ROOT, file);
for (const file of FILES) if (!existsSync(sourceOf(file))) fail(`${sourceOf(file)} is missing. Run npm run build first.`);

const manifest = JSON.parse(readFileSync(join(ROOT, "manifest.json"), "utf8"));
const target = join(vault, configDir, "plugins", manifest.id);
mkdirSync(target, { recursive: true });
for (const file of FILES) copyFileSync(sourceOf(file), join(target, file));

// Turn it on, as the Community plugins screen would (Obsidian reads this list at startup).
const listFile = join(vault, configDir, "community-plugins.json");
let enabled = [];
if (existsSync(listFile)) {
	try {
		enabled = JSON.parse(readFileSync(listFile, "utf8"));
		if (!Array.isArray(enabled)) enabled = [];
	} catch {
		fail(`${listFile} is not valid JSON; fix or remove it, then run this again.`);
	}
}
if (!enabled.includes(manifest.id)) writeFileSync(listFile, `${JSON.stringify([...enabled, manifest.id], null, 2)}\n`);

const size = (statSync(join(target, "main.js")).size / 1024 / 1024).toFixed(1);
console.log(`Installed ${manifest.name} ${manifest.version} into ${target} (main.js ${size} MB).`);
console.log("Reload Obsidian (or turn the plugin off and on in Settings → Community plugins) to start it.");
