import { ValidationError } from "../errors";
import { nodeConfidence } from "../node-text";
import type { NodeStore, Reads } from "../protocols";
import type { NodeRecord, Scope } from "../types";
import { daysBefore, daysBetween, temporalScore } from "./dates";

/**
 * Decay is read-time only (as engrama-py since 0.18.1, its DDR-007): stored confidence stays what
 * the writer said, and search's temporal term weighs it by age,
 * confidence × 2^(−days/half_life) = confidence × exp(−(ln 2 / half_life) × days),
 * i.e. SPEC §7's formula with rate = ln 2 / half_life. `engrama decay` only reports that.
 */
export interface DecayOptions {
	/** Accepted for old scripts; no longer used (the rate is ln 2 / half-life of search). */
	readonly rate: number;
	/** Nodes not updated for at least this many days are counted and listed (0: every live node). */
	readonly maxAgeDays: number;
	readonly label?: string;
	/** Accepted for old scripts: every run is a dry run now. */
	readonly dryRun?: boolean;
}

export interface DecayChange {
	readonly node: NodeRecord;
	/** Stored confidence (unchanged). */
	readonly confidence: number;
	/** What search's temporal term uses for this node today. */
	readonly rankingConfidence: number;
	readonly days: number;
}

export interface DecayReport {
	readonly examined: number;
	/** Nodes not updated for maxAgeDays or more. */
	readonly aged: number;
	/** Always 0: nothing is written any more (kept for old JSON readers). */
	readonly decayed: 0;
	readonly dryRun: true;
	readonly halfLifeDays: number;
	/** The effective per-day rate: ln 2 / halfLifeDays. */
	readonly rate: number;
	/** The oldest aged nodes (at most 50), for display. */
	readonly sample: readonly DecayChange[];
}

/** SPEC §7: confidence × exp(−rate × days), clamped to [0, 1]. */
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

/** Read-only: what age does to each live node's weight in ranking. Writes nothing. */
export async function decayReport(graph: Reads<NodeStore>, scope: Scope, now: Date, halfLifeDays: number, options: DecayOptions): Promise<DecayReport> {
	validateDecayOptions(options);
	const cutoff = daysBefore(now, options.maxAgeDays);
	const aged: DecayChange[] = [];
	let examined = 0;
	let count = 0;
	for (let offset = 0; ; offset += PAGE) {
		const page = await graph.listNodes(scope, { label: options.label, limit: PAGE, offset });
		for (const node of page) {
			examined++;
			if (node.updatedAt > cutoff) continue;
			count++;
			const confidence = nodeConfidence(node);
			const days = daysBetween(node.updatedAt, now);
			aged.push({ node, confidence, rankingConfidence: temporalScore(confidence, node.updatedAt, now, halfLifeDays), days });
			// Keep only the oldest SAMPLE, so memory stays bounded on a large store.
			if (aged.length > SAMPLE * 2) aged.sort((a, b) => b.days - a.days).splice(SAMPLE);
		}
		if (page.length < PAGE) break;
	}
	aged.sort((a, b) => b.days - a.days).splice(SAMPLE);
	return { examined, aged: count, decayed: 0, dryRun: true, halfLifeDays, rate: Math.LN2 / halfLifeDays, sample: aged };
}
