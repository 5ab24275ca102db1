import type { EngramaConfig } from "../config/engrama-config";
import { type VaultSync } from "../engine";
import { createSkills, type Memory } from "../engine/host";
import type { Scope } from "../engine/types";
import { createNodeVaultSync } from "../nodejs/folder-vault-source";
import type { McpServices } from "./mcp-services";
import { createNodeVaultGuard } from "./node-vault-guard";

export interface NodeMcpServices {
	readonly services: McpServices;
	/** Stops the vault watcher and graph → vault replication (when a vault is configured). */
	stop(): Promise<void>;
}

/**
 * The services of a headless bridge (engrama serve, engrama mcp --stdio): skills with the
 * configured resolver settings, and, with a vault, its sync (graph → vault
 * replication on; folder watching with `watch`).
 */
export async function createNodeMcpServices(
	memory: Memory,
	identity: Scope,
	config: EngramaConfig,
	options: { version: string; watch?: boolean; log?: (line: string) => void },
): Promise<NodeMcpServices> {
	const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
	const skills = createSkills(memory, { resolver: config.resolver });
	let sync: VaultSync | undefined;
	let detach: (() => void) | undefined;
	let vault: McpServices["vault"];
	if (config.vaultPath) {
		const node = await createNodeVaultSync({
			memory,
			scope: identity,
			vaultPath: config.vaultPath,
			onError: (error) => log(`engrama mcp: vault sync: ${error instanceof Error ? error.message : String(error)}`),
		});
		sync = node.sync;
		detach = sync.writer.attach();
		if (options.watch) sync.start();
		vault = { path: node.source.root, source: node.source, containment: createNodeVaultGuard(node.source.root) };
	}
	return {
		services: { identity, version: options.version, skills, vault, sync, log },
		async stop() {
			await sync?.stop();
			detach?.();
		},
	};
}
