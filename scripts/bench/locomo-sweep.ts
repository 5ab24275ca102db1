// Many search settings over the same LoCoMo memories, loaded once: one row per variant.
// Usage: npm run bench -- locomo-sweep <locomo.json> --variants '[{"rrfK":30},{"channelK":40}]'
//        [--context previous] [--model-dir <models>/<org>/<name> [--dtype q8|fp32]] [--conversations n]
// Each variant is a partial SearchSettings on top of the defaults, run as the default search
// (RRF + graph + temporal); {"mode":"rrf"} in a variant turns the graph and temporal terms off.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadavg } from "node:os";
import { loadProfile } from "../../src/engine/profile";
import { HybridSearch, type SearchSettings } from "../../src/engine/search/hybrid-search";
import { CATEGORY_NAMES, parseLocomo } from "./locomo/dataset";
import { benchEmbedder } from "./locomo/embedder";
import { loadConversation, warmEmbedder, type TurnContext } from "./locomo/load-conversation";
import profileText from "./locomo/profile.yaml";
import { fmt, percentile } from "./stats";

const arg = (name: string) => {
	const i = process.argv.indexOf(`--${name}`);
	return i >= 0 ? process.argv[i + 1] : undefined;
};
type Variant = Partial<SearchSettings> & { mode?: "rrf" | "rrf-graph" };
const variants = JSON.parse(arg("variants") ?? "[{}]") as Variant[];
const context = (arg("context") ?? "none") as TurnContext;
const conversations = parseLocomo(JSON.parse(readFileSync(process.argv[2], "utf8"))).slice(0, Number(arg("conversations") ?? Infinity));
const profile = loadProfile([{ file: "profile.yaml", text: profileText }]);
const { embedder, label } = await benchEmbedder(process.argv, join(".bench-out", "locomo"));

interface Row {
	questions: number;
	any5: number;
	any10: number;
	all10: number;
	mean10: number;
	byCategory: Record<number, [number, number]>;
	latency: number[];
}
const rows: Row[] = variants.map(() => ({ questions: 0, any5: 0, any10: 0, all10: 0, mean10: 0, byCategory: {}, latency: [] }));
const cpu0 = process.cpuUsage();
for (const conv of conversations) {
	await warmEmbedder(embedder, conv, context);
	embedder.save();
	const { opened, turnIds } = await loadConversation(conv, profile, embedder, context);
	const { memory, scope } = opened;
	const engines = variants.map(({ mode: _mode, ...settings }) => new HybridSearch({ graph: memory.graph, vectors: memory.vectors, embedder, clock: memory.clock, settings }));
	for (const q of conv.questions) {
		if (q.category < 1 || q.category > 4 || q.evidence.length === 0) continue;
		for (const [i, engine] of engines.entries()) {
			const graph = variants[i].mode !== "rrf";
			const t0 = performance.now();
			const hits = (await engine.search(scope, q.question, { limit: 10, graph, temporal: graph })).hits;
			const row = rows[i];
			row.latency.push(performance.now() - t0);
			const ranked = hits.map((h) => turnIds.get(h.node.id));
			const found = (k: number) => q.evidence.filter((e) => ranked.slice(0, k).includes(e)).length;
			row.questions++;
			const cat = (row.byCategory[q.category] ??= [0, 0]);
			cat[0]++;
			if (found(5) > 0) row.any5++;
			if (found(10) > 0) {
				row.any10++;
				cat[1]++;
			}
			if (found(10) === q.evidence.length) row.all10++;
			row.mean10 += found(10) / q.evidence.length;
		}
	}
	await opened.close();
}
const cpu = process.cpuUsage(cpu0);
console.log(`\nLoCoMo sweep: ${conversations.length} conversations, embedder ${label}, context ${context}`);
const cats = [1, 2, 3, 4];
console.log(`| variant | any@5 | any@10 | all@10 | mean@10 | ${cats.map((c) => `${c} ${CATEGORY_NAMES[c]} any@10`).join(" | ")} | p50 / p95 |`);
console.log(`| --- | ---: | ---: | ---: | ---: | ${cats.map(() => "---:").join(" | ")} | ---: |`);
for (const [i, r] of rows.entries()) {
	const p = (n: number) => (n / r.questions).toFixed(3);
	console.log(
		`| ${JSON.stringify(variants[i])} | ${p(r.any5)} | ${p(r.any10)} | ${p(r.all10)} | ${p(r.mean10)} | ${cats.map((c) => (r.byCategory[c] ? (r.byCategory[c][1] / r.byCategory[c][0]).toFixed(3) : "-")).join(" | ")} | ${fmt(percentile(r.latency, 50))} / ${fmt(percentile(r.latency, 95))} |`,
	);
}
console.log(`CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s; load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
