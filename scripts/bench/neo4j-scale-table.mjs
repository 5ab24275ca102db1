// One table of the scale benchmark's steps, SQLite beside Neo4j, for every size run
// (neo4j-scale-run.sh writes a summary JSON per backend and size, then calls this).
// Usage: node scripts/bench/neo4j-scale-table.mjs <summary.json>...
import { readFileSync } from "node:fs";

const runs = process.argv.slice(2).map((file) => JSON.parse(readFileSync(file, "utf8")));
const sizes = [...new Set(runs.map((r) => r.nodes))].sort((a, b) => a - b);
const run = (backend, nodes) => runs.find((r) => r.backend === backend && r.nodes === nodes);
const seconds = (s) => (s === undefined ? "–" : `${s.wallS.toFixed(1)} s`);

console.log("| nodes | step | SQLite | Neo4j | Neo4j / SQLite | SQLite result | Neo4j result | load after (SQLite; Neo4j) |");
console.log("|---:|---|---:|---:|---:|---|---|---|");
for (const nodes of sizes) {
	const sqlite = run("sqlite", nodes);
	const neo4j = run("neo4j", nodes);
	const names = [...new Set([...(sqlite?.steps ?? []), ...(neo4j?.steps ?? [])].map((s) => s.step))];
	for (const name of names) {
		const a = sqlite?.steps.find((s) => s.step === name);
		const b = neo4j?.steps.find((s) => s.step === name);
		const ratio = a && b && a.wallS > 0 ? `${(b.wallS / a.wallS).toFixed(1)}×` : "–";
		console.log(`| ${nodes} | ${name} | ${seconds(a)} | ${seconds(b)} | ${ratio} | ${a?.detail ?? "–"} | ${b?.detail ?? "–"} | ${a?.load ?? "–"}; ${b?.load ?? "–"} |`);
	}
}
