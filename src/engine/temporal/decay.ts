import { ValidationError } from "../errors";
import { nodeConfidence } from "../node-text";
import type { GraphStore } from "../protocols";
import { isSystemInsight } from "../resolver/system-insight";
import type { NodeRecord, Scope } from "../types";
import { daysBefore, daysBetween } from "./dates";

export interface DecayOptions {
	/** Per day: confidence × exp(−rate × days). */
	readonly rate: number;
	/** Only nodes not updated for at least this many days decay (0: every live node). */
	readonly maxAgeDays: number;
	readonly label?: string;
	/** Report without writing. */
	readonly dryRun?: boolean;
}

export interface DecayChange {
	readonly node: NodeRecord;
	readonly before: number;
	readonly after: number;
	readonly days: number;
}

export interface DecayReport {
	readonly examined: number;
	readonly decayed: number;
	readonly dryRun: boolean;
	/** The first changes (at most 50), for display. */
	readonly sample: readonly DecayChange[];
}

/** Seed formula: confidence × exp(−rate × days). */
export function decayedConfidence(confidence: number, rate: number, days: number): number {
	return Math.max(0, Math.min(1, confidence * Math.exp(-rate * days)));
}

const PAGE = 500;
const SAMPLE = 50;

export function validateDecayOptions(options: DecayOptions): void {
	if (!Number.isFinite(options.rate) || options.rate < 0 || options.rate > 10) {
		throw new ValidationError(`--rate must be a number from 0 to 10 per day, got ${options.rate}.`);
	}
	if (!Number.isFinite(options.maxAgeDays) || options.maxAgeDays < 0) {
		throw new ValidationError(`--max-age must be zero or more days, got ${options.maxAgeDays}.`);
	}
}

/**
 * One decay pass over the scope's live nodes (system Insights excluded: reflect owns their
 * confidence). Time counts from the later of updated_at and the previous pass (`decayed_at`), so
 * repeated passes compound to exactly exp(−rate × days since update). `updated_at` is kept: a
 * decay is not an edit, and recency signals must not see it as one.
 */
export async function decayConfidence(graph: GraphStore, scope: Scope, now: Date, options: DecayOptions): Promise<DecayReport> {
	validateDecayOptions(options);
	const cutoff = daysBefore(now, options.maxAgeDays);
	const nowIso = now.toISOString();
	const changes: DecayChange[] = [];
	let examined = 0;
	let decayed = 0;
	for (let offset = 0; ; offset += PAGE) {
		const page = await graph.listNodes(scope, { label: options.label, limit: PAGE, offset });
		for (const node of page) {
			examined++;
			if (isSystemInsight(node) || node.updatedAt > cutoff) continue;
			const since = typeof node.props.decayed_at === "string" && node.props.decayed_at > node.updatedAt ? node.props.decayed_at : node.updatedAt;
			const days = daysBetween(since, now);
			const before = nodeConfidence(node);
			const after = decayedConfidence(before, options.rate, days);
			if (days <= 0 || after === before) continue;
			decayed++;
			if (changes.length < SAMPLE) changes.push({ node, before, after, days });
			if (!options.dryRun) {
				await graph.updateNode(scope, node.id, { confidence: after, decayed_at: nowIso }, [], node.updatedAt);
			}
		}
		if (page.length < PAGE) break;
	}
	return { examined, decayed, dryRun: !!options.dryRun, sample: changes };
}
