// The MCP bridge runs on desktop only (Node in Electron, or the command line): fs is available.
import { join } from "node:path";
import { vaultContainment, type VaultContainment } from "../nodejs/vault-containment";

/**
 * `McpVault.containment` for a vault on disk (the CLI's write-insight uses it too): where a
 * vault path really leads, so a symlink pointing elsewhere, or round in a loop, is refused.
 */
export function createNodeVaultGuard(vaultRoot: string): (relativePath: string) => Promise<VaultContainment> {
	return async (relativePath: string) => vaultContainment(vaultRoot, join(vaultRoot, relativePath));
}
