import type {
	ConceptClusterRow,
	CrossProjectSolutionRow,
	HubStubRow,
	ReflectDetectorId,
	ReflectEntity,
	ReflectRowMap,
	SharedTechnologyRow,
	StaleKnowledgeRow,
	TechniqueTransferRow,
	TrainingOpportunityRow,
	UnderConnectedRow,
	UnlinkedTagRow,
} from "../protocols";
import { TAG_ANCHOR_LABELS } from "./tag-anchors";
import { dayOf, listing, plural, relationText, roundConfidence, type Namer } from "./wording";

/** What reflect proposes from one row: the Insight's key, text, confidence and ABOUT targets. */
export interface InsightCandidate {
	readonly title: string;
	readonly body: string;
	readonly confidence: number;
	readonly about: readonly ReflectEntity[];
}

/** What the wording needs besides the row: how to name things and the thresholds in force. */
export interface DescribeContext extends Namer {
	/** stale_knowledge: the ISO instant the run asked for, and the day count and confidence behind it. */
	readonly staleBefore: string;
	readonly staleDays: number;
	readonly lowConfidence: number;
}

export type LabelCounts = Readonly<Record<string, number>>;

export interface DetectorPolicy<D extends ReflectDetectorId> {
	readonly id: D;
	/** Plain name for reports. */
	readonly name: string;
	/** Why the detector cannot find anything in a graph with these live label counts, or null to run it. */
	gate(counts: LabelCounts): string | null;
	describe(row: ReflectRowMap[D], ctx: DescribeContext): InsightCandidate;
}

/** Run order; also the order of the per-detector report. */
export const REFLECT_DETECTORS: readonly ReflectDetectorId[] = [
	"cross_project_solution",
	"shared_technology",
	"training_opportunity",
	"technique_transfer",
	"concept_clustering",
	"stale_knowledge",
	"under_connected",
	"hub_stubs",
	"unlinked_tag",
];

const has = (counts: LabelCounts, label: string, atLeast = 1) => (counts[label] ?? 0) >= atLeast;

function needs(counts: LabelCounts, requirements: readonly (readonly [label: string | readonly string[], atLeast: number])[]): string | null {
	const missing = requirements
		.filter(([labels, atLeast]) => !(typeof labels === "string" ? [labels] : labels).some((l) => has(counts, l, atLeast)))
		.map(([labels, atLeast]) => {
			const names = typeof labels === "string" ? labels : labels.join(" or ");
			return atLeast > 1 ? `at least ${atLeast} ${names} nodes` : `a ${names} node`;
		});
	return missing.length === 0 ? null : `needs ${listing(missing)}`;
}

/** How a user that does not simply use a Technology is marked in a list: "Bootcamp (Course, teaches it)". */
const NOT_JUST_USES: Readonly<Record<string, string>> = { TEACHES: "teaches it", COMPOSED_OF: "built from it" };

const crossProjectSolution: DetectorPolicy<"cross_project_solution"> = {
	id: "cross_project_solution",
	name: "Cross-project solution",
	gate: (counts) =>
		needs(counts, [
			["Problem", 2],
			["Concept", 1],
			["Decision", 1],
			["Project", 2],
		]),
	describe(row: CrossProjectSolutionRow, n) {
		const decisions = row.decisions.map((d) => n.name(d));
		const concepts = row.concepts.map((c) => n.name(c));
		return {
			title: `Cross-project solution: ${n.name(row.open)} may be solved like ${n.name(row.resolved)}`,
			body:
				`${n.name(row.open)} is still open in ${listing(row.openProjects.map((p) => n.name(p)))}. ` +
				`It shares the ${row.concepts.length === 1 ? "concept" : "concepts"} ${listing(concepts)} with ${n.name(row.resolved)}, ` +
				`which was resolved in ${listing(row.resolvedProjects.map((p) => n.name(p)))} by the ${decisions.length === 1 ? "decision" : "decisions"} ${listing(decisions)}. ` +
				`Consider applying ${decisions.length === 1 ? "that decision" : "one of those decisions"} to the open problem.`,
			confidence: 0.85,
			about: [row.open, row.resolved, ...row.decisions, ...row.concepts],
		};
	},
};

const sharedTechnology: DetectorPolicy<"shared_technology"> = {
	id: "shared_technology",
	name: "Shared technology",
	gate: (counts) => needs(counts, [["Technology", 1]]),
	describe(row: SharedTechnologyRow, n) {
		const tech = n.name(row.technology);
		const users = row.users.map(({ entity, via }) => {
			const how = NOT_JUST_USES[via] ?? (via === "USES" ? undefined : via);
			return how ? `${n.name(entity)} (${entity.label}, ${how})` : n.labelled(entity);
		});
		return {
			title: `Shared technology: ${tech}`,
			body:
				`${row.userCount} entities use ${tech}: ${listing(users, row.userCount)}. ` +
				`What one of them learns about ${tech} (fixes, patterns, material, people) can help the others.`,
			// Users of different kinds (a project and a course) are the less obvious link.
			confidence: row.labelCount > 1 ? 0.75 : 0.6,
			about: [row.technology, ...row.users.map((u) => u.entity)],
		};
	},
};

const trainingOpportunity: DetectorPolicy<"training_opportunity"> = {
	id: "training_opportunity",
	name: "Training opportunity",
	gate: (counts) =>
		needs(counts, [
			["Concept", 1],
			[["Problem", "Vulnerability"], 2],
			["Course", 1],
		]),
	describe(row: TrainingOpportunityRow, n) {
		const concept = n.name(row.concept);
		const kinds = new Set(row.issues.map((i) => i.label));
		const noun = kinds.size === 1 && kinds.has("Vulnerability") ? "open vulnerabilities" : kinds.has("Vulnerability") ? "open problems and vulnerabilities" : "open problems";
		return {
			title: `Training opportunity: ${concept}`,
			body:
				`${row.issueCount} ${noun} involve ${concept}: ${listing(row.issues.map((i) => n.name(i)), row.issueCount)}. ` +
				`No course or lesson covers or teaches ${concept} yet: a lesson on it could help solve these and prevent the next one.`,
			confidence: 0.65,
			about: [row.concept, ...row.issues],
		};
	},
};

const techniqueTransfer: DetectorPolicy<"technique_transfer"> = {
	id: "technique_transfer",
	name: "Technique transfer",
	gate: (counts) =>
		needs(counts, [
			[["Concept", "Technique"], 1],
			["Project", 2],
		]),
	describe(row: TechniqueTransferRow, n) {
		const technique = n.name(row.technique);
		const evidence = row.evidence.filter((e) => e.id !== row.from.id).map((e) => `${n.name(e)}, ${e.label === "Problem" ? "resolved" : e.label.toLowerCase()}`);
		const how = evidence.length > 0 ? ` (${evidence.join("; ")})` : "";
		return {
			title: `Technique transfer: ${technique} from ${n.name(row.from)} to ${n.name(row.to)}`,
			body:
				`${n.name(row.from)} applied ${technique}${how}. ${n.name(row.to)} is active and shares ` +
				`${listing(row.shared.map((s) => n.name(s)), row.sharedCount)} with it, but nothing in ${n.name(row.to)} applies ${technique} yet. ` +
				`It may be worth trying there.`,
			confidence: roundConfidence(Math.min(0.9, 0.5 + 0.1 * row.sharedCount)),
			about: [row.technique, row.from, row.to],
		};
	},
};

const conceptClustering: DetectorPolicy<"concept_clustering"> = {
	id: "concept_clustering",
	name: "Concept clustering",
	gate: (counts) => needs(counts, [["Concept", 1]]),
	describe(row: ConceptClusterRow, n) {
		const concept = n.name(row.concept);
		return {
			title: `Concept cluster: ${concept}`,
			body:
				`${row.memberCount} entities relate to ${concept}: ${listing(row.members.map((m) => n.labelled(m)), row.memberCount)}. ` +
				`Looking at them together may show a common thread worth a note of its own.`,
			confidence: roundConfidence(Math.min(0.9, 0.5 + 0.05 * row.memberCount)),
			about: [row.concept, ...row.members],
		};
	},
};

const staleKnowledge: DetectorPolicy<"stale_knowledge"> = {
	id: "stale_knowledge",
	name: "Stale knowledge",
	gate: (counts) => needs(counts, [[["Project", "Course"], 1]]),
	describe(row: StaleKnowledgeRow, n) {
		const reasons: string[] = [];
		if (row.confidence < n.lowConfidence) reasons.push(`has a low confidence (${row.confidence})`);
		if (row.lastUpdated < n.staleBefore) reasons.push(`was last updated on ${dayOf(row.lastUpdated)}, more than ${n.staleDays} days ago`);
		const links = row.active.map((a) => `${relationText(n, row.node, a)} (active ${a.entity.label.toLowerCase()})`);
		return {
			title: `Stale knowledge: ${n.labelled(row.node)}`,
			body:
				`${n.labelled(row.node)} ${listing(reasons.length > 0 ? reasons : ["may be out of date"])}, and is still linked to active work: ${listing(links)}. ` +
				`Check that it is still true, then update it or archive it.`,
			confidence: 0.5,
			about: [row.node, ...row.active.map((a) => a.entity)],
		};
	},
};

const underConnected: DetectorPolicy<"under_connected"> = {
	id: "under_connected",
	name: "Under-connected nodes",
	gate: (counts) =>
		Object.entries(counts).some(([label, count]) => label !== "Note" && count > 0) ? null : "needs a typed node (only untyped notes in the graph)",
	describe(row: UnderConnectedRow, n) {
		const only = row.neighbours.length === 0 ? "has no relations" : `has only one relation: ${relationText(n, row.node, row.neighbours[0])}`;
		return {
			title: `Under-connected: ${n.labelled(row.node)}`,
			body: `${n.labelled(row.node)} ${only}. Link it to the projects, problems or concepts it belongs with, or archive it if it no longer matters.`,
			confidence: 0.4,
			about: [row.node],
		};
	},
};

const hubStubs: DetectorPolicy<"hub_stubs"> = {
	id: "hub_stubs",
	name: "Hub stubs",
	gate: (counts) => (Object.values(counts).some((c) => c > 0) ? null : "needs nodes (the graph is empty)"),
	describe(row: HubStubRow, n) {
		const stub = n.name(row.stub);
		return {
			title: `Hub stub: ${n.labelled(row.stub)}`,
			body:
				`${n.labelled(row.stub)} has no note of its own yet, but ${plural(row.degree, "entity", "entities")} refer to it: ` +
				`${listing(row.referrers.map((r) => n.name(r)), row.degree)}. Writing a note for ${stub} would give them one place for what you know about it.`,
			confidence: 0.6,
			about: [row.stub, ...row.referrers],
		};
	},
};

/** The relation the Python engrama suggests from a node to each anchor label (Course: the course covers the node). */
const ANCHOR_RELATION: Readonly<Record<string, string>> = { Project: "BELONGS_TO", Client: "FOR", Course: "COVERS", Domain: "IN_DOMAIN" };

const unlinkedTag: DetectorPolicy<"unlinked_tag"> = {
	id: "unlinked_tag",
	name: "Unlinked tag",
	gate: (counts) => needs(counts, [[TAG_ANCHOR_LABELS, 1]]),
	describe(row: UnlinkedTagRow, n) {
		const relation = ANCHOR_RELATION[row.anchor.label];
		const how = relation ? `a [[${row.anchor.key}]] link or a ${relation} relation` : `a [[${row.anchor.key}]] link or a relation`;
		return {
			title: `Unlinked tag: ${n.labelled(row.anchor)}`,
			body:
				`${plural(row.nodeCount, "entity", "entities")} ${row.nodeCount === 1 ? "is" : "are"} tagged ${JSON.stringify(row.anchor.key)} but not linked to ${n.labelled(row.anchor)}: ` +
				`${listing(row.nodes.map((x) => n.labelled(x)), row.nodeCount)}. Linking ${row.nodeCount === 1 ? "it" : "them"} (${how}) lets the graph say what the tag already says.`,
			confidence: 0.7,
			about: [row.anchor, ...row.nodes],
		};
	},
};

export const POLICIES: { readonly [D in ReflectDetectorId]: DetectorPolicy<D> } = {
	cross_project_solution: crossProjectSolution,
	shared_technology: sharedTechnology,
	training_opportunity: trainingOpportunity,
	technique_transfer: techniqueTransfer,
	concept_clustering: conceptClustering,
	stale_knowledge: staleKnowledge,
	under_connected: underConnected,
	hub_stubs: hubStubs,
	unlinked_tag: unlinkedTag,
};
