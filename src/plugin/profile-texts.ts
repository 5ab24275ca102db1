// The shipped profiles travel inside main.js (esbuild text loader): a release has no profiles/ folder.
// Their text and names only: the settings tab lists them without loading the engine that parses them
// (bundled-profiles.ts, loaded when the engine opens).
import base from "../../profiles/base.yaml";
import developer from "../../profiles/developer.yaml";
import ai from "../../profiles/modules/ai.yaml";
import hacking from "../../profiles/modules/hacking.yaml";
import photography from "../../profiles/modules/photography.yaml";
import teaching from "../../profiles/modules/teaching.yaml";

export const PROFILE_TEXTS: Readonly<Record<string, string>> = { base, developer };
export const MODULE_TEXTS: Readonly<Record<string, string>> = { ai, hacking, photography, teaching };

export const BUNDLED_PROFILE_NAMES = Object.keys(PROFILE_TEXTS);
export const BUNDLED_MODULE_NAMES = Object.keys(MODULE_TEXTS);
