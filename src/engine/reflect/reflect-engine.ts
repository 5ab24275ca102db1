import { ValidationError } from "../errors";
import type { Memory } from "../memory";
import type { ReflectDetectorId, ReflectEntity, ReflectParams, ReflectRowMap } from "../protocols";
import { isSystemInsight } from "../resolver/system-insight";
import { requireScope } from "../scope";
import { resetProactiveCounter } from "./proactive-counter";
import { daysBefore } from "../temporal/dates";
import type { NodeRecord, Scope } from "../types";
import type { WriteContext } from "../write/write-pipeline";
import { POLICIES, REFLECT_DETECTORS, type DescribeContext, type DetectorPolicy, type InsightCandidate, type LabelCounts } from "./detectors";
import { ABOUT, INSIGHT_LABEL, insightView, type InsightView } from "./insights";
import { createNamer } from "./wording";

export interface ReflectSettings {
	/** Insights each detector may hold open per run (created + refreshed + unchanged); default 25. */
	readonly budget: number;
	/** Entities named in one Insight's lists (and linked ABOUT); default 20. */
	readonly listCap: number;
	/** stale_knowledge: days without an update; default 90. */
	readonly staleDays: number;
	/** stale_knowledge: confidence below this is stale; default 0.3. */
	readonly lowConfidence: number;
}

export const DEFAULT_REFLECT_SETTINGS: ReflectSettings = { budget: 25, listCap: 20, staleDays: 90, lowConfidence: 0.3 };

export interface ReflectOptions extends Partial<ReflectSettings> {
	/** Only these detectors (default: all eight). */
	readonly detectors?: readonly ReflectDetectorId[];
}

/** What one detector did in one run. */
export interface DetectorReport {
	readonly detector: ReflectDetectorId;
	readonly name: string;
	readonly ran: boolean;
	/** Why it did not run (its labels are missing from the graph, or it was not asked for). */
	readonly skipped?: string;
	/** Patterns the backend returned (reviewed ones included). */
	readonly found: number;
	/** New pending Insights. */
	readonly created: number;
	/** Pending Insights found again whose text, confidence or entities changed. */
	readonly refreshed: number;
	/** Pending Insights found again, already up to date (nothing written). */
	readonly unchanged: number;
	/** Patterns a person already approved or dismissed (never resurfaced), or titles a hand-written Insight holds. */
	readonly reviewed: number;
	/** Pending Insights whose pattern is gone (archived; proposed again if the pattern comes back). */
	readonly retired: number;
	/** True when the budget stopped the detector: more patterns may exist. */
	readonly over_budget: boolean;
	readonly ms: number;
}

export interface ReflectReport {
	readonly ran_at: string;
	readonly budget: number;
	/** Live nodes per label: what decided which detectors run. */
	readonly label_counts: LabelCounts;
	readonly detectors: readonly DetectorReport[];
	readonly created: number;
	readonly refreshed: number;
	readonly unchanged: number;
	/** The Insights this run proposes (created, refreshed or unchanged), in detector order. */
	readonly insights: readonly InsightView[];
	readonly ms: number;
}

const REVIEWED = ["approved", "dismissed", "archived"];

/**
 * Reflect: profile the graph, run the detectors whose labels exist, and MERGE one pending Insight
 * per pattern, linked ABOUT its entities. Idempotent: a pattern found again refreshes its pending
 * Insight (or leaves it untouched); an Insight a person approved or dismissed is never written.
 * Resets the proactive remember counter.
 */
export async function reflect(memory: Memory, ctx: WriteContext, options: ReflectOptions = {}): Promise<ReflectReport> {
	const scope = requireScope(ctx.scope);
	const settings = reflectSettings(options);
	const wanted = options.detectors ?? REFLECT_DETECTORS;
	for (const id of wanted) {
		if (!REFLECT_DETECTORS.includes(id)) throw new ValidationError(`Unknown detector "${id}". Use one of: ${REFLECT_DETECTORS.join(", ")}.`);
	}
	if (!memory.profile.resolveLabel(INSIGHT_LABEL) || memory.profile.allowedTargets(ABOUT, INSIGHT_LABEL).length === 0) {
		throw new ValidationError(`Profile ${memory.profile.name} has no Insight label or no ABOUT relation from it; reflect needs both (profiles/base.yaml has them).`);
	}
	const reflectRows = memory.graph.reflectRows.bind(memory.graph);
	// One transaction for the run: one commit for every Insight written, and a stable view of the graph.
	return memory.write(() => memory.pipeline.transaction(async () => {
		const started = performance.now();
		const run = `reflect-${crypto.randomUUID()}`;
		const now = memory.clock.now();
		const staleBefore = daysBefore(now, settings.staleDays);
		const counts = await memory.graph.labelCounts(scope);
		const reviewed = await reviewedInsights(memory, scope);
		const namer = createNamer((label) => memory.profile.keyFieldOf(label) === "title");
		const describeCtx: DescribeContext = { ...namer, staleBefore, staleDays: settings.staleDays, lowConfidence: settings.lowConfidence };
		const reports: DetectorReport[] = [];
		const proposed: NodeRecord[] = [];

		for (const id of REFLECT_DETECTORS) {
			const policy = POLICIES[id] as DetectorPolicy<ReflectDetectorId>;
			const skipped = !wanted.includes(id) ? "not requested" : policy.gate(counts);
			if (skipped !== null) {
				reports.push(emptyReport(id, policy.name, skipped));
				continue;
			}
			const t0 = performance.now();
			// Reviewed patterns are filtered out after the query, so ask for enough rows to fill the budget anyway.
			const params: ReflectParams = {
				limit: settings.budget + (reviewed.perDetector.get(id) ?? 0),
				listCap: settings.listCap,
				staleBefore,
				lowConfidence: settings.lowConfidence,
				run,
			};
			const rows: readonly ReflectRowMap[ReflectDetectorId][] = await reflectRows<ReflectDetectorId>(scope, id, params);
			const outcome = { created: 0, refreshed: 0, unchanged: 0, reviewed: 0 };
			const seen = new Set<string>();
			let kept = 0;
			let processed = 0;
			for (const row of rows) {
				if (kept >= settings.budget) break;
				processed++;
				const candidate = policy.describe(row, describeCtx);
				if (seen.has(candidate.title)) continue;
				seen.add(candidate.title);
				if (reviewed.titles.has(candidate.title)) {
					outcome.reviewed++;
					continue;
				}
				const written = await writeCandidate(memory, ctx, scope, id, candidate);
				outcome[written.outcome]++;
				if (written.node) {
					kept++;
					proposed.push(written.node);
				}
			}
			const overBudget = rows.length >= params.limit || processed < rows.length;
			// Every pattern this detector can see was looked at: its pending Insights not found again are obsolete.
			const retired = overBudget ? 0 : await retireObsolete(memory, ctx, scope, id, seen, now.toISOString());
			reports.push({
				detector: id,
				name: policy.name,
				ran: true,
				found: rows.length,
				...outcome,
				retired,
				over_budget: overBudget,
				ms: round(performance.now() - t0),
			});
		}
		await resetProactiveCounter(memory, scope);
		const insights = await Promise.all(proposed.map((node) => insightView(memory, scope, node)));
		return {
			ran_at: now.toISOString(),
			budget: settings.budget,
			label_counts: counts,
			detectors: reports,
			created: sum(reports, "created"),
			refreshed: sum(reports, "refreshed"),
			unchanged: sum(reports, "unchanged"),
			insights,
			ms: round(performance.now() - started),
		};
	}));
}

export function reflectSettings(options: Partial<ReflectSettings> = {}): ReflectSettings {
	const s: ReflectSettings = {
		budget: options.budget ?? DEFAULT_REFLECT_SETTINGS.budget,
		listCap: options.listCap ?? DEFAULT_REFLECT_SETTINGS.listCap,
		staleDays: options.staleDays ?? DEFAULT_REFLECT_SETTINGS.staleDays,
		lowConfidence: options.lowConfidence ?? DEFAULT_REFLECT_SETTINGS.lowConfidence,
	};
	if (!Number.isInteger(s.budget) || s.budget < 1) throw new ValidationError(`The reflect budget must be a positive whole number, got ${s.budget}.`);
	if (!Number.isInteger(s.listCap) || s.listCap < 1) throw new ValidationError(`listCap must be a positive whole number, got ${s.listCap}.`);
	if (!(s.staleDays > 0)) throw new ValidationError(`staleDays must be positive, got ${s.staleDays}.`);
	return s;
}

/** Titles of Insights a person reviewed (or that were archived), and how many each detector has. */
async function reviewedInsights(memory: Memory, scope: Scope): Promise<{ titles: Set<string>; perDetector: Map<string, number> }> {
	const nodes = (await memory.graph.listNodes(scope, { label: INSIGHT_LABEL, status: REVIEWED })).filter((n) => !isRetired(n));
	const perDetector = new Map<string, number>();
	for (const node of nodes) {
		const detector = typeof node.props.source_query === "string" ? node.props.source_query : "";
		perDetector.set(detector, (perDetector.get(detector) ?? 0) + 1);
	}
	return { titles: new Set(nodes.map((n) => n.key)), perDetector };
}

type Outcome = "created" | "refreshed" | "unchanged" | "reviewed";

/** MERGE one candidate: create it, refresh it while pending, never touch it once reviewed. */
async function writeCandidate(
	memory: Memory,
	ctx: WriteContext,
	scope: Scope,
	detector: ReflectDetectorId,
	candidate: InsightCandidate,
): Promise<{ outcome: Outcome; node?: NodeRecord }> {
	const { graph, pipeline } = memory;
	const about = uniqueEntities(candidate.about);
	return pipeline.transaction(async () => {
		const found = await graph.getNode(scope, INSIGHT_LABEL, candidate.title);
		const revived = found !== null && isSystemInsight(found) && isRetired(found);
		if (found && !revived && (!isSystemInsight(found) || found.props.status !== "pending")) return { outcome: "reviewed" as const };
		// A retired Insight whose pattern came back is proposed again, as new.
		const existing = revived ? null : found;
		const props = { body: candidate.body, confidence: candidate.confidence, status: "pending", source_query: detector };
		let node = existing;
		let changed = false;
		if (!node || node.props.body !== candidate.body || node.props.confidence !== candidate.confidence) {
			const unset = revived ? [...RETIRED_PROPS] : [];
			node = (await pipeline.mergeEntity(ctx, { label: INSIGHT_LABEL, key: candidate.title, props, unset })).node;
			changed = true;
		}
		const linked = found ? await graph.edgesOf(scope, node.id, "out", [ABOUT]) : [];
		const wantedIds = new Set(about.map((e) => e.id));
		for (const edge of linked) {
			if (!wantedIds.has(edge.node.id)) {
				await pipeline.deleteRelation(ctx, node, ABOUT, edge.node);
				changed = true;
			}
		}
		const linkedIds = new Set(linked.map((e) => e.node.id));
		const missing = about.filter((entity) => !linkedIds.has(entity.id));
		if (missing.length > 0) {
			changed = true;
			const aboutAnything = memory.profile.allowedTargets(ABOUT, INSIGHT_LABEL).length === memory.profile.labels().length;
			if (pipeline.mergesEdgesInBulk && aboutAnything) {
				// The profile allows ABOUT from an Insight to every label: the batch needs no per-edge validation.
				const now = memory.clock.now().toISOString();
				const props = pipeline.provenance(ctx);
				const fromId = node.id;
				await pipeline.mergeStampedEdges(scope, missing.map((entity) => ({ fromId, type: ABOUT, toId: entity.id, props, now })));
			} else {
				for (const entity of missing) await pipeline.mergeRelation(ctx, node, ABOUT, entityRecord(entity));
			}
		}
		return { outcome: !existing ? ("created" as const) : changed ? ("refreshed" as const) : ("unchanged" as const), node };
	});
}

/** Marks a pending Insight reflect no longer finds; only reflect's own archiving carries `retired`. */
const RETIRED_PROPS = ["retired", "archived_at", "previous_status"] as const;

function isRetired(node: NodeRecord): boolean {
	return node.props.status === "archived" && typeof node.props.retired === "string";
}

/** Archives the detector's pending Insights that this run did not find again. */
async function retireObsolete(memory: Memory, ctx: WriteContext, scope: Scope, detector: ReflectDetectorId, found: ReadonlySet<string>, now: string): Promise<number> {
	const pending = await memory.graph.listNodes(scope, { label: INSIGHT_LABEL, status: ["pending"], where: { source_query: detector } });
	let retired = 0;
	for (const node of pending) {
		if (found.has(node.key) || !isSystemInsight(node)) continue;
		await memory.pipeline.mergeEntity(ctx, {
			label: INSIGHT_LABEL,
			key: node.key,
			props: { status: "archived", archived_at: now, previous_status: "pending", retired: "reflect no longer finds this pattern" },
		});
		retired++;
	}
	return retired;
}

function uniqueEntities(entities: readonly ReflectEntity[]): ReflectEntity[] {
	const seen = new Set<string>();
	return entities.filter((e) => (seen.has(e.id) ? false : (seen.add(e.id), true)));
}

/** mergeRelation needs only the id and label of an endpoint the backend already returned. */
function entityRecord(entity: ReflectEntity): NodeRecord {
	return { id: entity.id, label: entity.label, keyField: "name", key: entity.key, props: {}, createdAt: "", updatedAt: "" };
}

function emptyReport(detector: ReflectDetectorId, name: string, skipped: string): DetectorReport {
	return { detector, name, ran: false, skipped, found: 0, created: 0, refreshed: 0, unchanged: 0, reviewed: 0, retired: 0, over_budget: false, ms: 0 };
}

function sum(reports: readonly DetectorReport[], key: "created" | "refreshed" | "unchanged"): number {
	return reports.reduce((total, r) => total + r[key], 0);
}

function round(ms: number): number {
	return Math.round(ms * 10) / 10;
}
