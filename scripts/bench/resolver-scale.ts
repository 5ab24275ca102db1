// Entity resolver benchmark: bounded name-candidate fetch, fetch + scoring, full remember
// with two inline relations, and the old linear scan for reference, at several graph sizes; then a
// GDPR forget of a 10k-node scope (nodes, edges, vectors, fulltext, history, name index).
// Usage: npm run bench -- resolver-scale [--sizes 1000,10000,50000] [--queries 300] [--remembers 200] [--gdpr 10000] [--json]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configFromEnv, parseConfig } from "../../src/config/engrama-config";
import { normaliseName, queryFragments, similarity } from "../../src/engine/resolver";
import { createSkills } from "../../src/engine/skills";
import type { WriteContext } from "../../src/engine/write/write-pipeline";
import { openMemory, type OpenedMemory } from "../../src/nodejs/open-memory";
import { arg } from "./args";
import { fmt, percentile, seededRandom, WORDS } from "./stats";

const sizes = arg("sizes", "1000,10000,50000").split(",").filter((x) => x !== "none").map(Number);
const QUERIES = Number(arg("queries", "300"));
const REMEMBERS = Number(arg("remembers", "200"));
const GDPR_NODES = Number(arg("gdpr", "10000"));
const LINEAR_QUERIES = 20;
const json = process.argv.includes("--json");
const LABELS = ["Technology", "Concept", "Project", "Person", "Problem", "Decision"] as const;
const BATCH = 500;

const SYLLABLES = "ka ri to mo ne sa lu vi de po ra zen tor mil gra fen dal qui bro sen nix tal vor lem".split(" ");

/** Names with a realistic spread of words and lengths: dictionary words mixed with made-up ones. */
function nameFactory(seed: number): () => string {
	const rand = seededRandom(seed);
	const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)];
	const pseudo = () => {
		const n = 2 + Math.floor(rand() * 3);
		let word = "";
		for (let i = 0; i < n; i++) word += pick(SYLLABLES);
		return word[0].toUpperCase() + word.slice(1);
	};
	return () => {
		const parts = [pseudo()];
		const extra = Math.floor(rand() * 3);
		for (let i = 0; i < extra; i++) parts.push(rand() < 0.5 ? pick(WORDS) : pseudo());
		return parts.join(" ");
	};
}

function typo(name: string, rand: () => number): string {
	const i = 1 + Math.floor(rand() * (name.length - 2));
	const letter = "abcdefghijklmnopqrstuvwxyz"[Math.floor(rand() * 26)];
	return name.slice(0, i) + letter + name.slice(i + 1);
}

async function open(dir: string, userId: string, dims = false): Promise<OpenedMemory> {
	const env = configFromEnv(process.env, { dbPath: join(dir, "bench.db") });
	return openMemory(parseConfig({ ...env, backend: "sqlite", vectorBackend: dims ? "auto" : "none", dbPath: join(dir, "bench.db"), orgId: "bench", userId }));
}

async function load(opened: OpenedMemory, ctx: WriteContext, names: readonly string[]): Promise<number> {
	const { memory } = opened;
	const start = performance.now();
	for (let from = 0; from < names.length; from += BATCH) {
		await memory.write(() =>
			memory.pipeline.transaction(async () => {
				for (let i = from; i < Math.min(names.length, from + BATCH); i++) {
					await memory.pipeline.mergeEntity(ctx, { label: LABELS[i % LABELS.length], key: names[i], props: { summary: `about ${names[i]}` } });
				}
			}),
		);
	}
	return performance.now() - start;
}

interface Row {
	nodes: number;
	loadPerSec: number;
	fetchP50: number;
	fetchP95: number;
	fetchCpu: number;
	resolveP50: number;
	resolveP95: number;
	resolveCpu: number;
	candidatesAvg: number;
	typoRecall: number;
	rememberP50: number;
	rememberP95: number;
	rememberCpu: number;
	linearP50: number;
	linearCpu: number;
}

/** Wall time and CPU time (user + system) of one call; CPU time is robust to other processes. */
async function timed<T>(fn: () => Promise<T>, wall: number[], cpu: number[]): Promise<T> {
	const c = process.cpuUsage();
	const t = performance.now();
	const value = await fn();
	wall.push(performance.now() - t);
	const d = process.cpuUsage(c);
	cpu.push((d.user + d.system) / 1000);
	return value;
}

function mean(xs: readonly number[]): number {
	return xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
}

async function measure(size: number): Promise<Row> {
	const dir = mkdtempSync(join(tmpdir(), "engrama-bench-resolver-"));
	try {
		const opened = await open(dir, `run-${size}`);
		const { memory, scope } = opened;
		const ctx: WriteContext = { scope, source: "cli" };
		const next = nameFactory(size);
		const seen = new Set<string>();
		const names: string[] = [];
		while (names.length < size) {
			const name = next();
			if (seen.has(normaliseName(name))) continue;
			seen.add(normaliseName(name));
			names.push(name);
		}
		const loadMs = await load(opened, ctx, names);
		const skills = createSkills(memory);
		const rand = seededRandom(size + 7);

		// Queries: a third exact (other case), a third one-letter typos, a third new names.
		const queries: { text: string; expect?: string }[] = [];
		for (let i = 0; i < QUERIES; i++) {
			const existing = names[Math.floor(rand() * names.length)];
			if (i % 3 === 0) queries.push({ text: existing.toUpperCase(), expect: existing });
			else if (i % 3 === 1) queries.push({ text: typo(existing, rand), expect: existing });
			else queries.push({ text: `${next()} ${next()}` });
		}
		// Warm the statement cache and the WASM tiers before timing.
		for (const q of queries.slice(0, 20)) await skills.resolver.candidates(scope, q.text);

		const fetch: number[] = [];
		const fetchCpu: number[] = [];
		const resolve: number[] = [];
		const resolveCpu: number[] = [];
		let candidates = 0;
		let typoHits = 0;
		let typoTotal = 0;
		for (const q of queries) {
			const normalised = normaliseName(q.text);
			const nodes = await timed(
				() => memory.graph.nameCandidates(scope, { normalised, fragments: queryFragments(normalised), limit: 200 }),
				fetch,
				fetchCpu,
			);
			candidates += nodes.length;
			const scored = await timed(() => skills.resolver.candidates(scope, q.text), resolve, resolveCpu);
			if (q.expect && q.text !== q.expect.toUpperCase()) {
				typoTotal++;
				if (scored.slice(0, 5).some((c) => c.node.key === q.expect)) typoHits++;
			}
		}

		// Full remember: a new node with one exact and one typo'd inline target.
		const remember: number[] = [];
		const rememberCpu: number[] = [];
		for (let i = 0; i < REMEMBERS; i++) {
			const a = names[Math.floor(rand() * names.length)];
			const b = names[Math.floor(rand() * names.length)];
			await timed(
				() => skills.remember(ctx, { label: "Concept", name: `${next()} ${i}`, props: { summary: "bench" }, relations: { RELATED_TO: [a, typo(b, rand)] } }),
				remember,
				rememberCpu,
			);
		}

		// The old approach for reference: list every node and score each one.
		const linear: number[] = [];
		const linearCpu: number[] = [];
		for (const q of queries.slice(0, LINEAR_QUERIES)) {
			await timed(
				async () => {
					const all = await memory.graph.listNodes(scope, { includeArchived: true });
					const target = normaliseName(q.text);
					let best = 0;
					for (const n of all) best = Math.max(best, similarity(target, normaliseName(n.key)));
					return best;
				},
				linear,
				linearCpu,
			);
		}
		await opened.close();
		return {
			nodes: size,
			loadPerSec: Math.round((size / loadMs) * 1000),
			fetchP50: percentile(fetch, 50),
			fetchP95: percentile(fetch, 95),
			fetchCpu: mean(fetchCpu),
			resolveP50: percentile(resolve, 50),
			resolveP95: percentile(resolve, 95),
			resolveCpu: mean(resolveCpu),
			candidatesAvg: Math.round(candidates / queries.length),
			typoRecall: typoTotal ? typoHits / typoTotal : 0,
			rememberP50: percentile(remember, 50),
			rememberP95: percentile(remember, 95),
			rememberCpu: mean(rememberCpu),
			linearP50: percentile(linear, 50),
			linearCpu: mean(linearCpu),
		};
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

interface GdprRow {
	nodes: number;
	edges: number;
	vectors: number;
	history: number;
	dryRunMs: number;
	dryRunCpu: number;
	applyMs: number;
	applyCpu: number;
	otherScopeKept: boolean;
}

/** A 10k-node scope with a vector, a relation and a history entry per node, beside a 1k-node scope that must survive. */
async function gdpr(size: number): Promise<GdprRow> {
	const dir = mkdtempSync(join(tmpdir(), "engrama-bench-gdpr-"));
	try {
		const opened = await open(dir, "gdpr-victim", true);
		const { memory, scope } = opened;
		const ctx: WriteContext = { scope, source: "cli" };
		const otherCtx: WriteContext = { scope: { orgId: "bench", userId: "gdpr-bystander" }, source: "cli" };
		const next = nameFactory(size + 99);
		const names = Array.from({ length: size }, (_, i) => `${next()} ${i}`);
		await load(opened, ctx, names);
		await load(opened, otherCtx, names.slice(0, Math.min(1000, size)));
		const rand = seededRandom(3);
		const vector = () => {
			const v = new Float32Array(384);
			for (let i = 0; i < v.length; i++) v[i] = rand() - 0.5;
			return v;
		};
		const nodes = await memory.graph.listNodes(scope, {});
		await memory.write(() =>
			memory.pipeline.transaction(async () => {
				for (let i = 0; i < nodes.length; i++) {
					await memory.pipeline.upsertVector(scope, nodes[i].id, vector());
					await memory.pipeline.mergeRelation(ctx, nodes[i], "RELATED_TO", nodes[(i + 1) % nodes.length]);
					await memory.pipeline.mergeEntity(ctx, { label: nodes[i].label, key: nodes[i].key, props: { notes: "second write" } });
				}
			}),
		);
		const skills = createSkills(memory);
		const otherBefore = await skills.gdprForget(otherCtx, { apply: false });
		const wall: number[] = [];
		const cpu: number[] = [];
		const dry = await timed(() => skills.gdprForget(ctx, { apply: false }), wall, cpu);
		await timed(() => skills.gdprForget(ctx, { apply: true }), wall, cpu);
		const otherAfter = await skills.gdprForget(otherCtx, { apply: false });
		await opened.close();
		return {
			nodes: dry.counts.nodes,
			edges: dry.counts.edges,
			vectors: dry.counts.vectors,
			history: dry.counts.history,
			dryRunMs: wall[0],
			dryRunCpu: cpu[0],
			applyMs: wall[1],
			applyCpu: cpu[1],
			otherScopeKept: JSON.stringify(otherBefore.counts) === JSON.stringify(otherAfter.counts),
		};
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

const rows: Row[] = [];
for (const size of sizes) {
	const row = await measure(size);
	rows.push(row);
	if (!json) console.error(`measured ${size} nodes`);
}
const gdprRow = GDPR_NODES > 0 ? await gdpr(GDPR_NODES) : undefined;

if (json) {
	console.log(JSON.stringify({ rows, gdpr: gdprRow }, null, 2));
} else {
	console.log(`Resolver at scale (SQLite WASM, file database, ${QUERIES} queries and ${REMEMBERS} remembers per size; Node ${process.version})\n`);
	console.log("Wall time (p50 / p95) and mean CPU time per call; ratios use CPU time, which other processes on the machine do not inflate.\n");
	console.log("| nodes | load/s | candidate fetch | fetch + score | candidates | typo in top 5 | remember (2 inline targets) | linear scan (old) |");
	console.log("|---:|---:|---:|---:|---:|---:|---:|---:|");
	for (const r of rows) {
		console.log(
			`| ${r.nodes} | ${r.loadPerSec} | ${fmt(r.fetchP50)} / ${fmt(r.fetchP95)}, cpu ${fmt(r.fetchCpu)} | ${fmt(r.resolveP50)} / ${fmt(r.resolveP95)}, cpu ${fmt(r.resolveCpu)} | ${r.candidatesAvg} | ${(r.typoRecall * 100).toFixed(0)}% | ${fmt(r.rememberP50)} / ${fmt(r.rememberP95)}, cpu ${fmt(r.rememberCpu)} | ${fmt(r.linearP50)}, cpu ${fmt(r.linearCpu)} |`,
		);
	}
	const first = rows[0];
	const last = rows[rows.length - 1];
	if (first && last && last !== first) {
		const x = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
		console.log(
			`\nRatio ${last.nodes}/${first.nodes} (CPU): candidate fetch ${x(last.fetchCpu, first.fetchCpu)}, fetch + score ${x(last.resolveCpu, first.resolveCpu)}, remember ${x(last.rememberCpu, first.rememberCpu)}, linear scan ${x(last.linearCpu, first.linearCpu)}` +
				` (wall p50: fetch ${x(last.fetchP50, first.fetchP50)}, remember ${x(last.rememberP50, first.rememberP50)})`,
		);
	}
	if (gdprRow) {
		console.log(
			`\nGDPR forget of ${gdprRow.nodes} nodes (${gdprRow.edges} relations, ${gdprRow.vectors} vectors, ${gdprRow.history} history entries): dry run ${fmt(gdprRow.dryRunMs)} (cpu ${fmt(gdprRow.dryRunCpu)}), apply ${fmt(gdprRow.applyMs)} (cpu ${fmt(gdprRow.applyCpu)}); other scope untouched: ${gdprRow.otherScopeKept ? "yes" : "NO"}`,
		);
	}
}
