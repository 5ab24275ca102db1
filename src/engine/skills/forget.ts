import { ValidationError } from "../errors";
import type { NotesErased } from "../erase";
import { nodeView, type NodeView } from "../memory";
import { NOTE_PROPS } from "../system-props";
import { requireScope } from "../scope";
import { daysBefore, decayReport, type DecayOptions, type DecayReport } from "../temporal";
import type { NodeRecord } from "../types";
import { resolveLabelOrThrow } from "../write/sanitise";
import type { WriteContext } from "../write/write-pipeline";
import { findNode, type NodeName } from "./find-node";
import { forgetProactiveCounter } from "../reflect/proactive-counter";
import type { SkillDeps } from "./skill-deps";
import { nodeRef, type NodeRefView } from "./node-refs";

export interface ForgetResult {
	readonly forgotten: NodeView;
	readonly mode: "archived" | "hard";
	/** Hard: the note Engrama wrote for the node, removed when unchanged, else kept and named. */
	readonly notes?: NotesErased;
}

/** Archives one node (soft: out of every read, restorable) or erases it (`Memory.erase`). */
export async function forgetNode(deps: SkillDeps, ctx: WriteContext, ref: NodeName, options: { hard?: boolean } = {}): Promise<ForgetResult> {
	const scope = requireScope(ctx.scope);
	const node = await findNode(deps, scope, ref);
	if (!options.hard) return { forgotten: nodeView(await deps.memory.forget(ctx, { label: node.label, key: node.key })), mode: "archived" };
	const { notes } = await deps.memory.hardForget(ctx, node);
	return { forgotten: nodeView(node), mode: "hard", notes };
}

export interface TtlOptions {
	/** Nodes not updated for more than this many days. */
	readonly days: number;
	readonly label?: string;
	/** Remove instead of archiving. */
	readonly hard?: boolean;
	/** false: report only (dry run). */
	readonly apply: boolean;
}

export interface TtlReport {
	readonly mode: "dry-run" | "apply";
	readonly action: "archive" | "hard";
	readonly cutoff: string;
	readonly count: number;
	/** The first 50 nodes concerned. */
	readonly nodes: readonly NodeRefView[];
	/** Applied and hard: what became of their notes (`Memory.erase`). */
	readonly notes?: NotesErased;
}

const PAGE = 500;
const SAMPLE = 50;

/** TTL forget: nodes untouched for more than `days`, archived or erased in one transaction. */
export async function forgetByTtl(deps: SkillDeps, ctx: WriteContext, options: TtlOptions): Promise<TtlReport> {
	const scope = requireScope(ctx.scope);
	if (!Number.isFinite(options.days) || options.days < 1) throw new ValidationError(`--ttl must be a whole number of days ≥ 1, got ${options.days}.`);
	const { memory } = deps;
	const label = options.label ? resolveLabelOrThrow(memory.profile, options.label).label : undefined;
	const cutoff = daysBefore(memory.clock.now(), options.days);
	const expiredNow = async () => {
		const expired: NodeRecord[] = [];
		for (let offset = 0; ; offset += PAGE) {
			const page = await memory.graph.listNodes(scope, { label, limit: PAGE, offset });
			for (const node of page) if (node.updatedAt < cutoff) expired.push(node);
			if (page.length < PAGE) break;
		}
		return expired;
	};
	const report = (expired: readonly NodeRecord[], notes?: NotesErased): TtlReport => ({
		mode: options.apply ? "apply" : "dry-run",
		action: options.hard ? "hard" : "archive",
		cutoff,
		count: expired.length,
		nodes: expired.slice(0, SAMPLE).map(nodeRef),
		...(notes ? { notes } : {}),
	});
	if (!options.apply) return report(await expiredNow());
	if (!options.hard) {
		return memory.write(() =>
			memory.pipeline.transaction(async () => {
				const expired = await expiredNow();
				for (const node of expired) await memory.pipeline.archive(ctx, node);
				return report(expired);
			}),
		);
	}
	// The erase holds the vault's work for these nodes; inside it, what has expired is read again.
	const ids = new Set((await expiredNow()).map((n) => n.id));
	const { result, notes } = await memory.erase({ scope, ids }, async () => {
		const expired = (await expiredNow()).filter((n) => ids.has(n.id));
		for (const node of expired) await memory.pipeline.hardDelete(ctx, node);
		return { result: expired, erased: expired };
	});
	return report(result, notes);
}

/**
 * `engrama decay`: read-only since engrama-py 0.18.1's behaviour (stored confidence never decays;
 * search's temporal term applies age when ranking). Reports what age does to ranking; writes nothing.
 */
export async function decay(deps: SkillDeps, ctx: WriteContext, options: DecayOptions): Promise<DecayReport> {
	const scope = requireScope(ctx.scope);
	const { memory } = deps;
	const label = options.label ? resolveLabelOrThrow(memory.profile, options.label).label : undefined;
	return decayReport(memory.graph, scope, memory.clock.now(), memory.searcher.settings.halfLifeDays, { ...options, label });
}

export interface GdprCounts {
	readonly nodes: number;
	readonly edges: number;
	readonly vectors: number;
	readonly fulltext: number;
	readonly history: number;
	readonly name_index: number;
	/** Sections of notes, with their words and vectors. */
	readonly passages: number;
}

export interface GdprReport {
	readonly mode: "dry-run" | "apply";
	readonly scope: { readonly org_id: string; readonly user_id: string };
	/** Dry run: what apply would remove. Apply: what was removed. */
	readonly counts: GdprCounts;
	/** Apply: the notes Engrama wrote for the erased nodes, removed when unchanged, else kept and named. */
	readonly notes?: NotesErased;
}

/**
 * GDPR forget of the caller's own memory: every node, edge, vector, fulltext row, history entry
 * and name-index row of the caller's scope, and nothing of any other scope. Dry run by default.
 */
export async function gdprForget(deps: SkillDeps, ctx: WriteContext, options: { apply: boolean }): Promise<GdprReport> {
	const scope = requireScope(ctx.scope);
	const { memory } = deps;
	const scopeView = { org_id: scope.orgId, user_id: scope.userId };
	if (!options.apply) {
		const footprint = await memory.graph.scopeFootprint(scope);
		const vectors = memory.vectors ? await memory.vectors.count(scope) : 0;
		return {
			mode: "dry-run",
			scope: scopeView,
			counts: {
				nodes: footprint.nodes,
				edges: footprint.edges,
				vectors,
				fulltext: footprint.fulltext,
				history: footprint.history,
				name_index: footprint.nameIndex,
				passages: footprint.passages ?? 0,
			},
		};
	}
	const { result, notes } = await memory.erase({ scope, wholeScope: true }, async () => {
		let vectors = 0;
		const erased: NodeRecord[] = [];
		for (let offset = 0; ; offset += PAGE) {
			const page = await memory.graph.listNodes(scope, { includeArchived: true, limit: PAGE, offset });
			// Only nodes with a note matter to the erase hooks (the vault's copies).
			for (const node of page) if (node.props[NOTE_PROPS.path]) erased.push(node);
			// Vectors are keyed by node, so they go first, while the nodes still resolve.
			if (memory.vectors) vectors += await memory.pipeline.deleteVectors(scope, page.map((n) => n.id));
			if (page.length < PAGE) break;
		}
		const report = await memory.pipeline.forgetScope(scope);
		await forgetProactiveCounter(memory, scope);
		const counts: GdprCounts = {
			nodes: report.nodes,
			edges: report.edges,
			vectors,
			fulltext: report.fulltext ?? report.nodes,
			history: report.history ?? 0,
			name_index: report.nameIndex ?? 0,
			passages: report.passages ?? 0,
		};
		return { result: counts, erased };
	});
	return { mode: "apply", scope: scopeView, counts: result, notes };
}
