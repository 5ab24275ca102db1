import type { HistoryEntry } from "../protocols";
import { NOT_TRACKED } from "../system-props";
import type { PropValue, Props } from "../types";

function same(a: PropValue | undefined, b: PropValue | undefined): boolean {
	return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/** One entry per property that a write changed, added or removed. */
export function propChanges(nodeId: string, before: Props, after: Props, at: string, source: string | null): HistoryEntry[] {
	const names = new Set([...Object.keys(before), ...Object.keys(after)]);
	const out: HistoryEntry[] = [];
	for (const prop of [...names].sort()) {
		if (NOT_TRACKED.has(prop) || same(before[prop], after[prop])) continue;
		out.push({ nodeId, at, prop, before: before[prop] ?? null, after: after[prop] ?? null, source });
	}
	return out;
}

/**
 * A node's props as they were at `at`: the current props with every later change undone
 * (newest first). Needs the entries after `at`; earlier ones are ignored.
 */
export function propsAsOf(current: Props, history: readonly HistoryEntry[], at: string): Record<string, PropValue> {
	const props: Record<string, PropValue> = { ...current };
	const later = history.filter((e) => e.at > at).sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
	for (const entry of later) {
		if (entry.before === null) delete props[entry.prop];
		else props[entry.prop] = entry.before;
	}
	return props;
}
