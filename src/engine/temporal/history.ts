import type { HistoryEntry } from "../protocols";
import type { PropValue, Props } from "../types";

/** Bookkeeping props whose changes are noise in a history (provenance is kept on each entry). */
const NOT_TRACKED = new Set([
	"created_at",
	"updated_at",
	"source",
	"source_agent",
	"source_session",
	"trust_level",
	"edited_by_source",
	"edited_by_agent",
	"edited_in_session",
	"org_id",
	"user_id",
	"engrama_id",
	"content_hash",
	"decayed_at",
	// Derived from the text and valid_from, whose own changes are recorded.
	"mentioned_dates",
	// Sync bookkeeping about the note file, not facts about the entity.
	"obsidian_mtime",
	"obsidian_size",
	"note_props",
	"note_provenance",
]);

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
