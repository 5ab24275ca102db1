import { lstatSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, relative, sep } from "node:path";

function realOrNull(path: string): string | null {
	try {
		return realpathSync.native(path);
	} catch {
		return null;
	}
}

function isSymlink(path: string): boolean {
	try {
		return lstatSync(path).isSymbolicLink();
	} catch {
		return false;
	}
}

/**
 * The one symlink check for every write into a vault on disk (CLI, MCP, graph → vault): the real
 * path of `absolutePath` (or, for a file about to be created, of its nearest existing parent
 * folder) must be inside the real vault root. A dangling symlink leads nowhere: refused too.
 */
export function staysInsideVault(vaultRoot: string, absolutePath: string): boolean {
	const root = realOrNull(vaultRoot);
	if (!root) return false;
	let probe = absolutePath;
	let real = realOrNull(probe);
	while (real === null) {
		if (isSymlink(probe)) return false;
		const parent = dirname(probe);
		if (parent === probe) return false;
		probe = parent;
		real = realOrNull(probe);
	}
	const rel = relative(root, real);
	return rel === "" || (rel.split(sep)[0] !== ".." && !isAbsolute(rel));
}
