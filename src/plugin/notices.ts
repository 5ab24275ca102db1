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
	return Math.round(n).toLocaleString("en-US");
}
