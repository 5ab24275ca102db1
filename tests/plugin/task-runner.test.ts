import { afterEach, expect, test } from "vitest";
import { fakeApiVersion, fakeNotices, fakeReset } from "../fakes/obsidian";
import { TaskRunner } from "../../src/plugin/task-runner";
import { WorkGate } from "../../src/plugin/work-gate";

afterEach(() => fakeReset());

test("a long task runs and ends on an app without Notice.messageEl (before 1.8.7), and the next one runs too", async () => {
	const undo = fakeApiVersion("1.8.0");
	try {
		const runner = new TaskRunner(new WorkGate());
		expect(await runner.run("Syncing the vault", () => Promise.resolve(42))).toBe(42);
		expect(runner.current).toBeNull();
		expect(await runner.run("Reflecting", () => Promise.resolve("second"))).toBe("second");
		expect(fakeNotices.some((n) => n.text.includes("still running"))).toBe(false);
	} finally {
		undo();
	}
});

test("on a current app the task shows its progress notice with Cancel, and hides it when done", async () => {
	const runner = new TaskRunner(new WorkGate());
	let seen = "";
	await runner.run("Syncing the vault", (control) => {
		control.report("reading 3 / 10");
		seen = fakeNotices.at(-1)?.text ?? "";
		return Promise.resolve(null);
	});
	expect(seen).toContain("Syncing the vault: reading 3 / 10");
	expect(seen).toContain("Cancel");
	expect(fakeNotices.at(-1)?.hidden).toBe(true);
});

test("the progress bar reads the counts when the time left follows them", async () => {
	const runner = new TaskRunner(new WorkGate());
	let bar: HTMLProgressElement | null = null;
	await runner.run("Embedding missing vectors", (control) => {
		control.report("1,200 / 5,000 · about 1 h 20 min left");
		bar = fakeNotices.at(-1)?.messageEl.querySelector("progress") ?? null;
		return Promise.resolve(null);
	});
	expect(bar).not.toBeNull();
	expect({ value: bar!.value, max: bar!.max }).toEqual({ value: 1200, max: 5000 });
});
