import { Notice } from "obsidian";
import { errorMessage } from "../engine/errors";

/** A failure told to the person: what failed and the engine's message (which says what to do). */
export function noticeError(what: string, error: unknown): Notice {
	console.error(`Engrama: ${what}`, error);
	return new Notice(`Engrama: ${what}. ${errorMessage(error)}`, 10_000);
}

export function noticeInfo(message: string, duration = 5000): Notice {
	return new Notice(`Engrama: ${message}`, duration);
}

/** 1234 → "1,234": counts in notices and the status bar. */
export function formatCount(n: number): string {
	// Not toLocaleString: its first call loads ICU's number data, 25 ms on the main thread at startup.
	const digits = String(Math.abs(Math.round(n))).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
	return n < 0 && Math.round(n) !== 0 ? `-${digits}` : digits;
}

/** What a command or the panel says before the welcome's Start (after "Engrama: "). */
export const NOT_STARTED = "not started in this vault yet. Its panel shows what starting does; check the choices there and press Start.";
