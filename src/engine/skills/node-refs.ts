import type { DuplicateFinding, ScoredCandidate } from "../resolver";
import type { NodeRecord } from "../types";

/** A node named in a skill answer: enough to show it and to refer to it again. */
export interface NodeRefView {
	readonly node_id: string;
	readonly label: string;
	readonly name: string;
	readonly status: string;
}

export interface CandidateView extends NodeRefView {
	readonly score: number;
}

export interface DuplicateView extends CandidateView {
	readonly reason: DuplicateFinding["reason"];
}

export function nodeRef(node: NodeRecord): NodeRefView {
	return {
		node_id: node.id,
		label: node.label,
		name: node.key,
		status: typeof node.props.status === "string" ? node.props.status : "active",
	};
}

export function roundScore(score: number): number {
	return Math.round(score * 1000) / 1000;
}

export function candidateView(c: Pick<ScoredCandidate, "node" | "score">): CandidateView {
	return { ...nodeRef(c.node), score: roundScore(c.score) };
}

export function duplicateView(f: DuplicateFinding): DuplicateView {
	return { ...nodeRef(f.node), score: roundScore(f.score), reason: f.reason };
}
