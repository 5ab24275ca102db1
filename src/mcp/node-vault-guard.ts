// The MCP bridge runs on desktop only (Node in Electron, or the command line): fs is available.
import { join } from "node:path";
import { staysInsideVault } from "../nodejs/vault-containment";

/**
 * `McpVault.staysInside` for a vault on disk (the CLI's write-insight and sync-note use it too):
 * a symlink inside the vault that points elsewhere is refused. See `staysInsideVault`.
 */
export function createNodeVaultGuard(vaultRoot: string): (relativePath: string) => Promise<boolean> {
	return async (relativePath: string) => staysInsideVault(vaultRoot, join(vaultRoot, relativePath));
}
