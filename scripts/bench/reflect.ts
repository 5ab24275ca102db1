// Reflect benchmark: synthetic graphs of several sizes (a vault-like mix of labels with hub
// Domains, Technologies and Concepts whose degree grows with the graph), then
//  - the per-run snapshot (SQLite: live nodes and typed edges copied to temp tables);
//  - each detector's backend query on that snapshot (GraphStore.reflectRows, budget 25);
//  - a whole reflect run: first (creates the Insights) and second (finds them again, writes nothing).
// Each figure is the median of --repeat runs, as wall time and as this process's CPU time (the
// machine may be shared: CPU time is the steadier figure). Prints the largest/second-largest size
// ratio per detector: ~5 for 50k/10k is linear, ≫5 superlinear.
// Usage: npm run bench -- reflect [--sizes 1000,10000,50000] [--repeat 3] [--json]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseConfig } from "../../src/config/engrama-config";
import type { ReflectDetectorId } from "../../src/engine/protocols";
import { reflect, REFLECT_DETECTORS } from "../../src/engine/reflect";
import type { WriteContext } from "../../src/engine/write/write-pipeline";
import { openMemory, type OpenedMemory } from "../../src/nodejs/open-memory";
import { arg } from "./args";
import { seededRandom, sentence } from "./stats";

const sizes = arg("sizes", "1000,10000,50000").split(",").map(Number);
const repeat = Number(arg("repeat", "3"));
const json = process.argv.includes("--json");
const BATCH = 500;
const NOW = new Date();
const OLD = new Date(NOW.getTime() - 200 * 86_400_000).toISOString().slice(0, 10);

interface Plan {
	nodes: { label: string; key: string; props: Record<string, unknown> }[];
	edges: [from: number, type: string, to: number][];
}

/** A deterministic vault-like graph of about `size` nodes. */
function plan(size: number): Plan {
	const rand = seededRandom(size);
	const nodes: Plan["nodes"] = [];
	const add = (label: string, key: string, props: Record<string, unknown> = {}) => nodes.push({ label, key, props: { description: sentence(rand, 8), ...props } }) - 1;
	const count = (share: number, min: number) => Math.max(min, Math.round(size * share));
	const pick = <T>(items: readonly T[]) => items[Math.floor(rand() * items.length)];
	// Popular items first: r² skews picks toward the head, so the top item's degree grows with the graph.
	const popular = <T>(items: readonly T[]) => items[Math.floor(rand() * rand() * items.length)];
	const range = (n: number, f: (i: number) => number) => Array.from({ length: n }, (_, i) => f(i));

	const domains = range(count(0.002, 5), (i) => add("Domain", `Domain ${i}`));
	const techs = range(count(0.03, 10), (i) =>
		add("Technology", `Tech ${i}`, rand() < 0.08 ? { confidence: 0.2 } : rand() < 0.05 ? { updated: OLD } : {}),
	);
	const concepts = range(count(0.05, 10), (i) => add("Concept", `Concept ${i}`));
	const projects = range(count(0.04, 4), (i) => add("Project", `Project ${i}`, { status: rand() < 0.7 ? "active" : "completed" }));
	const courses = range(count(0.005, 2), (i) => add("Course", `Course ${i}`, { status: rand() < 0.6 ? "active" : "completed" }));
	const people = range(count(0.05, 5), (i) => add("Person", `Person ${i}`, rand() < 0.1 ? { status: "stub" } : {}));
	const decisions = range(count(0.12, 10), (i) => add("Decision", `Decision ${i}`, { status: rand() < 0.9 ? "accepted" : "proposed" }));
	const problemStatus = () => {
		const r = rand();
		return r < 0.25 ? "open" : r < 0.35 ? "in-progress" : r < 0.9 ? "resolved" : "wontfix";
	};
	const problems = range(count(0.2, 10), (i) => add("Problem", `Problem ${i}`, { status: problemStatus() }));
	const notes = range(Math.max(0, size - nodes.length), (i) => add("Note", `Note ${i}`));

	const edges: Plan["edges"] = [];
	const decisionProject = new Map<number, number>();
	for (const t of techs) edges.push([t, "IN_DOMAIN", popular(domains)]);
	for (const p of projects) {
		for (let k = 0; k < 1 + Math.floor(rand() * 2); k++) edges.push([p, "IN_DOMAIN", popular(domains)]);
		for (let k = 0; k < 2 + Math.floor(rand() * 3); k++) edges.push([p, "USES", popular(techs)]);
		edges.push([p, "INVOLVES", popular(people)]);
	}
	for (const c of courses) {
		for (let k = 0; k < 2; k++) edges.push([c, "TEACHES", popular(techs)], [c, "COVERS", popular(concepts)]);
	}
	for (const d of decisions) {
		const project = pick(projects);
		decisionProject.set(d, project);
		edges.push([d, "BELONGS_TO", project], [d, "APPLIES", popular(concepts)]);
	}
	const decisionsOf = new Map<number, number[]>();
	for (const [d, p] of decisionProject) decisionsOf.set(p, [...(decisionsOf.get(p) ?? []), d]);
	for (const pr of problems) {
		const project = pick(projects);
		edges.push([pr, "BELONGS_TO", project]);
		for (let k = 0; k < 1 + Math.floor(rand() * 2); k++) edges.push([pr, "APPLIES", popular(concepts)]);
		if (nodes[pr].props.status === "resolved" && decisionsOf.get(project)?.length) edges.push([pr, "SOLVED_BY", pick(decisionsOf.get(project) ?? [])]);
	}
	for (const person of people) if (rand() < 0.5) edges.push([person, "BELONGS_TO", pick(projects)]);
	for (const n of notes) {
		for (let k = 0; k < 2 + Math.floor(rand() * 2); k++) edges.push([n, "LINKS_TO", Math.floor(rand() * nodes.length)]);
		if (rand() < 0.1) edges.push([n, "RELATED_TO", popular(concepts)]);
	}
	return { nodes, edges: edges.filter(([from, , to]) => from !== to) };
}

async function load(opened: OpenedMemory, p: Plan): Promise<void> {
	const { memory, scope } = opened;
	const ctx: WriteContext = { scope, source: "cli" };
	const ids: string[] = [];
	for (let start = 0; start < p.nodes.length; start += BATCH) {
		await memory.write(() =>
			memory.pipeline.transaction(async () => {
				for (const n of p.nodes.slice(start, start + BATCH)) ids.push((await memory.pipeline.mergeEntity(ctx, { label: n.label, key: n.key, props: n.props })).node.id);
			}),
		);
	}
	const now = new Date().toISOString();
	for (let start = 0; start < p.edges.length; start += BATCH) {
		await memory.write(() =>
			memory.pipeline.transaction(async () => {
				for (const [from, type, to] of p.edges.slice(start, start + BATCH)) {
					await opened.stores.graph.mergeEdge(scope, { fromId: ids[from], type, toId: ids[to], now });
				}
			}),
		);
	}
}

interface Timing {
	wall: number;
	cpu: number;
}

interface SizeResult {
	nodes: number;
	edges: number;
	loadMs: number;
	snapshot: Timing;
	detectors: Record<ReflectDetectorId, Timing>;
	rows: Record<ReflectDetectorId, number>;
	firstRun: Timing;
	secondRun: Timing;
	created: number;
}

function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.floor(sorted.length / 2)];
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, Timing]> {
	const cpu = process.cpuUsage();
	const start = performance.now();
	const value = await fn();
	const used = process.cpuUsage(cpu);
	return [value, { wall: performance.now() - start, cpu: (used.user + used.system) / 1000 }];
}

function medianTiming(samples: readonly Timing[]): Timing {
	return { wall: median(samples.map((s) => s.wall)), cpu: median(samples.map((s) => s.cpu)) };
}

const fmtT = (t: Timing) => `${t.wall.toFixed(0).padStart(6)} ms wall ${t.cpu.toFixed(0).padStart(6)} ms cpu`;

async function measure(size: number): Promise<SizeResult> {
	const dir = mkdtempSync(join(tmpdir(), "engrama-bench-reflect-"));
	try {
		const config = parseConfig({ backend: "sqlite", dbPath: join(dir, "bench.db"), orgId: "bench", userId: "reflect", profile: "base", modules: ["teaching"] });
		const opened = await openMemory(config, { embedder: null });
		const p = plan(size);
		const t0 = performance.now();
		await load(opened, p);
		const loadMs = performance.now() - t0;
		const { memory, scope } = opened;
		const reflectRows = memory.graph.reflectRows?.bind(memory.graph);
		if (!reflectRows) throw new Error(`${memory.graph.name} has no reflectRows`);
		const base = { limit: 25, listCap: 20, staleBefore: new Date(NOW.getTime() - 90 * 86_400_000).toISOString(), lowConfidence: 0.3 };
		// The snapshot alone: a new run id forces it, the cheapest detector adds almost nothing.
		const snapshots: Timing[] = [];
		for (let i = 0; i < repeat; i++) snapshots.push((await timed(() => reflectRows(scope, "hub_stubs", { ...base, run: `snapshot-${i}` })))[1]);
		const detectors = {} as Record<ReflectDetectorId, Timing>;
		const rows = {} as Record<ReflectDetectorId, number>;
		for (const id of REFLECT_DETECTORS) {
			const samples: Timing[] = [];
			for (let i = 0; i < repeat; i++) {
				const [found, t] = await timed(() => reflectRows(scope, id, { ...base, run: `snapshot-${repeat - 1}` }));
				rows[id] = found.length;
				samples.push(t);
			}
			detectors[id] = medianTiming(samples);
		}
		const ctx: WriteContext = { scope, source: "cli" };
		const [first, firstRun] = await timed(() => reflect(memory, ctx));
		const seconds: Timing[] = [];
		for (let i = 0; i < repeat; i++) seconds.push((await timed(() => reflect(memory, ctx)))[1]);
		const counts = await memory.graph.counts(scope);
		await opened.close();
		return {
			nodes: counts.nodes,
			edges: counts.edges,
			loadMs,
			snapshot: medianTiming(snapshots),
			detectors,
			rows,
			firstRun,
			secondRun: medianTiming(seconds),
			created: first.created,
		};
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

const results: SizeResult[] = [];
for (const size of sizes) {
	const result = await measure(size);
	results.push(result);
	if (!json) {
		console.log(
			`\n${size} planned nodes (${result.nodes} nodes incl. Insights, ${result.edges} edges), loaded in ${(result.loadMs / 1000).toFixed(1)} s`,
		);
		console.log(`  reflect, first run (${result.created} Insights created) ${fmtT(result.firstRun)}`);
		console.log(`  reflect, next runs (nothing new)       ${fmtT(result.secondRun)}`);
		console.log(`  snapshot                               ${fmtT(result.snapshot)}`);
		for (const id of REFLECT_DETECTORS) console.log(`  ${id.padEnd(38)} ${fmtT(result.detectors[id])}  ${String(result.rows[id]).padStart(3)} rows`);
	}
}

const [prev, last] = results.slice(-2);
const ratio = (a: Timing, b: Timing) => a.cpu / Math.max(0.001, b.cpu);
const ratios: Record<string, number> =
	prev && last
		? {
				snapshot: ratio(last.snapshot, prev.snapshot),
				...Object.fromEntries(REFLECT_DETECTORS.map((id) => [id, ratio(last.detectors[id], prev.detectors[id])])),
				reflect_next_run: ratio(last.secondRun, prev.secondRun),
			}
		: {};
if (json) {
	console.log(JSON.stringify({ results, ratios }, null, 2));
} else if (prev && last) {
	console.log(`\n${last.nodes}/${prev.nodes} CPU time ratio (node ratio ${(last.nodes / prev.nodes).toFixed(1)}):`);
	for (const [id, ratio] of Object.entries(ratios)) console.log(`  ${id.padEnd(24)} ${ratio.toFixed(1)}`);
}
