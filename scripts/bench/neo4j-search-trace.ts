// Where a search's time goes on Neo4j, over a memory neo4j-scale.ts loaded and kept
// (--namespace NAME --keep): the same 100 queries per mode, modes interleaved in rounds (A B A B),
// each search's statements counted and timed by their first line, with the client's and the
// server's CPU per search. Needs the server that holds the memory (NEO4J_* env).
// Usage: npm run bench -- neo4j-search-trace --namespace n4s50k [--queries 100] [--rounds 2]
//        [--now ISO-TIME] [--modes default,default-no-neighbour-words,rrf-no-graph,fulltext] [--server-pid PID]
//        [--seed N] (the queries' seed, 7 as the scale bench's)
//        [--profile] (each distinct statement of each mode's last search PROFILEd: db hits, costliest operators)
//        [--answers FILE] (each mode's pages, ids and scores, written there; when the file exists they
//        are compared with it instead: a change that must not move answers is checked on 50k nodes)
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { bindNeo4jOptions } from "../../src/backends/neo4j/neo4j-backend";
import { Neo4jGraphStore } from "../../src/backends/neo4j/neo4j-graph-store";
import { configFromEnv, parseConfig } from "../../src/config/engrama-config";
import { HashEmbeddingProvider } from "../../src/engine/embedding/hash-embedding-provider";
import { Memory, type SearchOptions } from "../../src/engine/memory";
import type { SearchSettings } from "../../src/engine/search/search-options";
import { openMemory } from "../../src/nodejs/open-memory";
import { arg } from "./args";
import { fmt, percentile, seededRandom, sentence } from "./stats";
import { loadAverage, ownCpuMs, processCpuMs } from "./proc-cpu";

const namespace = arg("namespace", "");
const queries = Number(arg("queries", "100"));
const rounds = Number(arg("rounds", "2"));
const serverPid = arg("server-pid", "");
const answersFile = arg("answers", "");
const profile = process.argv.includes("--profile");
if (!namespace) throw new Error("--namespace NAME: the memory neo4j-scale.ts kept (--namespace NAME --keep)");

interface Mode {
	readonly options: SearchOptions;
	readonly settings?: Partial<SearchSettings>;
}
const ALL: Record<string, Mode> = {
	default: { options: {} },
	"default-no-neighbour-words": { options: {}, settings: { neighbourWordsWeight: 0 } },
	"rrf-no-graph": { options: { graph: false } },
	fulltext: { options: { channels: { vector: false }, graph: false } },
};
const modes = arg("modes", Object.keys(ALL).join(",")).split(",");

// Both in milliseconds.
const serverCpu = () => processCpuMs(serverPid);
const clientCpu = ownCpuMs;
const load = loadAverage;
// Its start and its end: statements that start alike (UNWIND $ids … MATCH) differ in what they return.
const statementName = (query: string) => {
	const flat = query.trim().replace(/\s+/g, " ");
	return flat.length <= 110 ? flat : `${flat.slice(0, 60)} … ${flat.slice(-45)}`;
};

const config = parseConfig({ ...configFromEnv(process.env, { dbPath: "/dev/null" }), backend: "neo4j", orgId: "bench", userId: "scale", profile: "base" });
bindNeo4jOptions(config, { namespace });
const opened = await openMemory(config, { embedder: null });
const graph = opened.stores.graph;
if (!(graph instanceof Neo4jGraphStore)) throw new Error("not a Neo4j memory");
const conn = graph.conn;
const embedder = new HashEmbeddingProvider(384);
// One instant for every search of every run, so the temporal term (and so the scores) compare.
const startedAt = new Date(arg("now", "2026-12-06T00:00:00Z"));
const clock = { now: () => startedAt };
const memories = new Map(
	modes.map((m) => [m, new Memory({ graph, vectors: opened.stores.vectors, embedder, profile: opened.memory.profile, clock, search: ALL[m].settings })]),
);
const scope = opened.scope;
const qrand = seededRandom(Number(arg("seed", "7")));
const texts = Array.from({ length: queries }, () => sentence(qrand, 3));

interface Sample {
	wall: number;
	client: number;
	server: number;
	statements: number;
	roundTrips: number;
}
const samples = new Map<string, Sample[]>(modes.map((m) => [m, []]));
const lastSearch = new Map<string, readonly { query: string; params: Readonly<Record<string, unknown>> }[]>();
const byStatement = new Map<string, Map<string, { calls: number; ms: number }>>(modes.map((m) => [m, new Map()]));
// Mode and query → the page as "id score" lines, from the first round.
const answers = new Map<string, string>();
const earlier: Record<string, string> | undefined = answersFile && existsSync(answersFile) ? (JSON.parse(readFileSync(answersFile, "utf8")) as Record<string, string>) : undefined;

process.stderr.write(`${namespace}: ${texts.length} queries, modes ${modes.join(", ")}, ${rounds} rounds; load before ${load()}\n`);
for (const m of modes) await memories.get(m)?.search(scope, texts[0], ALL[m].options);
for (let round = 0; round < rounds; round++) {
	for (const m of modes) {
		const memory = memories.get(m);
		if (!memory) continue;
		for (const q of texts) {
			conn.trace = "full";
			conn.resetCounts();
			const [c, s, t] = [clientCpu(), serverCpu(), performance.now()];
			const view = await memory.search(scope, q, { ...ALL[m].options, limit: 10 });
			const wall = performance.now() - t;
			const counts = conn.resetCounts();
			conn.trace = false;
			samples.get(m)?.push({ wall, client: clientCpu() - c, server: serverCpu() - s, statements: counts.statements, roundTrips: counts.roundTrips });
			lastSearch.set(m, counts.statementsRun);
			const table = byStatement.get(m);
			for (const st of counts.statementsRun) {
				const key = statementName(st.query);
				const row = table?.get(key) ?? { calls: 0, ms: 0 };
				row.calls++;
				row.ms += st.ms ?? 0;
				table?.set(key, row);
			}
			if (round === 0) answers.set(`${m} | ${q}`, view.results.map((r) => `${r.node_id} ${r.score.toFixed(9)}`).join("\n"));
		}
		process.stderr.write(`round ${round + 1} ${m}: done (load ${load()})\n`);
	}
}

console.log(`\n${namespace}: ${texts.length} queries × ${rounds} rounds, limit 10; load after ${load()}`);
console.log("| mode | p50 | p95 | client CPU p50 | server CPU / search | statements / search | round trips / search |");
console.log("|---|---:|---:|---:|---:|---:|---:|");
for (const m of modes) {
	const s = samples.get(m) ?? [];
	const mean = (f: (x: Sample) => number) => s.reduce((sum, x) => sum + f(x), 0) / Math.max(1, s.length);
	console.log(
		`| ${m} | ${fmt(percentile(s.map((x) => x.wall), 50))} | ${fmt(percentile(s.map((x) => x.wall), 95))} | ${fmt(percentile(s.map((x) => x.client), 50))} | ${serverPid ? fmt(mean((x) => x.server)) : "–"} | ${mean((x) => x.statements).toFixed(1)} | ${mean((x) => x.roundTrips).toFixed(1)} |`,
	);
}
for (const m of modes) {
	const n = samples.get(m)?.length ?? 1;
	console.log(`\n${m}: statements per search (time to answer, summed; parallel ones overlap)`);
	console.log("| statement | calls / search | ms / search | ms / call |");
	console.log("|---|---:|---:|---:|");
	const rows = [...(byStatement.get(m) ?? new Map<string, { calls: number; ms: number }>())].sort((a, b) => b[1].ms - a[1].ms);
	for (const [key, r] of rows) console.log(`| ${key} | ${(r.calls / n).toFixed(2)} | ${(r.ms / n).toFixed(2)} | ${(r.ms / r.calls).toFixed(2)} |`);
}
for (const m of profile ? modes : []) {
	const seen = new Set<string>();
	for (const st of lastSearch.get(m) ?? []) {
		if (seen.has(st.query)) continue;
		seen.add(st.query);
		const ops = await conn.profile(st.query, st.params);
		console.log(`\n${m}: PROFILE ${statementName(st.query)}: ${ops.reduce((sum, op) => sum + op.dbHits, 0)} db hits`);
		for (const op of [...ops].sort((a, b) => b.dbHits - a.dbHits).slice(0, 5)) console.log(`  ${op.operator} ${op.dbHits} hits, ${op.rows} rows${op.details ? `: ${op.details.slice(0, 120)}` : ""}`);
	}
}
if (answersFile && earlier) {
	const moved = [...answers].filter(([key, page]) => key in earlier && earlier[key] !== page);
	const compared = [...answers.keys()].filter((key) => key in earlier).length;
	console.log(`\nanswers compared with ${answersFile}: ${compared} pages, ${moved.length} differ`);
	for (const [key, page] of moved.slice(0, 5)) console.log(`${key}\n  was: ${earlier[key].replace(/\n/g, ", ")}\n  now: ${page.replace(/\n/g, ", ")}`);
} else if (answersFile) {
	writeFileSync(answersFile, JSON.stringify(Object.fromEntries(answers)));
	console.log(`\n${answers.size} pages written to ${answersFile}`);
}
await opened.close();
