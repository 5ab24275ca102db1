import { lstatSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, relative, sep } from "node:path";

/** The real path (symlinks resolved), or null when it does not exist or cannot be resolved. */
export function realOrNull(path: string): string | null {
	try {
		return realpathSync.native(path);
	} catch {
		return null;
	}
}

/** True when resolving `path` goes round in symbolic links (ELOOP): it names no file at all. */
export function isSymlinkLoop(path: string): boolean {
	try {
		realpathSync.native(path);
		return false;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === "ELOOP";
	}
}

function isSymlink(path: string): boolean {
	try {
		return lstatSync(path).isSymbolicLink();
	} catch {
		return false;
	}
}

/** True when the real path `real` is the real root `root` or lies below it. */
export function isWithin(root: string, real: string): boolean {
	const rel = relative(root, real);
	return rel === "" || (rel.split(sep)[0] !== ".." && !isAbsolute(rel));
}

/** Where a path of a vault on disk really leads, symbolic links followed. */
export type VaultContainment = "inside" | "outside" | "symlink-loop";

/** `staysInsideVault`, telling a symbolic link loop (it names no file at all) from a way out of the vault. */
export function vaultContainment(vaultRoot: string, absolutePath: string): VaultContainment {
	if (isSymlinkLoop(absolutePath)) return "symlink-loop";
	return staysInsideVault(vaultRoot, absolutePath) ? "inside" : "outside";
}

/**
 * The one symlink check for every write into a vault on disk (CLI, MCP, graph → vault): the real
 * path of `absolutePath` (or, for a file about to be created, of its nearest existing parent
 * folder) must be inside the real vault root. A dangling symlink leads nowhere: refused too.
 * `realRoot`: the vault root's real path when the caller already has it (a sync writes thousands).
 */
export function staysInsideVault(vaultRoot: string, absolutePath: string, realRoot: string | null = realOrNull(vaultRoot)): boolean {
	if (!realRoot) return false;
	let probe = absolutePath;
	let real = realOrNull(probe);
	while (real === null) {
		if (isSymlink(probe)) return false;
		const parent = dirname(probe);
		if (parent === probe) return false;
		probe = parent;
		real = realOrNull(probe);
	}
	return isWithin(realRoot, real);
}
