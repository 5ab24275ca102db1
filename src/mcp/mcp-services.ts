import type { Skills, VaultSync } from "../engine";
import type { Memory, VaultSource } from "../engine/host";
import type { Scope } from "../engine/types";
import type { VaultContainment } from "../nodejs/vault-containment";

/** The vault the sync, ingest and insight tools may touch, and nothing outside it. */
export interface McpVault {
	/** Absolute path of the vault folder (engrama_status reports it). */
	readonly path: string;
	readonly source: VaultSource;
	/**
	 * Follows symlinks: where a vault-relative path (existing, or about to be created) really
	 * leads; anything but "inside" is refused. The Node implementation is `createNodeVaultGuard`.
	 */
	readonly containment?: (relativePath: string) => Promise<VaultContainment>;
}

/** What the tools need besides the Memory; the CLI and the plugin each build one. */
export interface McpServices {
	/** The scope of calls without scope headers (the standalone identity). */
	readonly identity: Scope;
	/** Engrama's version, reported by engrama_status. */
	readonly version: string;
	/** The skills over this memory (resolver settings included); built with defaults when absent. */
	readonly skills?: Skills;
	readonly vault?: McpVault;
	/** The vault sync of the standalone identity (sync tools); the plugin passes its running one. */
	readonly sync?: VaultSync;
	/** Where unexpected failures are reported (never stdout: stdio carries the protocol). */
	readonly log?: (line: string) => void;
}

export interface McpServerInput {
	readonly memory: Memory;
	readonly services: McpServices;
}
