import { ValidationError } from "../errors";

export const DAY_MS = 86_400_000;

export function daysBetween(fromIso: string, to: Date): number {
	const from = Date.parse(fromIso);
	if (Number.isNaN(from)) return 0;
	return Math.max(0, (to.getTime() - from) / DAY_MS);
}

export function daysBefore(now: Date, days: number): string {
	return new Date(now.getTime() - days * DAY_MS).toISOString();
}

/**
 * A point in time from user input. A bare date (YYYY-MM-DD) means the end of that day (UTC),
 * so "at 2024-03-01" includes what was written during March 1st.
 */
export function parsePointInTime(text: string): string {
	const trimmed = text.trim();
	if (/^\d{4}-\d{2}-\d{2}$/.test(trimmed)) {
		const time = Date.parse(`${trimmed}T23:59:59.999Z`);
		if (!Number.isNaN(time)) return new Date(time).toISOString();
	}
	const time = Date.parse(trimmed);
	if (!trimmed || Number.isNaN(time)) {
		throw new ValidationError(`"${trimmed.slice(0, 40)}" is not a date; use YYYY-MM-DD or an ISO date-time.`);
	}
	return new Date(time).toISOString();
}

/** confidence × 2^(−days/halfLife): a node untouched for one half-life counts half. */
export function temporalScore(confidence: number, updatedAt: string, now: Date, halfLifeDays: number): number {
	const time = Date.parse(updatedAt);
	const c = Number.isFinite(confidence) ? Math.min(1, Math.max(0, confidence)) : 1;
	if (!Number.isFinite(time) || !(halfLifeDays > 0)) return c;
	const days = Math.max(0, (now.getTime() - time) / DAY_MS);
	return c * 2 ** (-days / halfLifeDays);
}
