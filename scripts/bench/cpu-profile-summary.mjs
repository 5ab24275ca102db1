// Summarises V8 CPU profiles (`node --cpu-prof --cpu-prof-dir=DIR ...`): the top functions by self
// time, then the inclusive time of the named functions (each counted once per sample), per file.
//
//   node scripts/bench/cpu-profile-summary.mjs DIR/*.cpuprofile [--top 15] [functionName ...]
//
// Used for the command line's start-up breakdown (docs/archive/benchmarks-history.md, command line).
import { readFileSync } from "node:fs";

const args = process.argv.slice(2);
const topAt = args.indexOf("--top");
const top = topAt >= 0 ? Number(args.splice(topAt, 2)[1]) : 15;
const files = args.filter((a) => a.endsWith(".cpuprofile"));
const names = args.filter((a) => !a.endsWith(".cpuprofile"));

for (const file of files) {
	const profile = JSON.parse(readFileSync(file, "utf8"));
	const byId = new Map(profile.nodes.map((n) => [n.id, n]));
	const parent = new Map();
	for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
	const self = new Map();
	const inclusive = new Map();
	let total = 0;
	for (let i = 0; i < profile.samples.length; i++) {
		const ms = (profile.timeDeltas[i] ?? 0) / 1000;
		total += ms;
		const leaf = byId.get(profile.samples[i]).callFrame;
		const key = `${leaf.functionName || "(anonymous)"} ${leaf.url.split("/").pop()}`;
		self.set(key, (self.get(key) ?? 0) + ms);
		const seen = new Set();
		for (let id = profile.samples[i]; id !== undefined; id = parent.get(id)) {
			const name = byId.get(id).callFrame.functionName || "(anonymous)";
			if (seen.has(name)) continue;
			seen.add(name);
			inclusive.set(name, (inclusive.get(name) ?? 0) + ms);
		}
	}
	console.log(`${file}: ${total.toFixed(0)} ms sampled on the main thread`);
	for (const [key, ms] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  self ${ms.toFixed(1).padStart(7)} ms  ${key}`);
	for (const name of names) console.log(`  incl ${(inclusive.get(name) ?? 0).toFixed(1).padStart(7)} ms  ${name}`);
}
