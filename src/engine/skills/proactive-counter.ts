import type { StoreAdmin } from "../protocols";
import type { Scope } from "../types";

/** Remembers since the last reflect after which remember suggests running reflect. */
export const PROACTIVE_THRESHOLD = 10;

function counterKey(scope: Scope): string {
	return `proactive.remembers_since_reflect:${scope.orgId}:${scope.userId}`;
}

export async function readProactiveCounter(graph: StoreAdmin, scope: Scope): Promise<number> {
	const value = Number(await graph.getMeta(counterKey(scope)));
	return Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

/** Counts one remember; returns the new count. Runs inside remember's transaction. */
export async function bumpProactiveCounter(graph: StoreAdmin, scope: Scope): Promise<number> {
	const next = (await readProactiveCounter(graph, scope)) + 1;
	await graph.setMeta(counterKey(scope), String(next));
	return next;
}

/** Reflect calls this when it has run for the scope. */
export async function resetProactiveCounter(graph: StoreAdmin, scope: Scope): Promise<void> {
	await graph.setMeta(counterKey(scope), "0");
}

/** A GDPR forget removes the caller's counter with the rest of their memory. */
export async function forgetProactiveCounter(graph: StoreAdmin, scope: Scope): Promise<void> {
	await graph.deleteMeta(counterKey(scope));
}

export function proactiveHint(count: number): string | undefined {
	if (count < PROACTIVE_THRESHOLD) return undefined;
	return `${count} memories since the last reflect: run reflect (engrama reflect / engrama_reflect) to look for cross-entity patterns, then review the Insights it proposes.`;
}
