// `npm version <x.y.z>` runs this (package.json's "version" script) after it has set package.json's
// version: manifest.json takes the same version, and versions.json maps it to the manifest's
// minAppVersion (Obsidian reads versions.json to offer users of an older app the last release
// that still supports it). `npm run release-check` verifies the three agree.
import { readFileSync, writeFileSync } from "node:fs";

const target = process.env.npm_package_version;
if (!target || !/^\d+\.\d+\.\d+$/.test(target)) {
	console.error(`version-bump: npm_package_version is "${target ?? ""}"; run it through \`npm version <x.y.z>\`.`);
	process.exit(1);
}
const manifest = JSON.parse(readFileSync("manifest.json", "utf8"));
manifest.version = target;
writeFileSync("manifest.json", `${JSON.stringify(manifest, null, "\t")}\n`);
const versions = JSON.parse(readFileSync("versions.json", "utf8"));
versions[target] = manifest.minAppVersion;
writeFileSync("versions.json", `${JSON.stringify(versions, null, "\t")}\n`);
console.log(`version-bump: manifest.json ${target}, versions.json ${target} → ${manifest.minAppVersion}`);
