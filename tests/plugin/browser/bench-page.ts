// Runs inside Chromium for `npm run bench -- plugin-speed --chromium`: the built main.js evaluated
// as Obsidian does, over the fake `obsidian` with an in-memory vault (the mobile adapter: a page has
// no Node fs), timing evaluate, onload, engine open and the first sync, and collecting the main
// thread's long tasks (PerformanceObserver "longtask", tasks over 50 ms) in each phase.
import * as fake from "../../fakes/obsidian";

interface BenchPlugin {
	fakeLoad(): Promise<void>;
	unload(): void;
	closed: Promise<void>;
	controller: { ready(): Promise<unknown>; tasks: { current: unknown } } | null;
}
type PluginClass = new (app: unknown, manifest: unknown) => BenchPlugin;

const longTasks: { start: number; duration: number }[] = [];
new PerformanceObserver((list) => {
	for (const entry of list.getEntries()) longTasks.push({ start: entry.startTime, duration: entry.duration });
}).observe({ type: "longtask", buffered: true });

/** The longest gap between two turns of a MessageChannel ticker (catches blocks under 50 ms too). */
function ticker() {
	const channel = new MessageChannel();
	let last = performance.now();
	let longest = 0;
	let running = true;
	channel.port1.onmessage = () => {
		const now = performance.now();
		longest = Math.max(longest, now - last);
		last = now;
		if (running) setTimeout(() => channel.port2.postMessage(0), 0);
	};
	channel.port2.postMessage(0);
	return () => {
		running = false;
		return longest;
	};
}

async function phase<T>(name: string, work: () => Promise<T>): Promise<{ result: T; ms: number; longestTaskMs: number; tasksOver50: number; longestGapMs: number }> {
	const stopTicker = ticker();
	// Marks in the trace (the runner reads each task's CPU time from it, between these marks).
	console.timeStamp(`engrama:${name}:start`);
	const started = performance.now();
	const result = await work();
	const ended = performance.now();
	console.timeStamp(`engrama:${name}:end`);
	// Long task entries arrive after the task ends: let the observer catch up.
	await new Promise((r) => setTimeout(r, 100));
	const tasks = longTasks.filter((t) => t.start + t.duration >= started && t.start <= ended);
	return { result, ms: ended - started, longestTaskMs: Math.max(0, ...tasks.map((t) => t.duration)), tasksOver50: tasks.length, longestGapMs: stopTicker() };
}

async function run(vaultUrl: string, mainJs: string, manifest: Record<string, unknown>, onloadRuns: number, pluginDir: string) {
	const requireShim = (id: string): unknown => {
		if (id === "obsidian") return fake;
		throw new Error(`Cannot find module '${id}'`);
	};
	const module = { exports: {} as { default?: PluginClass } };
	const evaluated = await phase("evaluate", async () => {
		// eslint-disable-next-line @typescript-eslint/no-implied-eval -- this is how Obsidian evaluates a plugin's main.js
		const evaluate = new Function("module", "exports", "require", mainJs) as (m: unknown, e: unknown, r: unknown) => void;
		evaluate(module, module.exports, requireShim);
	});
	const Plugin = module.exports.default!;

	const onloads: number[] = [];
	for (let i = 0; i < onloadRuns; i++) {
		const app = fake.createFakeApp(fake.memoryFileSystem({ [`${pluginDir}/data.json`]: JSON.stringify({ sync: { autoSync: false } }) }), { mobile: true });
		const plugin = new Plugin(app, manifest);
		const started = performance.now();
		await plugin.fakeLoad();
		onloads.push(performance.now() - started);
		plugin.unload();
		await plugin.closed;
	}

	const files = (await (await window.fetch(vaultUrl)).json()) as Record<string, string>;
	// A vault where Engrama was set up (a data.json): the start syncs at once, no welcome waits for a person.
	files[`${pluginDir}/data.json`] ??= JSON.stringify({});
	const app = fake.createFakeApp(fake.memoryFileSystem(files), { mobile: true });
	const plugin = new Plugin(app, manifest);
	const onload = await phase("onload", () => plugin.fakeLoad());
	const open = await phase("open", async () => {
		await app.workspace.fakeLayoutReady();
		await plugin.controller!.ready();
	});
	const sync = await phase("sync", async () => {
		while (plugin.controller!.tasks.current) await new Promise((r) => setTimeout(r, 20));
	});
	plugin.unload();
	await plugin.closed;
	const strip = <T extends { result: unknown }>(p: T) => ({ ...p, result: undefined });
	return { evaluate: strip(evaluated), onloads, onload: strip(onload), open: strip(open), sync: strip(sync), notes: Object.keys(files).filter((f) => f.endsWith(".md")).length };
}

(window as unknown as { engramaBench: typeof run }).engramaBench = run;
// --profile: the long tasks with their start times, to find them in the CPU profile.
(window as unknown as { engramaLongTasks: typeof longTasks }).engramaLongTasks = longTasks;
