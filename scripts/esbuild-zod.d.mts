import type { Plugin } from "esbuild";

export const zodTrimmed: Plugin;
