import { nodeTimers } from "./node-timers";

/**
 * Timers for code that runs in Obsidian's renderer and in Node (the backends, the MCP server).
 * In the renderer the bare `setTimeout` can be Node's (Electron's Node integration): it returns an
 * object and belongs to no window, so Obsidian's review asks for `window.setTimeout` there. The
 * command line has no `window`: Node's timers are used, and `unref` lets the process exit while
 * a timer is pending (a renderer never exits on its own, so it needs none).
 */
export type TimerHandle = number | { unref?: () => void };

function hostWindow(): Window | undefined {
	return typeof window === "undefined" ? undefined : window;
}

export function hostSetTimeout(fn: () => void, ms: number, options: { unref?: boolean } = {}): TimerHandle {
	const win = hostWindow();
	if (win) return win.setTimeout(fn, ms);
	const timer = nodeTimers.setTimeout(fn, ms);
	if (options.unref) timer.unref();
	return timer;
}

export function hostClearTimeout(handle: TimerHandle | undefined): void {
	if (handle === undefined) return;
	const win = hostWindow();
	// A window never comes or goes while the code runs: the handle came from the same side.
	if (win) win.clearTimeout(handle as number);
	else nodeTimers.clearTimeout(handle as Parameters<typeof nodeTimers.clearTimeout>[0]);
}

export function hostSetInterval(fn: () => void, ms: number, options: { unref?: boolean } = {}): TimerHandle {
	const win = hostWindow();
	if (win) return win.setInterval(fn, ms);
	const timer = nodeTimers.setInterval(fn, ms);
	if (options.unref) timer.unref();
	return timer;
}

export function hostClearInterval(handle: TimerHandle | undefined): void {
	if (handle === undefined) return;
	const win = hostWindow();
	if (win) win.clearInterval(handle as number);
	else nodeTimers.clearInterval(handle as Parameters<typeof nodeTimers.clearInterval>[0]);
}

/** Resolves after `ms` (retry backoff). */
export function hostSleep(ms: number): Promise<void> {
	return new Promise<void>((resolve) => void hostSetTimeout(resolve, ms));
}
