// Where the desktop plugin keeps its database by default: outside the vault, so file-sync tools
// (iCloud, Syncthing, Dropbox, git) never copy a live SQLite file between devices.
import type { NodeModules } from "../platform/node-builtins";

export const DB_FILE = "engrama.db";
export const PRIVATE_DIR_MODE = 0o700;

/** `~/.engrama/vaults/<vaultId>/`: one private folder per vault, beside the command line's ~/.engrama. */
export function defaultVaultDataDir(node: NodeModules, vaultId: string): string {
	return node.path.join(node.os.homedir(), ".engrama", "vaults", vaultId);
}

/**
 * A folder (and missing parents) 0700, as src/nodejs/private-dir.ts does for the command line:
 * ~/.engrama, ~/.engrama/vaults and the vault's folder hold the database and are the owner's only.
 */
export function preparePrivateDir(node: NodeModules, dir: string): void {
	const { fs, path } = node;
	fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
	if (node.os.platform() === "win32") return;
	const home = path.join(node.os.homedir(), ".engrama");
	for (let at = path.resolve(dir); at.startsWith(home); at = path.dirname(at)) {
		const mode = fs.statSync(at).mode & 0o777;
		if (mode & 0o077) fs.chmodSync(at, mode & PRIVATE_DIR_MODE);
		if (at === home) break;
	}
}
