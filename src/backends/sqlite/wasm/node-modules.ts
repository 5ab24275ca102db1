// Node built-ins, loaded lazily: Obsidian mobile has none, and a top-level `require("fs")` in
// main.js would stop the plugin from loading there at all.
import type * as NodeFs from "fs";
import type * as NodePath from "path";
import type * as NodeOs from "os";

export interface NodeModules {
	readonly fs: typeof NodeFs;
	readonly path: typeof NodePath;
	readonly os: typeof NodeOs;
}

let cached: Promise<NodeModules | null> | undefined;

/** Node's fs/path/os, or null where they do not exist (Obsidian mobile, browsers). */
export function loadNodeModules(): Promise<NodeModules | null> {
	cached ??= load();
	return cached;
}

async function load(): Promise<NodeModules | null> {
	// Bare names, not "node:fs": Obsidian's build marks the bare built-in names external.
	try {
		// CommonJS (Obsidian's main.js in Electron): require is the way to reach Node.
		if (typeof require === "function") {
			/* eslint-disable @typescript-eslint/no-require-imports -- import() cannot reach Node inside Obsidian's renderer */
			return complete({
				fs: require("fs") as typeof NodeFs,
				path: require("path") as typeof NodePath,
				os: require("os") as typeof NodeOs,
			});
			/* eslint-enable @typescript-eslint/no-require-imports -- only the three lines above */
		}
	} catch {
		// No usable require (ESM, or mobile where it only knows "obsidian"): try import() next.
	}
	try {
		const [fs, path, os] = await Promise.all([import("fs"), import("path"), import("os")]);
		return complete({ fs, path, os });
	} catch {
		// Expected on mobile: there is no fs, so callers fall back to snapshot storage.
		return null;
	}
}

function complete(modules: NodeModules): NodeModules | null {
	return typeof modules.fs?.openSync === "function" ? modules : null;
}
