import type { ReflectEntity, ReflectParams, UnlinkedTagRow } from "../protocols";
import { normaliseName } from "../resolver/normalise";

/**
 * The unlinked_tag detector's logic, shared by every backend (definition:
 * src/engine/protocols/reflect-rows.ts). Tag comparison needs `normaliseName` (NFKD, accents),
 * which neither SQL nor Cypher can do the same way, so a backend only reads the anchors, the
 * taggers and which candidate pairs are linked; the matching and the rows are computed here.
 */

/** The labels other nodes are expected to link to by name (the Python engrama's anchors). */
export const TAG_ANCHOR_LABELS: readonly string[] = ["Project", "Client", "Course", "Domain"];

/** A node's tags: the `tags` property as a list of strings, or one string. */
export function tagsOf(value: unknown): string[] {
	if (typeof value === "string") return [value];
	if (Array.isArray(value)) return value.filter((t): t is string => typeof t === "string");
	return [];
}

/** (tagger, anchor) pairs where a tag of the tagger names the anchor, distinct, never a node with itself. */
export function tagAnchorPairs<R>(anchors: readonly { readonly ref: R; readonly key: string }[], taggers: readonly { readonly ref: R; readonly tags: unknown }[]): { node: R; anchor: R }[] {
	const byName = new Map<string, R[]>();
	for (const a of anchors) {
		const norm = normaliseName(a.key);
		if (!norm) continue;
		const list = byName.get(norm) ?? [];
		list.push(a.ref);
		byName.set(norm, list);
	}
	const out: { node: R; anchor: R }[] = [];
	for (const t of taggers) {
		const seen = new Set<R>();
		for (const tag of tagsOf(t.tags)) {
			for (const anchor of byName.get(normaliseName(tag)) ?? []) {
				if (anchor === t.ref || seen.has(anchor)) continue;
				seen.add(anchor);
				out.push({ node: t.ref, anchor });
			}
		}
	}
	return out;
}

/** Code-point order (SQLite's BINARY on UTF-8), so lists sorted outside SQL match both backends. */
export function codePointCompare(a: string, b: string): number {
	if (a === b) return 0;
	const x = [...a];
	const y = [...b];
	for (let i = 0; i < Math.min(x.length, y.length); i++) {
		const d = (x[i].codePointAt(0) ?? 0) - (y[i].codePointAt(0) ?? 0);
		if (d !== 0) return d;
	}
	return x.length - y.length;
}

/** Entity order: key, label, engrama_id by code point. */
export function compareReflectEntities(a: ReflectEntity, b: ReflectEntity): number {
	return codePointCompare(a.key, b.key) || codePointCompare(a.label, b.label) || codePointCompare(a.id, b.id);
}

/** The rows from the unlinked (tagger, anchor) pairs: grouped by anchor, ordered, cut to limit and listCap. */
export function unlinkedTagRows(pairs: readonly { readonly node: ReflectEntity; readonly anchor: ReflectEntity }[], params: Pick<ReflectParams, "limit" | "listCap">): UnlinkedTagRow[] {
	const byAnchor = new Map<string, { anchor: ReflectEntity; nodes: Map<string, ReflectEntity> }>();
	for (const { node, anchor } of pairs) {
		const entry = byAnchor.get(anchor.id) ?? { anchor, nodes: new Map<string, ReflectEntity>() };
		entry.nodes.set(node.id, node);
		byAnchor.set(anchor.id, entry);
	}
	return [...byAnchor.values()]
		.map(({ anchor, nodes }) => ({ anchor, all: [...nodes.values()].sort(compareReflectEntities) }))
		.sort((a, b) => b.all.length - a.all.length || compareReflectEntities(a.anchor, b.anchor))
		.slice(0, Math.max(0, params.limit))
		.map(({ anchor, all }) => ({ anchor, nodes: params.listCap < 0 ? all : all.slice(0, params.listCap), nodeCount: all.length }));
}
