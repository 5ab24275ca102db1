import { isArchived } from "../node-text";
import type { NodeRecord } from "../types";
import { indexedNames } from "./normalise";
import { DID_YOU_MEAN_LIMIT, type ResolverSettings } from "./settings";
import { similarity } from "./similarity";

/** A candidate node with its best name score against the target (key or alias). */
export interface ScoredCandidate {
	readonly node: NodeRecord;
	readonly score: number;
	/** One of the node's normalised names equals the normalised target. */
	readonly exact: boolean;
	readonly live: boolean;
}

/** Scores candidates against a normalised target; best first, exact before fuzzy on ties. */
export function scoreCandidates(normalisedTarget: string, nodes: readonly NodeRecord[]): ScoredCandidate[] {
	const seen = new Set<string>();
	const scored: ScoredCandidate[] = [];
	for (const node of nodes) {
		if (seen.has(node.id)) continue;
		seen.add(node.id);
		let score = 0;
		let exact = false;
		for (const name of indexedNames(node.key, node.props)) {
			if (name === normalisedTarget) exact = true;
			score = Math.max(score, similarity(normalisedTarget, name));
		}
		scored.push({ node, score: exact ? 1 : score, exact, live: !isArchived(node) });
	}
	return scored.sort((a, b) => b.score - a.score || Number(b.exact) - Number(a.exact));
}

/** What to do with one inline relation target. */
export type TargetDecision =
	| { readonly kind: "connect"; readonly match: "exact" | "fuzzy_match"; readonly candidate: ScoredCandidate }
	/** The name exists exactly, but under labels this relation cannot use, or under several it can. */
	| { readonly kind: "label_conflict"; readonly conflicts: readonly ScoredCandidate[] }
	/** The only exact match is archived: never linked silently. */
	| { readonly kind: "revive_candidate"; readonly candidate: ScoredCandidate }
	| { readonly kind: "ambiguous"; readonly didYouMean: readonly ScoredCandidate[] }
	/** Nothing close: create a stub. `labelHint` is the label of the best weak candidate, if any. */
	| { readonly kind: "stub"; readonly labelHint?: string };

/** Weak candidates below `suggest` still lend their label to a stub above this score. */
const LABEL_HINT_SCORE = 0.5;

/**
 * The policy for an inline target, identical on every backend: exact live match with an
 * acceptable label → connect; exact under another label → label_conflict; exact only on an
 * archived node → revive_candidate; fuzzy ≥ connect beating the runner-up by margin → connect;
 * candidates ≥ suggest → ambiguous (did_you_mean); otherwise stub.
 */
export function decideTarget(
	rawTarget: string,
	scored: readonly ScoredCandidate[],
	acceptLabel: (label: string) => boolean,
	settings: ResolverSettings,
): TargetDecision {
	const exactLive = scored.filter((c) => c.exact && c.live);
	const exactAccepted = exactLive.filter((c) => acceptLabel(c.node.label));
	if (exactAccepted.length === 1) return { kind: "connect", match: "exact", candidate: exactAccepted[0] };
	if (exactAccepted.length > 1) {
		// Two nodes may share a normalised name under one label ("Node-JS", "node js"): the verbatim key wins.
		const verbatim = exactAccepted.filter((c) => c.node.key === rawTarget);
		if (verbatim.length === 1) return { kind: "connect", match: "exact", candidate: verbatim[0] };
		return { kind: "label_conflict", conflicts: exactAccepted };
	}
	if (exactLive.length > 0) return { kind: "label_conflict", conflicts: exactLive };
	const exactArchived = scored.filter((c) => c.exact && !c.live);
	if (exactArchived.length > 0) {
		const preferred = exactArchived.find((c) => acceptLabel(c.node.label)) ?? exactArchived[0];
		return { kind: "revive_candidate", candidate: preferred };
	}
	const fuzzy = scored.filter((c) => c.live && acceptLabel(c.node.label));
	const [best, runnerUp] = fuzzy;
	if (best && best.score >= settings.connect && best.score - (runnerUp?.score ?? 0) >= settings.margin) {
		return { kind: "connect", match: "fuzzy_match", candidate: best };
	}
	const didYouMean = fuzzy.filter((c) => c.score >= settings.suggest).slice(0, DID_YOU_MEAN_LIMIT);
	if (didYouMean.length > 0) return { kind: "ambiguous", didYouMean };
	return best && best.score >= LABEL_HINT_SCORE ? { kind: "stub", labelHint: best.node.label } : { kind: "stub" };
}

export type DuplicateReason = "label_conflict" | "same_name" | "similar_name" | "similar_meaning" | "revive_candidate";

export interface DuplicateFinding {
	readonly node: NodeRecord;
	readonly score: number;
	readonly reason: DuplicateReason;
}

/** Findings kept per remember. */
export const DUPLICATE_LIMIT = 10;

/**
 * Lexical duplicates of the remembered node (not the node itself): the same name under another
 * label (label_conflict), the same normalised name under the same label (same_name), an archived
 * node of the same name (revive_candidate), or a live name scoring ≥ settings.duplicate.
 */
export function lexicalDuplicates(
	scored: readonly ScoredCandidate[],
	self: { readonly label: string; readonly id?: string },
	settings: ResolverSettings,
): DuplicateFinding[] {
	const out: DuplicateFinding[] = [];
	for (const c of scored) {
		if (c.node.id === self.id) continue;
		if (c.exact) {
			if (!c.live) out.push({ node: c.node, score: 1, reason: "revive_candidate" });
			else out.push({ node: c.node, score: 1, reason: c.node.label === self.label ? "same_name" : "label_conflict" });
		} else if (c.live && c.score >= settings.duplicate) {
			out.push({ node: c.node, score: c.score, reason: "similar_name" });
		}
	}
	return out.slice(0, DUPLICATE_LIMIT);
}

/** Merges findings for one node, keeping the strongest reason per node. */
export function mergeFindings(...lists: readonly (readonly DuplicateFinding[])[]): DuplicateFinding[] {
	const byId = new Map<string, DuplicateFinding>();
	for (const list of lists) {
		for (const f of list) {
			const prev = byId.get(f.node.id);
			if (!prev || f.score > prev.score) byId.set(f.node.id, f);
		}
	}
	return [...byId.values()].sort((a, b) => b.score - a.score).slice(0, DUPLICATE_LIMIT);
}
