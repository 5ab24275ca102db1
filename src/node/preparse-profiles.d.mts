import type { Plugin } from "esbuild";

/** The key of a profile file's text: its SHA-256 (profile-files.ts computes the same). */
export function profileTextKey(text: string): string;

/** The data of every .yaml file in `dir` and `dir/modules` (the YAML step of the profile loader), keyed by profileTextKey. */
export function preparseProfiles(dir: string): Record<string, unknown>;

/** esbuild plugin: shipped-profile-data.ts becomes the pre-parsed profiles of `dir`. */
export function preparsedProfilesPlugin(dir: string): Plugin;
