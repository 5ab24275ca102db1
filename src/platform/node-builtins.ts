// Node built-ins, loaded lazily: Obsidian mobile has none, and a top-level `require("fs")` in
// main.js would stop the plugin from loading there at all.
// Types only (erased from main.js): typeof import() keeps the mobile lint rule quiet.
type NodeFs = typeof import("fs");
type NodePath = typeof import("path");
type NodeOs = typeof import("os");

export interface NodeModules {
	readonly fs: NodeFs;
	readonly path: NodePath;
	readonly os: NodeOs;
}

let cached: Promise<NodeModules | null> | undefined;

/** Node's fs/path/os, or null where they do not exist (Obsidian mobile, browsers). */
export function loadNodeModules(): Promise<NodeModules | null> {
	cached ??= load();
	return cached;
}

function load(): Promise<NodeModules | null> {
	// Never import(): in Obsidian's renderer it goes through Chromium's module loader, which
	// rejects bare specifiers like "fs". Bare names, not "node:fs": the build marks those external.
	const fs = builtin<NodeFs>("fs");
	const path = builtin<NodePath>("path");
	const os = builtin<NodeOs>("os");
	// Expected on mobile: there is no fs, so callers fall back to snapshot storage.
	return Promise.resolve(fs && path && os ? complete({ fs, path, os }) : null);
}

/**
 * A Node built-in, synchronously, or null. `require` where the host gives one (Obsidian desktop,
 * the CLI bundle's banner, vitest); else `process.getBuiltinModule` (plain ESM on Node >= 20.16);
 * neither exists on Obsidian mobile, whose `require` knows only "obsidian" and throws.
 */
function builtin<T>(name: string): T | null {
	try {
		/* eslint-disable-next-line @typescript-eslint/no-require-imports -- import() cannot reach Node inside Obsidian's renderer */
		if (typeof require === "function") return require(name) as T;
	} catch {
		// Mobile: fall through to null.
	}
	try {
		const host = globalThis.process as { getBuiltinModule?: (id: string) => unknown } | undefined;
		return (host?.getBuiltinModule?.(name) as T | undefined) ?? null;
	} catch {
		return null;
	}
}

function complete(modules: NodeModules): NodeModules | null {
	return typeof modules.fs?.openSync === "function" ? modules : null;
}
