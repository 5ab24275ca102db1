// Where a fulltext search's time goes on Neo4j, over a memory neo4j-scale.ts loaded and kept
// (--keep): the scale bench's queries (same seed) in its fulltext mode, `--rounds` times, with
// each search's wall time, client CPU and the server's CPU (/proc, --server-pid), each statement's
// time to answer by position, the slowest searches with their statements, and a PROFILE of the
// slowest search's costliest statement.
// Usage: npm run bench -- neo4j-fulltext-profile --namespace scale-50000-... [--queries 100]
//        [--rounds 3] [--server-pid PID] [--profile]
import { readFileSync } from "node:fs";
import { bindNeo4jOptions } from "../../src/backends/neo4j/neo4j-backend";
import { Neo4jGraphStore } from "../../src/backends/neo4j/neo4j-graph-store";
import type { TracedStatement } from "../../src/backends/neo4j/neo4j-connection";
import { configFromEnv, parseConfig } from "../../src/config/engrama-config";
import { HashEmbeddingProvider } from "../../src/engine/embedding/hash-embedding-provider";
import { Memory } from "../../src/engine/memory";
import { openMemory } from "../../src/nodejs/open-memory";
import { arg } from "./args";
import { fmt, percentile, seededRandom, sentence } from "./stats";

const namespace = arg("namespace", "");
const queries = Number(arg("queries", "100"));
const rounds = Number(arg("rounds", "3"));
const serverPid = arg("server-pid", "");
if (!namespace) throw new Error("--namespace is required (the kept memory of a neo4j-scale run)");

const serverCpuMs = () => {
	if (!serverPid) return Number.NaN;
	const f = readFileSync(`/proc/${serverPid}/stat`, "utf8").split(") ")[1].split(" ");
	return (Number(f[11]) + Number(f[12])) * 10;
};
const clientCpuMs = () => {
	const u = process.cpuUsage();
	return (u.user + u.system) / 1000;
};
const firstLine = (query: string) => query.trim().replace(/\s+/g, " ").slice(0, 100);

const config = parseConfig({ ...configFromEnv(process.env, { dbPath: "/nonexistent" }), backend: "neo4j", orgId: "bench", userId: "scale", profile: "base" });
bindNeo4jOptions(config, { namespace });
const opened = await openMemory(config, { embedder: null });
const graph = opened.memory.graph;
if (!(graph instanceof Neo4jGraphStore)) throw new Error("not a Neo4j memory");
const memory = new Memory({ graph: opened.stores.graph, vectors: opened.stores.vectors, embedder: new HashEmbeddingProvider(384), profile: opened.memory.profile });
const scope = opened.scope;
const qrand = seededRandom(7);
const texts = Array.from({ length: queries }, () => sentence(qrand, 3));
const options = { channels: { vector: false }, graph: false, limit: 10 } as const;

interface Sample {
	text: string;
	wall: number;
	client: number;
	statements: TracedStatement[];
	hits: number;
}
const samples: Sample[] = [];
await memory.search(scope, texts[0], options);
const [s0, t0] = [serverCpuMs(), performance.now()];
for (let r = 0; r < rounds; r++) {
	for (const text of texts) {
		graph.conn.trace = "full";
		graph.conn.resetCounts();
		const [c, t] = [clientCpuMs(), performance.now()];
		const answer = await memory.search(scope, text, options);
		const wall = performance.now() - t;
		samples.push({ text, wall, client: clientCpuMs() - c, statements: graph.conn.resetCounts().statementsRun, hits: answer.results.length });
	}
}
graph.conn.trace = false;
const totalWall = performance.now() - t0;
const serverPerSearch = (serverCpuMs() - s0) / samples.length;
const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
const walls = samples.map((s) => s.wall);
console.log(
	`${samples.length} searches (${queries} queries × ${rounds}): wall p50 ${fmt(percentile(walls, 50))}, p95 ${fmt(percentile(walls, 95))}; client CPU p50 ${fmt(percentile(samples.map((s) => s.client), 50))}; server CPU ${fmt(serverPerSearch)} a search; ${(totalWall / 1000).toFixed(1)} s (load ${load})`,
);
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
