import type { MemoryMeta } from "./memory-meta";
import { newEngramaId } from "./clock";
import { standaloneScope } from "./scope";
import type { Scope } from "./types";

/** Meta key of the standalone identity (its presence means the memory was opened before). */
export const STANDALONE_ID_META = "standalone_user_id";
/** Meta key of the standalone org when it is not "standalone" (an owner adopted from a Python engrama file). */
export const STANDALONE_ORG_META = "standalone_org_id";
const META_KEY = STANDALONE_ID_META;

/**
 * The scope a single-person install writes under: configured ids when both are given,
 * otherwise a standalone identity derived once (from ENGRAMA_LOCAL_SUB, or a random id kept in
 * the memory itself so every adapter opening the same file is the same person).
 */
export async function resolveIdentity(
	memory: MemoryMeta,
	configured: { orgId?: string; userId?: string; localSub?: string },
): Promise<Scope> {
	if (configured.orgId && configured.userId) return { orgId: configured.orgId, userId: configured.userId };
	if (configured.localSub) return standaloneScope(`local-${configured.localSub}`);
	const stored = await memory.graph.getMeta(META_KEY);
	if (stored) {
		const org = await memory.graph.getMeta(STANDALONE_ORG_META);
		return org ? { orgId: org, userId: stored } : standaloneScope(stored);
	}
	const userId = `local-${newEngramaId()}`;
	await memory.writeMeta(META_KEY, userId);
	return standaloneScope(userId);
}
