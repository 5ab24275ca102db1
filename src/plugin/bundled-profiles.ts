// The shipped profiles travel inside main.js (esbuild text loader): a release has no profiles/ folder.
import base from "../../profiles/base.yaml";
import developer from "../../profiles/developer.yaml";
import ai from "../../profiles/modules/ai.yaml";
import hacking from "../../profiles/modules/hacking.yaml";
import photography from "../../profiles/modules/photography.yaml";
import teaching from "../../profiles/modules/teaching.yaml";
import { labelsOfOtherModules, loadProfile, type Profile } from "../engine/host";

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

/**
 * Label → bundled module for the labels of modules that are off (sync's hint for `type:`). One
 * module file per step with `between()` after each: parsing all four YAML files took 40-60 ms.
 */
export async function bundledModuleLabels(profile: Profile, between: () => Promise<void>): Promise<Record<string, string>> {
	const out: Record<string, string> = {};
	for (const [name, text] of Object.entries(MODULES)) {
		// A label two modules share keeps the first module's name, as one call over all files does.
		for (const [label, module] of Object.entries(labelsOfOtherModules([{ file: `profiles/modules/${name}.yaml`, text }], profile))) out[label] ??= module;
		await between();
	}
	return out;
}
