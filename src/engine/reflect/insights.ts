import { NotFoundError, ValidationError } from "../errors";
import type { ReflectDeps } from "./reflect-deps";
import { nodeConfidence } from "../node-text";
import { isSystemInsight } from "../resolver/system-insight";
import { isFullScope, requireScope } from "../scope";
import type { NodeRecord, PartialScope } from "../types";
import { sanitiseKey } from "../write/sanitise";
import type { WriteContext } from "../write/write-pipeline";

export const INSIGHT_LABEL = "Insight";
export const ABOUT = "ABOUT";

export type InsightStatus = "pending" | "approved" | "dismissed";
export const INSIGHT_STATUSES: readonly InsightStatus[] = ["pending", "approved", "dismissed"];

/** The JSON face of an Insight: stable field names shared by the CLI (--json) and the MCP bridge. */
export interface InsightView {
	readonly insight_id: string;
	readonly title: string;
	readonly body: string;
	readonly confidence: number;
	readonly status: string;
	/** The detector that proposed it (`source_query`, as in the Python engrama). */
	readonly detector: string;
	readonly created_at: string;
	readonly updated_at: string;
	/** The person's reason when approving or dismissing, if they gave one. */
	readonly reason?: string;
	readonly reviewed_at?: string;
	/** The note an approved Insight was written into. */
	readonly written_to?: string;
	/** The entities the Insight is about (ABOUT edges). */
	readonly about: readonly { readonly node_id: string; readonly label: string; readonly name: string }[];
}

function text(node: NodeRecord, prop: string): string | undefined {
	const value = node.props[prop];
	return typeof value === "string" && value !== "" ? value : undefined;
}

export function insightStatus(node: NodeRecord): string {
	return text(node, "status") ?? "pending";
}

export async function insightView(memory: ReflectDeps, scope: PartialScope, node: NodeRecord): Promise<InsightView> {
	const about = await memory.graph.edgesOf(scope, node.id, "out", [ABOUT]);
	const optional = (key: keyof InsightView, prop: string) => (text(node, prop) !== undefined ? { [key]: text(node, prop) } : {});
	return {
		insight_id: node.id,
		title: node.key,
		body: text(node, "body") ?? "",
		confidence: nodeConfidence(node),
		status: insightStatus(node),
		detector: text(node, "source_query") ?? "",
		created_at: node.createdAt,
		updated_at: node.updatedAt,
		...optional("reason", "reason"),
		...optional("reviewed_at", "reviewed_at"),
		...optional("written_to", "written_to"),
		about: about
			.map((e) => ({ node_id: e.node.id, label: e.node.label, name: e.node.key }))
			.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.label < b.label ? -1 : a.label > b.label ? 1 : 0)),
	};
}

/** Highest confidence first, then title: the order a person reviews in. */
export function byReviewOrder(a: NodeRecord, b: NodeRecord): number {
	return nodeConfidence(b) - nodeConfidence(a) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
}

export interface ListInsightsOptions {
	readonly status?: InsightStatus;
	readonly limit?: number;
}

/** Insights written by reflect with the given status (default pending), in review order. */
export async function listInsights(memory: ReflectDeps, scope: PartialScope, options: ListInsightsOptions = {}): Promise<InsightView[]> {
	if (!isFullScope(scope)) return [];
	const status = options.status ?? "pending";
	if (!INSIGHT_STATUSES.includes(status)) {
		throw new ValidationError(`Insight status "${String(status)}" is not one of ${INSIGHT_STATUSES.join(", ")}.`);
	}
	const nodes = (await memory.graph.listNodes(scope, { label: INSIGHT_LABEL, status: [status] })).filter(isSystemInsight).sort(byReviewOrder);
	const limit = options.limit ?? 50;
	return Promise.all(nodes.slice(0, limit).map((node) => insightView(memory, scope, node)));
}

/** The reflect Insight with exactly this title; NotFoundError names close titles when there is none. */
export async function requireInsight(memory: ReflectDeps, scope: PartialScope, title: string): Promise<NodeRecord> {
	const key = sanitiseKey(title, "title");
	const node = isFullScope(scope) ? await memory.graph.getNode(scope, INSIGHT_LABEL, key) : null;
	if (node && isSystemInsight(node)) return node;
	if (node) {
		throw new ValidationError(`"${key}" is an Insight written by hand, not proposed by reflect: it has no review to approve or dismiss.`, {
			title: key,
		});
	}
	const hits = isFullScope(scope) ? await memory.graph.fulltext(scope, { text: key, limit: 5, labels: [INSIGHT_LABEL] }) : [];
	const close = hits.map((h) => h.node).filter(isSystemInsight).map((n) => n.key).slice(0, 3);
	throw new NotFoundError(
		`No Insight is titled "${key}".${close.length > 0 ? ` Did you mean: ${close.map((t) => `"${t}"`).join(", ")}?` : " List them with engrama_surface_insights (MCP) or engrama insights (command line)."}`,
		{ title: key, did_you_mean: close },
	);
}

export interface ReviewResult {
	readonly insight: InsightView;
	readonly previous_status: string;
	/** False when the Insight already had this status and reason. */
	readonly changed: boolean;
}

/**
 * A person's verdict on an Insight. Re-reviewing is allowed (a dismissed Insight can be approved
 * later); reflect never resurfaces or rewrites a reviewed Insight either way.
 */
export async function reviewInsight(
	memory: ReflectDeps,
	ctx: WriteContext,
	title: string,
	verdict: "approved" | "dismissed",
	reason?: string,
): Promise<ReviewResult> {
	const scope = requireScope(ctx.scope);
	const cleanReason = reason?.trim() ? reason.trim() : undefined;
	return memory.write(async () => {
		const node = await requireInsight(memory, scope, title);
		const previous = insightStatus(node);
		const sameReason = (text(node, "reason") ?? undefined) === cleanReason;
		if (previous === verdict && sameReason) return { insight: await insightView(memory, scope, node), previous_status: previous, changed: false };
		const now = memory.clock.now().toISOString();
		const write = await memory.pipeline.mergeEntity(ctx, {
			label: INSIGHT_LABEL,
			key: node.key,
			props: { status: verdict, reviewed_at: now, ...(cleanReason ? { reason: cleanReason } : {}) },
			unset: cleanReason ? [] : ["reason"],
		});
		return { insight: await insightView(memory, scope, write.node), previous_status: previous, changed: true };
	});
}
