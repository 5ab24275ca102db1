// The registry a new plugin instance waits on while the previous one (same vault) still closes.
import { expect, test } from "vitest";
import "../fakes/obsidian";
import { afterEarlierInstancesClosed, markClosing } from "../../src/plugin/instance-handover";

function deferred(): { promise: Promise<void>; resolve: () => void } {
	let resolve: () => void = () => undefined;
	const promise = new Promise<void>((r) => (resolve = r));
	return { promise, resolve };
}

test("a new instance waits for every earlier close of its vault, not for other vaults", async () => {
	const first = deferred();
	const second = deferred();
	markClosing("vault-a", first.promise);
	// A second instance closed quickly while the first was still closing: the third waits for both.
	markClosing("vault-a", second.promise);
	second.resolve();
	let waited = false;
	const waiting = afterEarlierInstancesClosed("vault-a").then(() => (waited = true));
	await afterEarlierInstancesClosed("vault-b");
	await Promise.resolve();
	expect(waited).toBe(false);
	first.resolve();
	await waiting;
	expect(waited).toBe(true);
	// Once closed, nothing is left to wait for.
	await afterEarlierInstancesClosed("vault-a");
});

test("a close that fails still lets the next instance start", async () => {
	markClosing("vault-c", Promise.reject(new Error("closing failed")));
	await expect(afterEarlierInstancesClosed("vault-c")).resolves.toBeUndefined();
});

test("a close that never finishes is reported after the bound, with what to do", async () => {
	markClosing("vault-d", new Promise<void>(() => undefined));
	await expect(afterEarlierInstancesClosed("vault-d", 50)).rejects.toThrow(/has not finished closing its memory after 0.05 s\. If opening fails, restart Obsidian\./);
});
