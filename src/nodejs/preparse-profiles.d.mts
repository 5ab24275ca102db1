import type { Plugin } from "esbuild";

/** The key of a profile file's text: the text itself (profile-files.ts looks it up so). */
export function profileTextKey(text: string): string;

/** The data of every .yaml file in `dir` and `dir/modules` (the YAML and schema steps of the profile loader), keyed by profileTextKey. */
export function preparseProfiles(dir: string): Promise<Record<string, unknown>>;

/** esbuild plugin: shipped-profile-data.ts becomes the pre-parsed profiles of `dir`. */
export function preparsedProfilesPlugin(dir: string): Plugin;
