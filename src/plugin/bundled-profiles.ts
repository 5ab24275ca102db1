// The shipped profiles (profile-texts.ts) parsed by the engine's profile loader.
import { labelsOfOtherModules, loadProfile, type Profile } from "../engine/host";
import { MODULE_TEXTS, PROFILE_TEXTS } from "./profile-texts";

export function loadBundledProfile(profile: string, modules: readonly string[]): Profile {
	const text = PROFILE_TEXTS[profile] ?? PROFILE_TEXTS.base;
	return loadProfile([
		{ file: `profiles/${profile}.yaml`, text },
		...modules.filter((m) => m in MODULE_TEXTS).map((m) => ({ file: `profiles/modules/${m}.yaml`, text: MODULE_TEXTS[m] })),
	]);
}

/**
 * Label → bundled module for the labels of modules that are off (sync's hint for `type:`). One
 * module file per step with `between()` after each: parsing all four YAML files took 40-60 ms.
 */
export async function bundledModuleLabels(profile: Profile, between: () => Promise<void>): Promise<Record<string, string>> {
	const out: Record<string, string> = {};
	for (const [name, text] of Object.entries(MODULE_TEXTS)) {
		// A label two modules share keeps the first module's name, as one call over all files does.
		for (const [label, module] of Object.entries(labelsOfOtherModules([{ file: `profiles/modules/${name}.yaml`, text }], profile))) out[label] ??= module;
		await between();
	}
	return out;
}
