import { existsSync } from "node:fs";
import type { EngramaConfig } from "../config/engrama-config";
import { createNodeVaultSync } from "../nodejs/folder-vault-source";
import type { OpenedMemory } from "../nodejs/open-memory";

/**
 * For commands that write (remember, relate): when a vault is configured, replicate their writes
 * into notes (graph → vault) before the process exits; for those that erase (forget --hard, --ttl
 * --hard, --gdpr), remove the notes Engrama wrote for what they erased. Returns the function to await before
 * closing the memory, or null without a vault. Meant for `runWithMemory` (context.ts).
 */
export async function attachVaultWriter(opened: OpenedMemory, config: EngramaConfig): Promise<(() => Promise<void>) | null> {
	if (!config.vaultPath || !existsSync(config.vaultPath)) return null;
	const { sync } = await createNodeVaultSync({ memory: opened.memory, scope: opened.scope, vaultPath: config.vaultPath });
	const detach = sync.writer.attach();
	return async () => {
		await sync.writer.idle();
		detach();
	};
}
