// Code shared by Obsidian's renderer and the command line takes the window's timers where a window
// exists (what Obsidian's review asks) and Node's, unref'd on request, where none does.
import { afterEach, expect, test } from "vitest";
import { hostClearInterval, hostClearTimeout, hostSetInterval, hostSetTimeout, hostSleep } from "../../src/platform/host-timers";

const g = globalThis as { window?: unknown };
afterEach(() => {
	delete g.window;
});

test("without a window: Node's timers, unref'd when asked", async () => {
	expect(g.window).toBeUndefined();
	const hasRef = (handle: unknown) => (handle as { hasRef(): boolean }).hasRef();
	const timer = hostSetTimeout(() => undefined, 60_000, { unref: true });
	expect(hasRef(timer)).toBe(false);
	hostClearTimeout(timer);
	const interval = hostSetInterval(() => undefined, 60_000);
	expect(hasRef(interval)).toBe(true);
	hostClearInterval(interval);
	await hostSleep(1);
});

test("in a renderer: the window's timers, also to clear them", () => {
	const calls: string[] = [];
	g.window = {
		setTimeout: () => (calls.push("setTimeout"), 7),
		clearTimeout: (h: number) => calls.push(`clearTimeout ${h}`),
		setInterval: () => (calls.push("setInterval"), 8),
		clearInterval: (h: number) => calls.push(`clearInterval ${h}`),
	};
	hostClearTimeout(hostSetTimeout(() => undefined, 10, { unref: true }));
	hostClearInterval(hostSetInterval(() => undefined, 10));
	expect(calls).toEqual(["setTimeout", "clearTimeout 7", "setInterval", "clearInterval 8"]);
});
