// Where a fulltext search's time goes on Neo4j, over a memory neo4j-scale.ts loaded and kept
// (--keep): the scale bench's queries (same seed) in its fulltext mode, `--rounds` times, with
// each search's wall time, client CPU and the server's CPU (/proc, --server-pid), each statement's
// time to answer by position, the slowest searches with their statements, and a PROFILE of the
// slowest search's costliest statement.
// Usage: npm run bench -- neo4j-fulltext-profile --namespace scale-50000-... [--queries 100]
//        [--rounds 3] [--server-pid PID] [--profile]
//        [--seed N] (the queries' seed, 7 as the scale bench's: another seed asks queries the server never saw)
//        [--fresh] (each round new queries, seeds N, N+1, …: every search a first time)
//        [--clear-plans] (the server's query caches cleared before each search: every statement planned again)
//        [--clear-once] (cleared once, before the first timed search: each statement planned once, as on a new server)
//        [--texts "a b c|d e"] (these queries instead of generated ones)
//        [--warm-counts] (every term count of the memory read into the store's cache before the searches:
//        no search reads its words' counts)

import { bindNeo4jOptions } from "../../src/backends/neo4j/neo4j-backend";
import { Neo4jGraphStore } from "../../src/backends/neo4j/neo4j-graph-store";
import type { TracedStatement } from "../../src/backends/neo4j/neo4j-connection";
import { configFromEnv, parseConfig } from "../../src/config/engrama-config";
import { HashEmbeddingProvider } from "../../src/engine/embedding/hash-embedding-provider";
import { Memory } from "../../src/engine/memory";
import { openMemory } from "../../src/nodejs/open-memory";
import { arg } from "./args";
import { fmt, percentile, seededRandom, sentence } from "./stats";
import { loadAverage, ownCpuMs, processCpuMs } from "./proc-cpu";

const namespace = arg("namespace", "");
const queries = Number(arg("queries", "100"));
const rounds = Number(arg("rounds", "3"));
const serverPid = arg("server-pid", "");
const seed = Number(arg("seed", "7"));
const fresh = process.argv.includes("--fresh");
const clearPlans = process.argv.includes("--clear-plans");
const clearOnce = process.argv.includes("--clear-once");
const warmCounts = process.argv.includes("--warm-counts");
if (!namespace) throw new Error("--namespace is required (the kept memory of a neo4j-scale run)");

const serverCpuMs = () => processCpuMs(serverPid);
const clientCpuMs = ownCpuMs;
const firstLine = (query: string) => query.trim().replace(/\s+/g, " ").slice(0, 100);

const config = parseConfig({ ...configFromEnv(process.env, { dbPath: "/nonexistent" }), backend: "neo4j", orgId: "bench", userId: "scale", profile: "base" });
bindNeo4jOptions(config, { namespace });
const opened = await openMemory(config, { embedder: null });
const graph = opened.memory.graph;
if (!(graph instanceof Neo4jGraphStore)) throw new Error("not a Neo4j memory");
const store: Neo4jGraphStore = graph;
const memory = new Memory({ graph: opened.stores.graph, vectors: opened.stores.vectors, embedder: new HashEmbeddingProvider(384), profile: opened.memory.profile });
const scope = opened.scope;
const queriesOf = (n: number) => {
	const qrand = seededRandom(n);
	return Array.from({ length: queries }, () => sentence(qrand, 3));
};
const given = arg("texts", "");
const texts = given ? given.split("|") : queriesOf(seed);
const options = { channels: { vector: false }, graph: false, limit: 10 } as const;

interface Sample {
	round: number;
	server: number;
	text: string;
	wall: number;
	client: number;
	statements: TracedStatement[];
	hits: number;
}
const samples: Sample[] = [];
/** Every term count of the memory into the store's cache, kept for the run (the cache's time limit set far off). */
async function readAllCounts(): Promise<void> {
	const rows = await store.conn.read((q) => q.run("MATCH (t:EngramaTerm {__ns: $ns}) RETURN t.corpus AS corpus, t.key AS key, t.df AS df, t.len AS len", { ns: namespace }));
	const at = Date.now() + 1e9;
	for (const corpus of ["nodes", "passages"] as const) {
		const hits = new Map<string, number>();
		let stats = { rows: 0, tokens: 0, version: store.ctx.writeVersion, at };
		for (const row of rows.filter((r) => r.corpus === corpus)) {
			if (row.key === "") stats = { rows: Number(row.df), tokens: Number(row.len), version: store.ctx.writeVersion, at };
			else hits.set(String(row.key), Number(row.df));
		}
		store.ctx.ftCache[corpus].stats = stats;
		store.ctx.ftCache[corpus].hits = { version: store.ctx.writeVersion, at, hits };
	}
	// A phrase without a count of its own (several tokens, a short prefix) is still counted by its search.
	console.log(`--warm-counts: ${rows.length} term counts read`);
}
if (warmCounts) await readAllCounts();
await memory.search(scope, fresh ? "warm" : texts[0], options);
if (clearOnce) await store.conn.read((q) => q.run("CALL db.clearQueryCaches()"));
const [s0, t0] = [serverCpuMs(), performance.now()];
for (let r = 0; r < rounds; r++) {
	for (const text of fresh ? queriesOf(seed + r) : texts) {
		if (clearPlans) await graph.conn.read((q) => q.run("CALL db.clearQueryCaches()"));
		graph.conn.trace = "full";
		graph.conn.resetCounts();
		const [c, s, t] = [clientCpuMs(), serverCpuMs(), performance.now()];
		const answer = await memory.search(scope, text, options);
		const wall = performance.now() - t;
		samples.push({ round: r, server: serverCpuMs() - s, text, wall, client: clientCpuMs() - c, statements: graph.conn.resetCounts().statementsRun, hits: answer.results.length });
	}
}
graph.conn.trace = false;
const totalWall = performance.now() - t0;
const serverPerSearch = (serverCpuMs() - s0) / samples.length;
const load = loadAverage();
const walls = samples.map((s) => s.wall);
console.log(
	`${samples.length} searches (${queries} queries × ${rounds}, seed ${seed}${fresh ? ", new queries each round" : ""}${clearPlans ? ", query caches cleared before each" : ""}${clearOnce ? ", query caches cleared before the first" : ""}${warmCounts ? ", term counts cached" : ""}): wall p50 ${fmt(percentile(walls, 50))}, p95 ${fmt(percentile(walls, 95))}; client CPU p50 ${fmt(percentile(samples.map((s) => s.client), 50))}; server CPU ${fmt(serverPerSearch)} a search; ${(totalWall / 1000).toFixed(1)} s (load ${load})`,
);
for (let r = 0; r < rounds; r++) {
	const round = samples.filter((s) => s.round === r);
	const w = round.map((s) => s.wall);
	console.log(
		`  round ${r + 1}: wall p50 ${fmt(percentile(w, 50))}, p95 ${fmt(percentile(w, 95))}; server CPU ${fmt(round.reduce((sum, s) => sum + s.server, 0) / round.length)} a search (during the searches); statements ${(round.reduce((sum, s) => sum + s.statements.length, 0) / round.length).toFixed(2)} a search`,
	);
}
const byStatement = new Map<string, { ms: number[]; chars: number }>();
for (const s of samples) {
	for (const st of s.statements) {
		const entry = byStatement.get(firstLine(st.query)) ?? { ms: [], chars: 0 };
		entry.ms.push(st.ms ?? 0);
		entry.chars += st.query.length;
		byStatement.set(firstLine(st.query), entry);
	}
}
console.log("| statement | runs a search | characters | p50 | p95 |\n|---|---:|---:|---:|---:|");
for (const [q, { ms, chars }] of byStatement) {
	console.log(`| ${q} | ${(ms.length / samples.length).toFixed(2)} | ${Math.round(chars / ms.length)} | ${fmt(percentile(ms, 50))} | ${fmt(percentile(ms, 95))} |`);
}
const byCorpus = new Map<string, number>();
for (const st of samples.flatMap((s) => s.statements)) byCorpus.set(String(st.params.corpus ?? st.params.index), (byCorpus.get(String(st.params.corpus ?? st.params.index)) ?? 0) + 1);
console.log(`statements by corpus or index: ${JSON.stringify(Object.fromEntries(byCorpus))}`);
const slow = [...samples].sort((a, b) => b.wall - a.wall).slice(0, 8);
console.log("\nslowest searches:");
for (const s of slow) console.log(`  ${fmt(s.wall)} "${s.text}" (${s.hits} hits): ${s.statements.map((st) => `${fmt(st.ms ?? 0)} ${firstLine(st.query).slice(0, 40)}`).join("; ")}`);
if (process.argv.includes("--profile")) {
	// The slowest run of each statement kind.
	const worst = new Map<string, TracedStatement>();
	for (const st of samples.flatMap((s) => s.statements)) {
		const known = worst.get(firstLine(st.query));
		if (!known || (st.ms ?? 0) > (known.ms ?? 0)) worst.set(firstLine(st.query), st);
	}
	for (const st of worst.values()) {
		const ops = await graph.conn.profile(st.query, st.params);
		console.log(`\nPROFILE (${fmt(st.ms ?? 0)}) ${firstLine(st.query)}: ${ops.reduce((n, op) => n + op.dbHits, 0)} db hits`);
		for (const op of ops) console.log(`  ${op.operator} ${op.dbHits} hits, ${op.rows} rows${op.details ? `: ${op.details.slice(0, 140)}` : ""}`);
	}
}
await opened.close();
