import type { Plugin } from "esbuild";

export function localModelPlugin(): Plugin;
