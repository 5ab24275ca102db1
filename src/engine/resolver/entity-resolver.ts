import { isArchived } from "../node-text";
import type { Profile } from "../profile";
import type { GraphReads, VectorReads } from "../protocols";
import type { PartialScope } from "../types";
import { normaliseName, queryFragments } from "./normalise";
import {
	decideTarget,
	lexicalDuplicates,
	scoreCandidates,
	type DuplicateFinding,
	type ScoredCandidate,
	type TargetDecision,
} from "./policy";
import { CANDIDATE_LIMIT, VECTOR_NEIGHBOURS, type ResolverSettings } from "./settings";
import { isSystemInsight } from "./system-insight";

export interface EntityResolverDeps {
	readonly graph: GraphReads;
	readonly vectors: VectorReads | null;
	readonly profile: Profile;
	readonly settings: ResolverSettings;
}

export interface TargetQuery {
	readonly name: string;
	/** An explicit label: only this label is acceptable. */
	readonly label?: string;
	/** Otherwise the labels the relation may point at (undefined: any label). */
	readonly allowedLabels?: readonly string[];
}

export interface TargetResolution {
	readonly decision: TargetDecision;
	readonly candidates: readonly ScoredCandidate[];
}

/**
 * The one entity resolver. Backends supply bounded, scope-filtered candidates
 * (GraphStore.nameCandidates, VectorStore.knn); every decision is made here, so a name resolves
 * the same way on SQLite and Neo4j.
 */
export class EntityResolver {
	constructor(private readonly deps: EntityResolverDeps) {}

	get settings(): ResolverSettings {
		return this.deps.settings;
	}

	/** Scored name candidates (≤ 200), system Insights excluded, best first. */
	async candidates(scope: PartialScope, name: string): Promise<ScoredCandidate[]> {
		const normalised = normaliseName(name);
		if (!normalised) return [];
		const nodes = await this.deps.graph.nameCandidates(scope, {
			normalised,
			fragments: queryFragments(normalised),
			limit: CANDIDATE_LIMIT,
		});
		return scoreCandidates(
			normalised,
			nodes.filter((n) => !isSystemInsight(n)),
		);
	}

	async resolveTarget(scope: PartialScope, query: TargetQuery): Promise<TargetResolution> {
		const candidates = await this.candidates(scope, query.name);
		const allowed = query.label ? new Set([query.label]) : query.allowedLabels ? new Set(query.allowedLabels) : undefined;
		const decision = decideTarget(query.name, candidates, (label) => !allowed || allowed.has(label), this.deps.settings);
		return { decision, candidates };
	}

	/** Lexical findings for a remembered node (itself excluded by id). */
	async lexicalDuplicates(scope: PartialScope, self: { label: string; key: string; id?: string }): Promise<DuplicateFinding[]> {
		return lexicalDuplicates(await this.candidates(scope, self.key), self, this.deps.settings);
	}

	/**
	 * Semantic findings: vector neighbours of the remembered node's own embedding with cosine
	 * ≥ settings.vector. Similarity comes from VectorStore.knn, whose contract is cosine in [-1, 1]
	 * on every backend, so one threshold holds everywhere.
	 */
	async semanticDuplicates(scope: PartialScope, vector: Float32Array, selfId: string): Promise<DuplicateFinding[]> {
		const hits = await this.similarNodes(scope, vector, selfId, this.deps.settings.vector);
		return hits.map((h) => ({ node: h.node, score: h.score, reason: "similar_meaning" as const }));
	}

	/** Live vector neighbours above `floor`, best first (self and system Insights excluded). */
	async similarNodes(
		scope: PartialScope,
		vector: Float32Array,
		selfId: string,
		floor: number,
	): Promise<{ node: ScoredCandidate["node"]; score: number }[]> {
		const { vectors, graph } = this.deps;
		if (!vectors || vector.length === 0) return [];
		const hits = await vectors.knn(scope, vector, VECTOR_NEIGHBOURS + 1);
		const out: { node: ScoredCandidate["node"]; score: number }[] = [];
		for (const hit of hits) {
			if (hit.nodeId === selfId || hit.similarity < floor) continue;
			const node = await graph.getNodeById(scope, hit.nodeId);
			if (!node || isArchived(node) || isSystemInsight(node)) continue;
			out.push({ node, score: Math.min(1, hit.similarity) });
		}
		return out;
	}
}
