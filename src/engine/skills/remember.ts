import { ValidationError } from "../errors";
import { REPLAYABLE, nodeView, type MemoryWriteEvent, type NodeView } from "../memory";
import type { LabelDef, Profile } from "../profile";
import { lexicalDuplicates, mergeFindings, normaliseName, type DuplicateFinding, type ScoredCandidate } from "../resolver";
import { requireScope } from "../scope";
import type { GraphReads } from "../protocols";
import type { NodeRecord, Scope } from "../types";
import { resolveLabelOrThrow, sanitiseKey, sanitiseProps } from "../write/sanitise";
import type { WriteContext } from "../write/write-pipeline";
import { parseInlineRelations, type ParsedRelation, type ParsedTarget } from "./inline-relations";
import { bumpProactiveCounter, proactiveHint } from "../reflect/proactive-counter";
import { chooseRelation, findTagAnchors, type TagAnchorLink } from "./relation-choice";
import type { SkillDeps } from "./skill-deps";
import { DuplicateEntityError } from "./skill-errors";
import { candidateView, duplicateView, nodeRef, roundScore, type CandidateView, type DuplicateView, type NodeRefView } from "./node-refs";

export interface RememberInput {
	readonly label: string;
	/** The name, or the title for title-keyed labels. */
	readonly name: string;
	readonly props?: Readonly<Record<string, unknown>>;
	/** `{REL: [name | {name, label}]}`, validated by parseInlineRelations. */
	readonly relations?: unknown;
	/** An engrama_id for a node that is created (a note's frontmatter id). */
	readonly id?: string;
	/** With ENGRAMA_REMEMBER_DEDUPE=block: write even when it looks like a duplicate. */
	readonly forceNew?: boolean;
}

export type RelationOutcome = "resolved" | "ambiguous" | "stubbed" | "rejected";
export type RelationResolution =
	| "exact"
	| "fuzzy_match"
	| "label_conflict"
	| "revive_candidate"
	| "ambiguous"
	| "stub"
	| "self_relation"
	| "not_allowed"
	| "unknown_type";

/** What one inline relation target did. Only resolved and stubbed wrote an edge. */
export interface RelationOutcomeView {
	readonly type: string;
	readonly target: string;
	readonly label?: string;
	readonly outcome: RelationOutcome;
	readonly resolution: RelationResolution;
	readonly node?: NodeRefView;
	readonly score?: number;
	/** The edge is new (false: it already existed). */
	readonly created?: boolean;
	readonly did_you_mean?: readonly CandidateView[];
	readonly message: string;
}

export interface SuggestedRelationView {
	readonly type: string;
	/** "out": this node → node; "in": node → this node. */
	readonly direction: "out" | "in";
	readonly node: NodeRefView;
	readonly reason: "tag" | "similar_name" | "similar_meaning" | "fulltext";
	readonly score?: number;
	readonly tag?: string;
}

export interface EnrichHintView extends NodeRefView {
	readonly degree: number;
	readonly message: string;
}

/** The remember answer: additive over the earlier `{created, node, warnings}` shape. */
export interface RememberResult {
	readonly created: boolean;
	readonly node: NodeView;
	readonly warnings: readonly string[];
	readonly embedded: boolean;
	/** Relations of the node after this write. */
	readonly degree: number;
	readonly relations: readonly RelationOutcomeView[];
	readonly possible_duplicate_of: readonly DuplicateView[];
	/** Set when the name matched an existing node of the label up to case, accents or separators. */
	readonly merged_into?: NodeRefView;
	readonly orphan_warning?: string;
	readonly suggested_relations?: readonly SuggestedRelationView[];
	readonly relations_from_tags?: readonly SuggestedRelationView[];
	readonly enrich_hint?: readonly EnrichHintView[];
	readonly proactive_hint?: string;
}

/** A write carrying one of these enriches a stub: it now says what the node is (summary, details or description). */
const ENRICHING_PROPS = ["summary", "details", "description"] as const;
/** Touching a stub with this many relations asks for enrichment. */
export const ENRICH_DEGREE = 3;
const SUGGESTION_LIMIT = 5;
const SEMANTIC_SUGGESTION_FLOOR = 0.5;

function enriches(props: Readonly<Record<string, unknown>>): boolean {
	return ENRICHING_PROPS.some((p) => typeof props[p] === "string" && props[p].trim().length > 0);
}

/** Stub label when the caller named none and the resolver had no hint. */
export function inferStubLabel(allowed: readonly string[]): string {
	if (allowed.length === 1) return allowed[0];
	if (allowed.includes("Concept")) return "Concept";
	return allowed.find((l) => l !== "Insight" && l !== "Note") ?? allowed[0];
}

function blocked(def: { label: string }, key: string, findings: readonly DuplicateFinding[]): DuplicateEntityError {
	const views = findings.map(duplicateView);
	const names = views.map((v) => `${v.label} "${v.name}" (${v.reason}, ${v.score})`).join("; ");
	return new DuplicateEntityError(
		`ENGRAMA_REMEMBER_DEDUPE=block: ${def.label} "${key}" looks like an existing node: ${names}. Remember that node instead, or pass force_new to create it anyway. Nothing was written.`,
		views,
	);
}

/**
 * remember: MERGE an entity, resolve it and every inline target through the one
 * resolver, and tell the caller the structural consequence (degree, duplicates, orphan
 * suggestions, stubs to enrich). One transaction: a refusal writes nothing.
 */
export async function remember(deps: SkillDeps, ctx: WriteContext, input: RememberInput): Promise<RememberResult> {
	const scope = requireScope(ctx.scope);
	const { memory, resolver } = deps;
	const settings = resolver.settings;
	// Everything that can be refused from the input alone is refused before the write queue.
	const def = resolveLabelOrThrow(memory.profile, input.label);
	const key = sanitiseKey(input.name, def.keyField);
	sanitiseProps(input.props);
	const relations = parseInlineRelations(memory.profile, input.relations);
	const early: string[] = [];
	if (input.forceNew && settings.dedupe !== "block") {
		early.push(`force_new only matters with ENGRAMA_REMEMBER_DEDUPE=block (now ${settings.dedupe}); it was ignored.`);
	}

	// Writes are announced to Memory.onWrite listeners (vault replication) once they committed.
	const events: MemoryWriteEvent[] = [];
	const result = await memory.write(
		() =>
			memory.pipeline.transaction(() => {
				// A replay after a rollback starts over.
				events.length = 0;
				return rememberInTransaction(deps, ctx, { scope, def, key, input, relations, early }, events);
			}),
		REPLAYABLE,
	);
	// A note that cannot take the write (not UTF-8, broken YAML) is said in the answer.
	const unwritten = await memory.announce(events);
	return unwritten.length > 0 ? { ...result, warnings: [...result.warnings, ...unwritten] } : result;
}

/** What remember checked before the write queue. */
interface RememberPlan {
	readonly scope: Scope;
	readonly def: LabelDef;
	readonly key: string;
	readonly input: RememberInput;
	readonly relations: readonly ParsedRelation[];
	readonly early: readonly string[];
}

/** The write itself, inside remember's transaction: identity, merge, inline targets, tags, orphan check, hints. */
async function rememberInTransaction(deps: SkillDeps, ctx: WriteContext, plan: RememberPlan, events: MemoryWriteEvent[]): Promise<RememberResult> {
	const { memory, resolver } = deps;
	const settings = resolver.settings;
	const { scope, def, key, input } = plan;
	const { graph, pipeline } = memory;
	const warnings = [...plan.early];
	const candidates = await resolver.candidates(scope, key);
	const { existing, mergedInto } = await findExisting(graph, plan, candidates, warnings);

	let findings = settings.dedupe === "off" ? [] : lexicalDuplicates(candidates, { label: def.label, id: existing?.id }, settings);
	if (!existing && settings.dedupe === "block" && !input.forceNew && findings.length > 0) throw blocked(def, key, findings);

	const { props, unset } = lifecycleProps(existing, def, input.props, warnings);
	// `existing` was read in this job: the pipeline need not look it up again.
	const entityInput = { label: def.label, key: existing?.key ?? key, props, id: input.id, unset, existing: existing ?? null };
	const write = await pipeline.mergeEntity(ctx, entityInput);
	events.push({ kind: "entity", ctx, input: entityInput, write });
	warnings.push(...write.warnings);
	const node = write.node;

	if (settings.dedupe !== "off" && write.vector) {
		const semantic = await resolver.semanticDuplicates(scope, write.vector, node.id);
		if (write.created && settings.dedupe === "block" && !input.forceNew && semantic.length > 0) {
			throw blocked(def, key, mergeFindings(findings, semantic));
		}
		findings = mergeFindings(findings, semantic);
	}

	const outcomes: RelationOutcomeView[] = [];
	const touched = new Map<string, NodeRecord>();
	for (const relation of plan.relations) {
		for (const target of relation.targets) {
			const result = await applyInlineTarget(deps, ctx, scope, node, relation, target, events);
			outcomes.push(result.view);
			if (result.touched) touched.set(result.touched.id, result.touched);
		}
	}

	const tags = await anchorByTags(deps, ctx, scope, node, events);
	const degree = (tags.edges ?? (await graph.edgesOf(scope, node.id, "both"))).length;
	const orphan = degree === 0 ? await orphanAdvice(deps, scope, def, node, candidates, write.vector, tags.suggestions) : undefined;
	const suggested = orphan?.suggested ?? tags.suggestions;
	touched.set(node.id, node);
	const hints = await enrichHints(graph, scope, touched.values(), node, degree);

	const count = await bumpProactiveCounter(memory, scope);
	const hint = proactiveHint(count);
	return {
		created: write.created,
		node: nodeView(node),
		warnings,
		embedded: write.embedded,
		degree,
		relations: outcomes,
		possible_duplicate_of: findings.map(duplicateView),
		...(mergedInto ? { merged_into: nodeRef(mergedInto) } : {}),
		...(orphan ? { orphan_warning: orphan.warning } : {}),
		...(suggested.length > 0 ? { suggested_relations: suggested } : {}),
		...(tags.linked.length > 0 ? { relations_from_tags: tags.linked } : {}),
		...(hints.length > 0 ? { enrich_hint: hints } : {}),
		...(hint ? { proactive_hint: hint } : {}),
	};
}

/** Identity: the exact key, else the same name up to case/accents/separators under this label. */
async function findExisting(
	graph: GraphReads,
	plan: RememberPlan,
	candidates: readonly ScoredCandidate[],
	warnings: string[],
): Promise<{ existing: NodeRecord | null; mergedInto?: NodeRecord }> {
	const { scope, def, key } = plan;
	const existing = await graph.getNode(scope, def.label, key);
	if (existing) return { existing };
	const same = candidates.filter((c) => c.exact && c.node.label === def.label);
	const pick = same.find((c) => c.live) ?? same[0];
	if (!pick) return { existing: null };
	warnings.push(`${def.label} "${key}" matches the existing "${pick.node.key}" up to case, accents or separators; that node was updated.`);
	return { existing: pick.node, mergedInto: pick.node };
}

/** Lifecycle: enriching a stub clears it; remembering an archived node brings it back. */
function lifecycleProps(
	existing: NodeRecord | null,
	def: LabelDef,
	given: Readonly<Record<string, unknown>> | undefined,
	warnings: string[],
): { props: Record<string, unknown>; unset: string[] } {
	const props: Record<string, unknown> = { ...(given ?? {}) };
	const unset: string[] = [];
	if (existing && props.status === undefined) {
		const status = existing.props.status;
		if (status === "stub" && enriches(props)) {
			props.status = def.status?.default ?? "active";
		} else if (status === "archived") {
			const previous = existing.props.previous_status;
			props.status = typeof previous === "string" && previous !== "archived" ? previous : (def.status?.default ?? "active");
			unset.push("archived_at", "previous_status");
			warnings.push(`${def.label} "${existing.key}" was archived; remembering it made it ${String(props.status)} again.`);
		}
	}
	return { props, unset };
}

/**
 * Tag anchoring: relations to the anchors the node's tags name, linked (tagLinking auto) or
 * suggested. Returns the node's edges when they are still current (read once for the degree too).
 */
async function anchorByTags(deps: SkillDeps, ctx: WriteContext, scope: Scope, node: NodeRecord, events: MemoryWriteEvent[]) {
	const { graph, profile, pipeline } = deps.memory;
	const mode = deps.resolver.settings.tagLinking;
	const suggestions: SuggestedRelationView[] = [];
	const linked: SuggestedRelationView[] = [];
	let edges = mode !== "off" ? await graph.edgesOf(scope, node.id, "both") : undefined;
	if (edges) {
		const known = new Set(edges.map((e) => `${e.type}|${e.direction}|${e.node.id}`));
		for (const link of await findTagAnchors(graph, profile, scope, node)) {
			if (known.has(`${link.type}|${link.direction}|${link.anchor.id}`)) continue;
			const view = tagView(link);
			if (mode === "auto") {
				const [from, to] = link.direction === "out" ? [node, link.anchor] : [link.anchor, node];
				events.push({ kind: "relation", ctx, write: await pipeline.mergeRelation(ctx, from, link.type, to) });
				linked.push(view);
				edges = undefined;
			} else {
				suggestions.push(view);
			}
		}
	}
	return { edges, suggestions, linked };
}

/** A node with no relations: the warning and suggestions, or a refusal when ENGRAMA_REQUIRE_RELATIONS is on. */
async function orphanAdvice(
	deps: SkillDeps,
	scope: Scope,
	def: LabelDef,
	node: NodeRecord,
	candidates: readonly ScoredCandidate[],
	vector: Float32Array | undefined,
	tagSuggestions: readonly SuggestedRelationView[],
): Promise<{ suggested: SuggestedRelationView[]; warning: string }> {
	const suggested = [...tagSuggestions, ...(await resolverSuggestions(deps, scope, node, candidates, vector))].slice(0, SUGGESTION_LIMIT);
	const warning = `${node.label} "${node.key}" has no relations: it is reachable only by search. Relate it (relate, or relations in remember)${suggested.length > 0 ? "; see suggested_relations" : ""}.`;
	if (deps.resolver.settings.requireRelations && !def.anchor) {
		throw new ValidationError(
			`ENGRAMA_REQUIRE_RELATIONS is on: ${node.label} "${node.key}" would have no relations. Pass relations (for example ${suggested[0] ? `{"${suggested[0].type}": ["${suggested[0].node.name}"]}` : '{"RELATED_TO": ["..."]}'}) or remember an anchor (${deps.memory.profile.anchorLabels().join(", ")}). Nothing was written.`,
			{ suggested_relations: suggested },
		);
	}
	return { suggested, warning };
}

/** Stubs among the touched nodes that enough relations depend on: ask for them to be completed. */
async function enrichHints(graph: GraphReads, scope: Scope, touched: Iterable<NodeRecord>, node: NodeRecord, degree: number): Promise<EnrichHintView[]> {
	const hints: EnrichHintView[] = [];
	for (const other of touched) {
		if (other.props.status !== "stub") continue;
		const d = other.id === node.id ? degree : (await graph.edgesOf(scope, other.id, "both")).length;
		if (d >= ENRICH_DEGREE) {
			hints.push({
				...nodeRef(other),
				degree: d,
				message: `${other.label} "${other.key}" is a stub that ${d} relations depend on: remember it with a summary so it stops being a stub.`,
			});
		}
	}
	return hints;
}

function tagView(link: TagAnchorLink): SuggestedRelationView {
	return { type: link.type, direction: link.direction, node: nodeRef(link.anchor), reason: "tag", tag: link.tag };
}

interface InlineResult {
	readonly view: RelationOutcomeView;
	readonly touched?: NodeRecord;
}

function allowedTargetsText(profile: Profile, type: string, from: string): string {
	const targets = profile.allowedTargets(type, from);
	return targets.length > 0 ? `From ${from}, ${type} may point to: ${targets.join(", ")}.` : `${type} cannot start from ${from}.`;
}

/** Resolves one inline target and writes what the policy allows (edge, stub + edge, or nothing). */
async function applyInlineTarget(
	deps: SkillDeps,
	ctx: WriteContext,
	scope: Scope,
	node: NodeRecord,
	relation: ParsedRelation,
	target: ParsedTarget,
	events: MemoryWriteEvent[],
): Promise<InlineResult> {
	const { profile, pipeline } = deps.memory;
	const base = { type: relation.type ?? relation.typeInput, target: target.name, ...(target.label ? { label: target.label } : {}) };
	const reject = (resolution: RelationResolution, message: string): InlineResult => ({
		view: { ...base, outcome: "rejected", resolution, message },
	});
	if (!relation.type) {
		return reject("unknown_type", `Unknown relation type "${relation.typeInput}". Allowed: ${profile.relationTypes().join(", ")}.`);
	}
	const type = relation.type;
	const allowed = profile.allowedTargets(type, node.label);
	if (allowed.length === 0) return reject("not_allowed", allowedTargetsText(profile, type, node.label));
	if (target.label && !allowed.includes(target.label)) {
		return reject("not_allowed", `${node.label} -[${type}]-> ${target.label} is not allowed. ${allowedTargetsText(profile, type, node.label)}`);
	}
	const selfMessage = `A ${node.label} cannot relate to itself; "${target.name}" names the node being remembered.`;
	if (normaliseName(target.name) === normaliseName(node.key) && (!target.label || target.label === node.label)) {
		return reject("self_relation", selfMessage);
	}

	const { decision } = await deps.resolver.resolveTarget(scope, { name: target.name, label: target.label, allowedLabels: allowed });
	switch (decision.kind) {
		case "connect": {
			const other = decision.candidate.node;
			if (other.id === node.id) return reject("self_relation", selfMessage);
			const edge = await pipeline.mergeRelation(ctx, node, type, other);
			events.push({ kind: "relation", ctx, write: edge });
			const how = decision.match === "exact" ? "matched" : `matched by a close name (score ${roundScore(decision.candidate.score)})`;
			return {
				view: {
					...base,
					outcome: "resolved",
					resolution: decision.match,
					node: nodeRef(other),
					score: roundScore(decision.candidate.score),
					created: edge.created,
					message: `"${target.name}" ${how} ${other.label} "${other.key}".`,
				},
				touched: other,
			};
		}
		case "label_conflict": {
			const labels = [...new Set(decision.conflicts.map((c) => c.node.label))];
			const usable = labels.filter((l) => allowed.includes(l));
			const message =
				usable.length > 1
					? `"${target.name}" exists as ${labels.join(" and ")}: name the label ({"name": "${target.name}", "label": "${usable[0]}"}).`
					: `"${target.name}" exists as ${labels.join(", ")}, which ${node.label} -[${type}]-> cannot point to (allowed: ${allowed.join(", ")}). Use that node with another relation type, or name a label to create a separate node.`;
			return {
				view: { ...base, outcome: "ambiguous", resolution: "label_conflict", did_you_mean: decision.conflicts.map(candidateView), message },
			};
		}
		case "revive_candidate": {
			const other = decision.candidate.node;
			return {
				view: {
					...base,
					outcome: "ambiguous",
					resolution: "revive_candidate",
					node: nodeRef(other),
					score: 1,
					message: `"${target.name}" matches the archived ${other.label} "${other.key}". Archived nodes are never linked silently: remember it to restore it, then relate again.`,
				},
			};
		}
		case "ambiguous":
			return {
				view: {
					...base,
					outcome: "ambiguous",
					resolution: "ambiguous",
					did_you_mean: decision.didYouMean.map(candidateView),
					message: `"${target.name}" is close to existing nodes but none clearly: pick one from did_you_mean and relate it, or name a label to create a new node.`,
				},
			};
		case "stub":
			return linkStub(deps, ctx, scope, node, type, target, decision.labelHint, allowed, base, events);
	}
}

/** No node is close to the target: link to a stub (created when there is none under that label and key). */
async function linkStub(
	deps: SkillDeps,
	ctx: WriteContext,
	scope: Scope,
	node: NodeRecord,
	type: string,
	target: ParsedTarget,
	labelHint: string | undefined,
	allowed: readonly string[],
	base: { type: string; target: string; label?: string },
	events: MemoryWriteEvent[],
): Promise<InlineResult> {
	const { profile, pipeline, graph } = deps.memory;
	const label = target.label ?? (labelHint && allowed.includes(labelHint) ? labelHint : inferStubLabel(allowed));
	const key = sanitiseKey(target.name, profile.keyFieldOf(label));
	let stub = await graph.getNode(scope, label, key);
	if (!stub) {
		const stubInput = { label, key, props: { status: "stub" } };
		const created = await pipeline.mergeEntity(ctx, stubInput);
		events.push({ kind: "entity", ctx, input: stubInput, write: created });
		stub = created.node;
	}
	const edge = await pipeline.mergeRelation(ctx, node, type, stub);
	events.push({ kind: "relation", ctx, write: edge });
	return {
		view: {
			...base,
			outcome: "stubbed",
			resolution: "stub",
			node: nodeRef(stub),
			created: edge.created,
			message: `No node close to "${target.name}" existed: created ${label} "${key}" as a stub. Remember it with a summary to complete it.`,
		},
		touched: stub,
	};
}

/** Suggestions for an orphan: close names, close meanings, fulltext hits on its name. */
async function resolverSuggestions(
	deps: SkillDeps,
	scope: Scope,
	node: NodeRecord,
	candidates: readonly ScoredCandidate[],
	vector: Float32Array | undefined,
): Promise<SuggestedRelationView[]> {
	const { memory, resolver } = deps;
	const pool = new Map<string, { other: NodeRecord; reason: SuggestedRelationView["reason"]; score: number }>();
	const add = (other: NodeRecord, reason: SuggestedRelationView["reason"], score: number) => {
		if (other.id === node.id || other.props.status === "archived" || pool.has(other.id)) return;
		pool.set(other.id, { other, reason, score });
	};
	for (const c of candidates) if (c.live && c.score >= resolver.settings.suggest) add(c.node, "similar_name", c.score);
	if (vector) for (const hit of await resolver.similarNodes(scope, vector, node.id, SEMANTIC_SUGGESTION_FLOOR)) add(hit.node, "similar_meaning", hit.score);
	const hits = await memory.graph.fulltext(scope, { text: node.key, limit: SUGGESTION_LIMIT + 1 });
	const top = hits.find((h) => h.node.id !== node.id)?.score ?? 0;
	for (const hit of hits) add(hit.node, "fulltext", top > 0 ? hit.score / top : 0);
	const out: SuggestedRelationView[] = [];
	for (const { other, reason, score } of pool.values()) {
		const choice = chooseRelation(memory.profile, node.label, other.label);
		if (!choice) continue;
		out.push({ ...choice, node: nodeRef(other), reason, score: roundScore(score) });
		if (out.length >= SUGGESTION_LIMIT) break;
	}
	return out;
}
