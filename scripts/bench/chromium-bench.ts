// What the Chromium benchmarks share: how Chromium is launched, the generated vault, and reading
// a Chromium trace (Playwright's browser.startTracing): the renderer main thread's tasks with their
// CPU time, and the marks a page leaves with console.timeStamp("engrama:<name>").
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../../tests/plugin/harness";

export const CHROMIUM = {
	executablePath: "/usr/bin/chromium",
	args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
};

/** A vault of `notes` notes from scripts/bench/generate-vault.mjs, generated once into .bench-out/vault-<notes>. */
export function generatedVault(notes: number): string {
	const source = join(ROOT, ".bench-out", `vault-${notes}`);
	if (!existsSync(join(source, "Projects"))) {
		mkdirSync(join(ROOT, ".bench-out"), { recursive: true });
		execFileSync(process.execPath, [join(ROOT, "scripts", "bench", "generate-vault.mjs"), "--notes", String(notes), "--out", source], { stdio: "inherit" });
	}
	return source;
}

export const TRACE_CATEGORIES = ["toplevel", "devtools.timeline", "disabled-by-default-devtools.timeline"];

export interface TraceEvent {
	name: string;
	ph: string;
	ts: number;
	dur?: number;
	tdur?: number;
	pid: number;
	tid: number;
	args?: { name?: string; data?: { message?: string; functionName?: string; url?: string } };
}
export type TraceFile = { traceEvents: TraceEvent[] } | TraceEvent[];

/** A main-thread task: start (µs, the trace's clock), wall and CPU (thread) time in ms. */
export interface MainTask {
	readonly ts: number;
	readonly wallMs: number;
	readonly cpuMs: number;
}

/** The page's marks by name (`engrama:embed:start` → "embed:start"), at their trace time. */
export function traceMarks(trace: TraceFile): Map<string, number> {
	const events = Array.isArray(trace) ? trace : trace.traceEvents;
	const marks = new Map<string, number>();
	for (const e of events) {
		const message = e.args?.data?.message;
		if (e.name === "TimeStamp" && message?.startsWith("engrama:")) marks.set(message.slice("engrama:".length), e.ts);
	}
	return marks;
}

/** The renderer main thread's complete ("X") events, in order of start. */
function mainThreadEvents(trace: TraceFile): TraceEvent[] {
	const events = Array.isArray(trace) ? trace : trace.traceEvents;
	const main = events.find((e) => e.name === "thread_name" && e.args?.name === "CrRendererMain");
	return events.filter((e) => main && e.pid === main.pid && e.tid === main.tid && e.ph === "X" && e.dur !== undefined).sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
}

/** The renderer main thread's tasks (CrRendererMain), each once, in order. */
export function mainThreadTasks(trace: TraceFile): MainTask[] {
	// One event per task: RunTask events nest (the scheduler's wraps the thread controller's); keep the outermost.
	const tasks: TraceEvent[] = [];
	for (const e of mainThreadEvents(trace).filter((e) => /RunTask$/.test(e.name) && e.tdur !== undefined)) {
		const last = tasks.at(-1);
		if (!last || e.ts >= last.ts + (last.dur ?? 0)) tasks.push(e);
	}
	return tasks.map((t) => ({ ts: t.ts, wallMs: (t.dur ?? 0) / 1000, cpuMs: (t.tdur ?? 0) / 1000 }));
}

/** The tasks that overlap the marks `<name>:start` … `<name>:end`; null when the page left no such marks. */
export function tasksBetween(trace: TraceFile, tasks: readonly MainTask[], name: string): MainTask[] | null {
	const marks = traceMarks(trace);
	const start = marks.get(`${name}:start`);
	const end = marks.get(`${name}:end`);
	if (start === undefined || end === undefined) return null;
	return tasks.filter((t) => t.ts + t.wallMs * 1000 >= start && t.ts <= end);
}

/**
 * What a task spent its time in: the main thread's trace events inside it by name (a function
 * call by its function and script), with self time (wall ms, less the events nested in it),
 * largest first. As telling as the trace's categories (GC, compile, execute…).
 */
export function taskBreakdown(trace: TraceFile, task: MainTask, top = 8): string {
	const end = task.ts + task.wallMs * 1000;
	const inside = mainThreadEvents(trace).filter((e) => e.ts >= task.ts && e.ts + e.dur! <= end);
	const self = new Map<string, number>();
	const open: { end: number; key: string }[] = [];
	const label = (e: TraceEvent) => (e.args?.data?.functionName !== undefined ? `${e.name}(${e.args.data.functionName || "anonymous"} ${e.args.data.url?.split("/").pop() ?? ""})` : e.name);
	for (const e of inside) {
		while (open.length && open.at(-1)!.end <= e.ts) open.pop();
		const parent = open.at(-1);
		if (parent) self.set(parent.key, (self.get(parent.key) ?? 0) - e.dur!);
		const key = label(e);
		self.set(key, (self.get(key) ?? 0) + e.dur!);
		open.push({ end: e.ts + e.dur!, key });
	}
	return [...self].sort((a, b) => b[1] - a[1]).slice(0, top).map(([k, us]) => `${k} ${(us / 1000).toFixed(1)}`).join(", ");
}
