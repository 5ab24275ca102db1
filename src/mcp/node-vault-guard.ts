// The MCP bridge runs on desktop only (Node in Electron, or the command line): fs is available.
import { realpath } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, sep } from "node:path";

async function realOrNull(path: string): Promise<string | null> {
	try {
		return await realpath(path);
	} catch {
		return null;
	}
}

/**
 * `McpVault.staysInside` for a vault on disk: the real path of the file (or, for a file about to
 * be created, of its nearest existing parent folder) must be inside the real vault root, so a
 * symlink inside the vault that points elsewhere is refused.
 */
export function createNodeVaultGuard(vaultRoot: string): (relativePath: string) => Promise<boolean> {
	let rootReal: Promise<string | null> | undefined;
	return async (relativePath: string) => {
		rootReal ??= realOrNull(vaultRoot);
		const root = await rootReal;
		if (!root) return false;
		let probe = join(vaultRoot, relativePath);
		let real = await realOrNull(probe);
		while (real === null) {
			const parent = dirname(probe);
			if (parent === probe) return false;
			probe = parent;
			real = await realOrNull(probe);
		}
		const rel = relative(root, real);
		return rel === "" || (rel.split(sep)[0] !== ".." && !isAbsolute(rel));
	};
}
