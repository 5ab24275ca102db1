// Node built-ins, loaded lazily: Obsidian mobile has none, and a top-level `require("fs")` in
// main.js would stop the plugin from loading there at all.
import type * as NodeFs from "node:fs";
import type * as NodePath from "node:path";
import type * as NodeOs from "node:os";

export interface NodeModules {
	readonly fs: typeof NodeFs;
	readonly path: typeof NodePath;
	readonly os: typeof NodeOs;
}

let cached: Promise<NodeModules | null> | undefined;

/** Node's fs/path/os, or null where they do not exist (Obsidian mobile, browsers). */
export function loadNodeModules(): Promise<NodeModules | null> {
	cached ??= (async () => {
		try {
			const [fs, path, os] = await Promise.all([import("node:fs"), import("node:path"), import("node:os")]);
			return typeof fs.openSync === "function" ? { fs, path, os } : null;
		} catch {
			// Expected on mobile: there is no fs to load, so callers fall back to snapshots.
			return null;
		}
	})();
	return cached;
}
