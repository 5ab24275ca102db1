import { afterEach, describe, expect, it } from "vitest";
import { MAX_PASSAGES, splitPassages } from "../../../src/engine/sync/passages";
import { openHarness, SCOPE, type SyncHarness } from "./sync-fixture";

const open: SyncHarness[] = [];
afterEach(async () => {
	for (const h of open.splice(0)) await h.close();
});

function manyHeadings(n: number, last: string): string {
	const sections = Array.from({ length: n }, (_, i) => `## Heading ${i}\n\nLine ${i} of the log.`);
	sections[n - 1] = `## Heading ${n - 1}\n\nThe ${last} is here.`;
	return `---\nengrama_label: Concept\n---\n# Log\n\n${sections.join("\n\n")}\n`;
}

function oneLongLine(bytes: number, last: string): string {
	const words = "lorem ipsum dolor sit amet ".repeat(Math.ceil(bytes / 27)).slice(0, bytes);
	return `---\nengrama_label: Concept\n---\n# Dump\n\n${words} ${last}\n`;
}

// Issue 36, item 8: every word of a note is searchable, however many sections it has; the number
// of passages stays bounded (past the bound, consecutive pieces share a passage).
describe("notes past the passage bound", () => {
	it("splits every word of a 20,000-heading note and of a 4 MB single line into at most MAX_PASSAGES passages", () => {
		const log = splitPassages(manyHeadings(20_000, "quetzalbloom"));
		expect(log.length).toBeLessThanOrEqual(MAX_PASSAGES);
		const logText = log.map((p) => p.text).join("\n");
		for (const i of [0, 399, 400, 12_345, 19_998]) expect(logText).toContain(`Line ${i} of the log.`);
		expect(log.at(-1)?.text).toContain("quetzalbloom");
		// A packed passage is found by its first section's heading and line, and its hash follows its text.
		expect(log[1].heading).toMatch(/^Log > Heading \d+$/);
		expect(new Set(log.map((p) => p.hash)).size).toBe(log.length);
		const dump = splitPassages(oneLongLine(4 * 1024 * 1024, "quetzalbloom"));
		expect(dump.length).toBeLessThanOrEqual(MAX_PASSAGES);
		expect(dump.reduce((n, p) => n + p.text.length, 0)).toBeGreaterThanOrEqual(4 * 1024 * 1024);
		expect(dump.at(-1)?.text.endsWith("quetzalbloom")).toBe(true);
	});

	it("finds a word only in the last section of a 20,000-heading note, and only at the end of a 4 MB line", async () => {
		const h = await openHarness();
		open.push(h);
		h.write("Log.md", manyHeadings(20_000, "quetzalbloom"));
		h.write("Dump.md", oneLongLine(4 * 1024 * 1024, "marzipanvolt"));
		const report = await h.sync.fullSync();
		expect(report.problems).toEqual([]);
		for (const [word, note] of [["quetzalbloom", "Log"], ["marzipanvolt", "Dump"]]) {
			const found = await h.memory.search(SCOPE, word);
			expect(found.results.map((r) => r.name), word).toContain(note);
		}
	}, 120_000);
});
