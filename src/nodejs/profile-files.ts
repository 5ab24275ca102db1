import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ValidationError } from "../engine/errors";
import { labelsOfOtherModules, loadProfile, type Profile, type ProfileSource } from "../engine/host";
import { PREPARSED_PROFILES } from "./shipped-profile-data";

/** The shipped `profiles/` folder, found by walking up from this module (source or bundle). */
export function shippedProfilesDir(): string {
	let dir = dirname(fileURLToPath(import.meta.url));
	for (let i = 0; i < 6; i++) {
		if (existsSync(join(dir, "profiles", "base.yaml"))) return join(dir, "profiles");
		dir = dirname(dir);
	}
	throw new Error("Cannot find the shipped profiles/ folder next to the Engrama program.");
}

function locate(nameOrPath: string, kind: "profile" | "module", dir: string, extraDirs: readonly string[]): string {
	if (nameOrPath.endsWith(".yaml") || nameOrPath.endsWith(".yml") || isAbsolute(nameOrPath)) {
		const path = resolve(nameOrPath);
		if (!existsSync(path)) throw new ValidationError(`Profile file ${path} does not exist.`);
		return path;
	}
	const sub = kind === "module" ? "modules" : "";
	for (const base of [...extraDirs, dir]) {
		const candidate = join(base, sub, `${nameOrPath}.yaml`);
		if (existsSync(candidate)) return candidate;
	}
	throw new ValidationError(
		`No ${kind} named "${nameOrPath}". Shipped ${kind}s live in ${join(dir, sub)}; pass a path to a .yaml file for your own.`,
	);
}

/** Reads the profile and modules from disk and merges them (errors name the file and path). */
export function loadProfileFromDisk(profile: string, modules: readonly string[], extraDirs: readonly string[] = []): Profile {
	const dir = shippedProfilesDir();
	const files = [locate(profile, "profile", dir, extraDirs), ...modules.map((m) => locate(m, "module", dir, extraDirs))];
	const sources: ProfileSource[] = files.map((file) => ({ file, text: readFileSync(file, "utf8") }));
	return loadProfile(withPreparsed(sources));
}

/** Attaches the data parsed at build time to sources whose text is a shipped file's, byte for byte (the text is the key). */
export function withPreparsed(sources: readonly ProfileSource[], preparsed: Readonly<Record<string, unknown>> = PREPARSED_PROFILES): ProfileSource[] {
	return sources.map((source) => {
		const data = Object.hasOwn(preparsed, source.text) ? preparsed[source.text] : undefined;
		return data === undefined ? source : { ...source, data, checked: true };
	});
}

/** Label → shipped module for the labels of shipped modules `profile` does not include (sync's hint for `type:`). */
export function shippedModuleLabels(profile: Profile): Record<string, string> {
	try {
		const dir = join(shippedProfilesDir(), "modules");
		const files = readdirSync(dir).filter((f) => f.endsWith(".yaml"));
		return labelsOfOtherModules(files.map((f) => ({ file: f, text: readFileSync(join(dir, f), "utf8") })), profile);
	} catch {
		// No shipped profiles folder (an unusual install): the warning just names no module.
		return {};
	}
}
