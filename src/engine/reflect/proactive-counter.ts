import type { GraphReads } from "../protocols";
import type { Scope } from "../types";
import type { StoreUpkeep } from "../write/store-upkeep";

/** Remembers since the last reflect after which remember suggests running reflect. */
export const PROACTIVE_THRESHOLD = 10;

/** The counter's store: read from the graph, written through the write door. */
export interface CounterStore {
	readonly graph: Pick<GraphReads, "getMeta">;
	readonly pipeline: Pick<StoreUpkeep, "setMeta" | "deleteMeta">;
}

function counterKey(scope: Scope): string {
	return `proactive.remembers_since_reflect:${scope.orgId}:${scope.userId}`;
}

export async function readProactiveCounter(memory: Pick<CounterStore, "graph">, scope: Scope): Promise<number> {
	const value = Number(await memory.graph.getMeta(counterKey(scope)));
	return Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

/** Counts one remember; returns the new count. Runs inside remember's transaction. */
export async function bumpProactiveCounter(memory: CounterStore, scope: Scope): Promise<number> {
	const next = (await readProactiveCounter(memory, scope)) + 1;
	await memory.pipeline.setMeta(counterKey(scope), String(next));
	return next;
}

/** Reflect calls this when it has run for the scope. */
export async function resetProactiveCounter(memory: CounterStore, scope: Scope): Promise<void> {
	await memory.pipeline.setMeta(counterKey(scope), "0");
}

/** A GDPR forget removes the caller's counter with the rest of their memory. */
export async function forgetProactiveCounter(memory: CounterStore, scope: Scope): Promise<void> {
	await memory.pipeline.deleteMeta(counterKey(scope));
}

/** Said by every surface alike; each adapter adds how to run reflect there. */
export function proactiveHint(count: number): string | undefined {
	if (count < PROACTIVE_THRESHOLD) return undefined;
	return `${count} memories since the last reflect: run reflect to look for cross-entity patterns, then review the Insights it proposes.`;
}
