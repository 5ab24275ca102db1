// The shipped profiles travel inside main.js (esbuild text loader): a release has no profiles/ folder.
import base from "../../profiles/base.yaml";
import developer from "../../profiles/developer.yaml";
import ai from "../../profiles/modules/ai.yaml";
import hacking from "../../profiles/modules/hacking.yaml";
import photography from "../../profiles/modules/photography.yaml";
import teaching from "../../profiles/modules/teaching.yaml";
import { labelsOfOtherModules, loadProfile, type Profile } from "../engine/profile";

const PROFILES: Readonly<Record<string, string>> = { base, developer };
const MODULES: Readonly<Record<string, string>> = { ai, hacking, photography, teaching };

export const BUNDLED_PROFILE_NAMES = Object.keys(PROFILES);
export const BUNDLED_MODULE_NAMES = Object.keys(MODULES);

export function loadBundledProfile(profile: string, modules: readonly string[]): Profile {
	const text = PROFILES[profile] ?? PROFILES.base;
	return loadProfile([
		{ file: `profiles/${profile}.yaml`, text },
		...modules.filter((m) => m in MODULES).map((m) => ({ file: `profiles/modules/${m}.yaml`, text: MODULES[m] })),
	]);
}

/** Label → bundled module for the labels of modules that are off (sync's hint for `type:`). */
export function bundledModuleLabels(profile: Profile): Record<string, string> {
	return labelsOfOtherModules(Object.entries(MODULES).map(([name, text]) => ({ file: `profiles/modules/${name}.yaml`, text })), profile);
}
