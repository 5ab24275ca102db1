import { nodeTags } from "../node-text";
import { isArchived } from "../node-text";
import type { Profile } from "../profile";
import type { NameHistoryStore, Reads } from "../protocols";
import { indexedNames, normaliseName } from "../resolver";
import type { NodeRecord, Scope } from "../types";

/** Types never suggested on their own: the system relations and the generic fallback. */
const GENERIC = new Set(["RELATED_TO", "LINKS_TO", "ABOUT"]);

export interface RelationChoice {
	readonly type: string;
	/** "out": node → other; "in": other → node. */
	readonly direction: "out" | "in";
}

/**
 * The relation a suggestion proposes between two labels: SIMILAR_TO for two nodes of one label
 * when allowed, else the first specific type the profile allows (outgoing, then incoming), else
 * RELATED_TO. Undefined when the profile allows nothing.
 */
export function chooseRelation(profile: Profile, from: string, to: string): RelationChoice | undefined {
	if (from === to && profile.isRelationAllowed("SIMILAR_TO", from, to)) return { type: "SIMILAR_TO", direction: "out" };
	const specific = profile.relationTypes().filter((t) => !GENERIC.has(t));
	const out = specific.find((t) => profile.isRelationAllowed(t, from, to));
	if (out) return { type: out, direction: "out" };
	const inward = specific.find((t) => profile.isRelationAllowed(t, to, from));
	if (inward) return { type: inward, direction: "in" };
	if (profile.isRelationAllowed("RELATED_TO", from, to)) return { type: "RELATED_TO", direction: "out" };
	return undefined;
}

/**
 * Tag anchoring (a tag that names a Project, Client, Course or Domain links the node to it, as the
 * Python engrama does): the relation such a tag stands for. Course is reversed
 * (the course COVERS the node). Other anchor labels, or a type the profile refuses for this pair,
 * fall back to RELATED_TO when the profile allows it.
 */
export const TAG_ANCHOR_RELATIONS: Readonly<Record<string, { readonly type: string; readonly reverse: boolean }>> = {
	Project: { type: "BELONGS_TO", reverse: false },
	Client: { type: "FOR", reverse: false },
	Course: { type: "COVERS", reverse: true },
	Domain: { type: "IN_DOMAIN", reverse: false },
};

export interface TagAnchorLink {
	readonly tag: string;
	readonly anchor: NodeRecord;
	readonly type: string;
	readonly direction: "out" | "in";
	/** True when the label's default type did not fit and RELATED_TO stands in. */
	readonly fallback: boolean;
}

/** Tags examined per write. */
const MAX_TAGS = 20;

/** Tags of `node` that name a live anchor node of the scope exactly (normalised, or an alias). */
export async function findTagAnchors(graph: Reads<NameHistoryStore>, profile: Profile, scope: Scope, node: NodeRecord): Promise<TagAnchorLink[]> {
	const anchors = new Set(profile.anchorLabels());
	if (anchors.size === 0) return [];
	const links: TagAnchorLink[] = [];
	const seen = new Set<string>([node.id]);
	for (const tag of nodeTags(node).slice(0, MAX_TAGS)) {
		// Nested tags ("project/billing-portal") also try their last segment.
		const variants = new Set([tag, tag.split("/").pop() ?? tag].map(normaliseName).filter(Boolean));
		for (const normalised of variants) {
			const found = await graph.nameCandidates(scope, { normalised, fragments: [], limit: 20 });
			for (const anchor of found) {
				if (seen.has(anchor.id) || !anchors.has(anchor.label) || isArchived(anchor)) continue;
				if (!indexedNames(anchor.key, anchor.props).includes(normalised)) continue;
				const link = anchorRelation(profile, node, anchor);
				if (!link) continue;
				seen.add(anchor.id);
				links.push({ tag, anchor, ...link });
			}
		}
	}
	return links;
}

function anchorRelation(profile: Profile, node: NodeRecord, anchor: NodeRecord): Omit<TagAnchorLink, "tag" | "anchor"> | undefined {
	const spec = TAG_ANCHOR_RELATIONS[anchor.label];
	if (spec) {
		const [from, to] = spec.reverse ? [anchor.label, node.label] : [node.label, anchor.label];
		if (profile.isRelationAllowed(spec.type, from, to)) {
			return { type: spec.type, direction: spec.reverse ? "in" : "out", fallback: false };
		}
	}
	if (profile.isRelationAllowed("RELATED_TO", node.label, anchor.label)) return { type: "RELATED_TO", direction: "out", fallback: true };
	return undefined;
}
