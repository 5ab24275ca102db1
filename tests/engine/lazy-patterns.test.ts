// The engine's big patterns are built on first use, not when their module is evaluated: main.js
// evaluates the engine at every Obsidian start, where building them cost about 2.5 ms (#39).
import { afterEach, expect, test, vi } from "vitest";

const built: string[] = [];
const NativeRegExp = RegExp;

afterEach(() => {
	vi.unstubAllGlobals();
	built.length = 0;
});

/** Imports a module afresh while every `new RegExp(source)` is recorded. */
async function importRecording<T>(load: () => Promise<T>): Promise<T> {
	vi.resetModules();
	vi.stubGlobal(
		"RegExp",
		new Proxy(NativeRegExp, {
			construct(target, args: [string | RegExp, string?]) {
				built.push(String(args[0]));
				return new target(...args);
			},
		}),
	);
	return load();
}

test("words.ts builds its script patterns (\\p{scx=…}) on first use, and they work", async () => {
	const words = await importRecording(() => import("../../src/engine/search/words"));
	expect(built.filter((source) => source.includes("scx="))).toEqual([]);
	expect(words.indexText("数据库 index")).toContain("数据 据库 库");
	expect(words.needsSegmenting("plain words")).toBe(false);
	expect(built.filter((source) => source.includes("scx=")).length).toBe(3);
});

test("time-mentions.ts builds its prefilter on first use, and it works", async () => {
	const mentions = await importRecording(() => import("../../src/engine/temporal/time-mentions"));
	// A part of the prefilter's own source (chrono-node, imported with it, builds patterns of its own).
	const prefilter = (source: string) => source.includes("(?:en|por|durante|de)");
	expect(built.filter(prefilter)).toEqual([]);
	expect(mentions.mayMentionTime("see you next tuesday")).toBe(true);
	expect(mentions.mayMentionTime("no time here")).toBe(false);
	expect(built.filter(prefilter).length).toBe(1);
});

test("the time prefilter repeats whitespace with * only: V8 compiles a copy of an atom per allowed count, and {0,n} made compiling it most of a remember's prefilter cost", async () => {
	const mentions = await importRecording(() => import("../../src/engine/temporal/time-mentions"));
	mentions.mayMentionTime("one remember");
	const prefilter = built.filter((source) => source.includes("(?:en|por|durante|de)"));
	expect(prefilter.length).toBe(1);
	expect(prefilter[0]).not.toMatch(/\{\d*,?\d*\}/);
});
