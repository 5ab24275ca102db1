import { ValidationError } from "../engine/errors";

// Obsidian does not await a plugin's onunload: on disable then enable (what a plugin update does)
// the new instance starts while the old one still closes its database and MCP server. Both meet
// here, keyed by vault and plugin folder, and the new one waits. Kept on window (each vault has its
// own renderer) so instances from two evaluations of main.js (an update loads the new file) share it.
const KEY = Symbol.for("engrama.plugin.closingInstances");

/** How long a new instance waits for the old one's close before saying so and trying anyway. */
export const HANDOVER_TIMEOUT_MS = 60_000;

function closingInstances(): Map<string, Promise<void>> {
	const shared = window as unknown as Record<symbol, Map<string, Promise<void>> | undefined>;
	let map = shared[KEY];
	if (!map) {
		map = new Map<string, Promise<void>>();
		shared[KEY] = map;
	}
	return map;
}

/** Records that the instance for `key` is closing until `done` settles (after any earlier one). */
export function markClosing(key: string, done: Promise<unknown>): void {
	const all = closingInstances();
	const before = all.get(key) ?? Promise.resolve();
	const settled = (): void => {
		if (all.get(key) === entry) all.delete(key);
	};
	const entry: Promise<void> = Promise.all([before, done.catch(() => undefined)]).then(settled, settled);
	all.set(key, entry);
}

/** Resolves once every earlier instance for `key` has closed; rejects after `timeoutMs` with why. */
export async function afterEarlierInstancesClosed(key: string, timeoutMs = HANDOVER_TIMEOUT_MS): Promise<void> {
	const pending = closingInstances().get(key);
	if (!pending) return;
	let timer: number | undefined;
	const late = new Promise<never>((_, reject) => {
		timer = window.setTimeout(() => {
			reject(
				new ValidationError(
					`The previous Engrama instance in this vault has not finished closing its memory after ${timeoutMs / 1000} s. If opening fails, restart Obsidian.`,
				),
			);
		}, timeoutMs);
	});
	try {
		await Promise.race([pending, late]);
	} finally {
		window.clearTimeout(timer);
	}
}
