// Vector index options on Neo4j side by side: each option set gets an index of its own over a label
// of its own, holding the same vectors, loaded batch by batch in turn. Then, in interleaved rounds,
// single writes (one node and its vector a transaction, as a keyed remember: the statement's and
// the COMMIT's time, server CPU per write); then, against exact cosine over the same vectors, the
// index's recall (as Neo4jVectorStore.knn asks it: 4 × k from the index, reranked exactly) and its
// search time. A variant "none" has no index (the floor of a vector write).
// Data: "hash" is the scale bench's (the hash embedder over node text, sparse); "dense" is
// clustered dense vectors, closer to a real model's.
// Usage: npm run bench -- neo4j-vector-index --nodes 10000 [--variants default,noquant,ef50,none]
//        [--rounds 4] [--writes 50] [--queries 200] [--data hash|dense] [--server-pid PID] [--populate] [--keep]

import neo4j, { type Session } from "neo4j-driver";
import { HashEmbeddingProvider } from "../../src/engine/embedding/hash-embedding-provider";
import { nodeToText } from "../../src/engine/node-text";
import { arg } from "./args";
import { fmt, percentile, seededRandom, sentence } from "./stats";
import { loadAverage, processCpuMs } from "./proc-cpu";

const nodes = Number(arg("nodes", "10000"));
const dims = Number(arg("dims", "384"));
const rounds = Number(arg("rounds", "4"));
const writesPerRound = Number(arg("writes", "50"));
const queries = Number(arg("queries", "200"));
const data = arg("data", "hash");
const serverPid = arg("server-pid", "");

interface Variant {
	readonly name: string;
	/** indexConfig beyond dimensions and cosine; null: no index at all. */
	readonly config: Record<string, number | boolean> | null;
}
const ALL: Record<string, Variant["config"]> = {
	default: {},
	noquant: { "vector.quantization.enabled": false },
	ef50: { "vector.hnsw.ef_construction": 50 },
	ef32: { "vector.hnsw.ef_construction": 32 },
	"noquant-ef50": { "vector.quantization.enabled": false, "vector.hnsw.ef_construction": 50 },
	"noquant-ef32": { "vector.quantization.enabled": false, "vector.hnsw.ef_construction": 32 },
	m8: { "vector.hnsw.m": 8 },
	"noquant-m8": { "vector.quantization.enabled": false, "vector.hnsw.m": 8 },
	"noquant-m8-ef50": { "vector.quantization.enabled": false, "vector.hnsw.m": 8, "vector.hnsw.ef_construction": 50 },
	none: null,
};
const variants: Variant[] = arg("variants", "default,noquant,ef50,none")
	.split(",")
	.map((name) => {
		if (!(name in ALL)) throw new Error(`unknown variant ${name}; one of ${Object.keys(ALL).join(", ")}`);
		return { name, config: ALL[name] };
	});
const labelOf = (v: Variant) => `VecBench_${v.name.replace(/-/g, "_")}`;
const indexOf = (v: Variant) => `vecbench_${v.name.replace(/-/g, "_")}`;

const serverCpuMs = () => processCpuMs(serverPid);
const load = loadAverage;

// The vectors: the same for every variant, by position.
const LABELS = ["Project", "Concept", "Technology", "Problem", "Decision", "Person"] as const;
const embedder = new HashEmbeddingProvider(dims);
const drand = seededRandom(11);
const gauss = () => Math.sqrt(-2 * Math.log(drand() + 1e-12)) * Math.cos(2 * Math.PI * drand());
const CENTRES = Array.from({ length: 256 }, () => Float32Array.from({ length: dims }, gauss));
function unit(v: Float32Array): Float32Array {
	let s = 0;
	for (const x of v) s += x * x;
	const n = Math.sqrt(s) || 1;
	return v.map((x) => x / n);
}
/** A dense vector near one of 256 centres (a topic), with noise as large as the centre. */
function dense(): Float32Array {
	const c = CENTRES[Math.floor(drand() * CENTRES.length)];
	return unit(Float32Array.from({ length: dims }, (_, d) => c[d] + 1.2 * gauss()));
}
const rand = seededRandom(nodes);
const vectorOf = (i: number): Float32Array =>
	data === "dense" ? dense() : embedder.embedSync(nodeToText({ label: LABELS[i % LABELS.length], key: `${LABELS[i % LABELS.length]} ${i} ${sentence(rand, 2)}`, props: {} }));
const stored: Float32Array[] = Array.from({ length: nodes }, (_, i) => vectorOf(i));
const written: Float32Array[] = Array.from({ length: rounds * writesPerRound }, () =>
	data === "dense" ? dense() : embedder.embedSync(`Concept Single write ${sentence(rand, 10)}`),
);
const qrand = seededRandom(7);
const queryVectors = Array.from({ length: queries }, () => (data === "dense" ? dense() : embedder.embedSync(sentence(qrand, 3))));

const driver = neo4j.driver(process.env.NEO4J_URI ?? "bolt://localhost:7687", neo4j.auth.basic(process.env.NEO4J_USERNAME ?? "neo4j", process.env.NEO4J_PASSWORD ?? ""), {
	disableLosslessIntegers: true,
});
const session: Session = driver.session({ database: process.env.NEO4J_DATABASE || undefined });
const run = (query: string, params: Record<string, unknown> = {}) => session.run(query, params);

async function settle(): Promise<number> {
	const t0 = performance.now();
	let before = serverCpuMs();
	while (serverPid && performance.now() - t0 < 600_000) {
		await new Promise((resolve) => setTimeout(resolve, 3_000));
		const now = serverCpuMs();
		if (now - before < 150) break;
		before = now;
	}
	return (performance.now() - t0) / 1000;
}

// 1. Indexes, then the vectors in batches of 1,000, variant after variant per batch.
for (const v of variants) {
	await run(`MATCH (n:${labelOf(v)}) CALL { WITH n DELETE n } IN TRANSACTIONS OF 5000 ROWS`);
	await run(`DROP INDEX ${indexOf(v)} IF EXISTS`);
	if (v.config) {
		const options = { "vector.dimensions": dims, "vector.similarity_function": "cosine", ...v.config };
		const text = Object.entries(options)
			.map(([k, value]) => `\`${k}\`: ${typeof value === "string" ? `'${value}'` : String(value)}`)
			.join(", ");
		await run(`CREATE VECTOR INDEX ${indexOf(v)} FOR (n:${labelOf(v)}) ON n.embedding OPTIONS {indexConfig: {${text}}}`);
	}
}
await run("CALL db.awaitIndexes(120)");
const loadMs = new Map<string, { wall: number; server: number }>(variants.map((v) => [v.name, { wall: 0, server: 0 }]));
for (let start = 0; start < nodes; start += 1000) {
	const rows = stored.slice(start, start + 1000).map((vec, j) => ({ i: start + j, vector: Array.from(vec) }));
	for (const v of variants) {
		const [s0, t0] = [serverCpuMs(), performance.now()];
		await session.executeWrite((tx) =>
			tx.run(`UNWIND $rows AS row CREATE (n:${labelOf(v)} {i: row.i}) WITH n, row CALL db.create.setNodeVectorProperty(n, 'embedding', row.vector)`, { rows }),
		);
		const m = loadMs.get(v.name);
		if (m) {
			m.wall += performance.now() - t0;
			m.server += serverCpuMs() - s0;
		}
	}
}
console.log(`# ${nodes} ${data} vectors of ${dims} dimensions per variant; load ${load()}`);
console.log("| variant | load: vectors/s | server CPU per vector |");
console.log("|---|---:|---:|");
for (const v of variants) {
	const m = loadMs.get(v.name);
	if (m) console.log(`| ${v.name} | ${Math.round(nodes / (m.wall / 1000))} | ${fmt(m.server / nodes)} |`);
}
console.log(`settle: ${(await settle()).toFixed(0)} s (load ${load()})`);

// 2. Single writes, rounds of `writesPerRound` per variant, interleaved.
interface WriteStats {
	statement: number[];
	commit: number[];
	total: number[];
	serverMs: number;
}
const writes = new Map<string, WriteStats>(variants.map((v) => [v.name, { statement: [], commit: [], total: [], serverMs: 0 }]));
for (let r = 0; r < rounds; r++) {
	for (const v of variants) {
		const w = writes.get(v.name);
		if (!w) continue;
		const s0 = serverCpuMs();
		for (let j = 0; j < writesPerRound; j++) {
			const index = r * writesPerRound + j;
			const t0 = performance.now();
			const tx = session.beginTransaction();
			await tx.run(`CREATE (n:${labelOf(v)} {i: $i}) WITH n CALL db.create.setNodeVectorProperty(n, 'embedding', $vector)`, {
				i: nodes + index,
				vector: Array.from(written[index]),
			});
			const t1 = performance.now();
			await tx.commit();
			const t2 = performance.now();
			w.statement.push(t1 - t0);
			w.commit.push(t2 - t1);
			w.total.push(t2 - t0);
		}
		w.serverMs += serverCpuMs() - s0;
	}
}
console.log(`\n## single writes: ${rounds} rounds × ${writesPerRound} per variant, interleaved; load ${load()}`);
console.log("| variant | write p50 / p95 | COMMIT p50 / p95 | statement p50 | server CPU per write |");
console.log("|---|---:|---:|---:|---:|");
for (const v of variants) {
	const w = writes.get(v.name);
	if (!w) continue;
	const n = w.total.length;
	console.log(
		`| ${v.name} | ${fmt(percentile(w.total, 50))} / ${fmt(percentile(w.total, 95))} | ${fmt(percentile(w.commit, 50))} / ${fmt(percentile(w.commit, 95))} | ${fmt(percentile(w.statement, 50))} | ${fmt(w.serverMs / n)} |`,
	);
}
console.log(`settle: ${(await settle()).toFixed(0)} s (load ${load()})`);

// 3. Recall against exact cosine over every vector of the label, and the search's time.
const all = [...stored, ...written];
const dot = (a: Float32Array, b: Float32Array) => {
	let s = 0;
	for (let d = 0; d < a.length; d++) s += a[d] * b[d];
	return s;
};
/** The exact top k's scores: the k-th is the bar a returned id must reach (ties count as found). */
const exactBar = (q: Float32Array, k: number) => {
	const scores = all.map((vec) => dot(q, vec)).sort((a, b) => b - a);
	return scores[k - 1];
};
const bars = queryVectors.map((q) => ({ at10: exactBar(q, 10), at20: exactBar(q, 20) }));
console.log(`\n## recall against exact cosine (${queries} queries, ${all.length} vectors); load ${load()}`);
console.log("| variant | index top 10 (ask 10) | knn k=10 (ask 40, exact rerank) | knn k=20 (ask 80, the search's) | search ask 80 p50 / p95 | server CPU a search |");
console.log("|---|---:|---:|---:|---:|---:|");
for (const v of variants) {
	if (!v.config) continue;
	const found = { raw10: 0, k10: 0, k20: 0 };
	const times: number[] = [];
	const s0 = serverCpuMs();
	for (let qi = 0; qi < queryVectors.length; qi++) {
		const q = queryVectors[qi];
		const ask = async (k: number) => {
			const t0 = performance.now();
			const res = await run(`CALL db.index.vector.queryNodes($index, $k, $q) YIELD node RETURN node.i AS i`, { index: indexOf(v), k: neo4j.int(k), q: Array.from(q) });
			if (k === 80) times.push(performance.now() - t0);
			return res.records.map((rec) => Number(rec.get("i")));
		};
		const exactTop = (ids: number[], k: number) => ids.map((i) => dot(q, all[i])).sort((a, b) => b - a).slice(0, k);
		found.raw10 += exactTop(await ask(10), 10).filter((s) => s >= bars[qi].at10 - 1e-6).length;
		found.k10 += exactTop(await ask(40), 10).filter((s) => s >= bars[qi].at10 - 1e-6).length;
		found.k20 += exactTop(await ask(80), 20).filter((s) => s >= bars[qi].at20 - 1e-6).length;
	}
	const server = (serverCpuMs() - s0) / (3 * queries);
	const pct = (n: number, k: number) => `${((100 * n) / (k * queries)).toFixed(1)} %`;
	console.log(`| ${v.name} | ${pct(found.raw10, 10)} | ${pct(found.k10, 10)} | ${pct(found.k20, 20)} | ${fmt(percentile(times, 50))} / ${fmt(percentile(times, 95))} | ${fmt(server)} (of 3 asks) |`);
}

// 4. What making the index again over the stored vectors costs (an open that recreates it).
if (process.argv.includes("--populate")) {
	console.log(`\n## the index made again over ${all.length} stored vectors; load ${load()}`);
	console.log("| variant | wall | server CPU |");
	console.log("|---|---:|---:|");
	for (const v of variants) {
		if (!v.config) continue;
		const create = (await run(`SHOW VECTOR INDEXES YIELD name, createStatement WHERE name = $name RETURN createStatement`, { name: indexOf(v) })).records[0].get("createStatement") as string;
		await run(`DROP INDEX ${indexOf(v)}`);
		const [s0, t0] = [serverCpuMs(), performance.now()];
		await run(create);
		await run(`CALL db.awaitIndex($name, 3600)`, { name: indexOf(v) });
		console.log(`| ${v.name} | ${((performance.now() - t0) / 1000).toFixed(1)} s | ${((serverCpuMs() - s0) / 1000).toFixed(1)} s |`);
	}
}

if (!process.argv.includes("--keep")) {
	for (const v of variants) {
		await run(`DROP INDEX ${indexOf(v)} IF EXISTS`);
		await run(`MATCH (n:${labelOf(v)}) CALL { WITH n DELETE n } IN TRANSACTIONS OF 5000 ROWS`);
	}
}
await session.close();
await driver.close();
