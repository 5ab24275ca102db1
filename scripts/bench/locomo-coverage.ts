// How often the channels' candidate windows hold any evidence at all (the ceiling of reranking).
// Usage: npm run bench -- locomo-coverage <locomo.json> [--depth 20] [--context previous] [--model-dir <models>/<org>/<name> [--dtype q8|fp32]]
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadProfile } from "../../src/engine/profile";
import { HybridSearch } from "../../src/engine/search/hybrid-search";
import { GraphWalker } from "../../src/engine/search/graph-rerank";
import { parseLocomo } from "./locomo/dataset";
import { loadConversation, warmEmbedder, type TurnContext } from "./locomo/load-conversation";
import profileText from "./locomo/profile.yaml";
import { benchEmbedder } from "./locomo/embedder";

const depthArg = process.argv.indexOf("--depth");
const depth = depthArg > 0 ? Number(process.argv[depthArg + 1]) : 20;
const context = process.argv.includes("--context") ? (process.argv[process.argv.indexOf("--context") + 1] as TurnContext) : "none";
const profile = loadProfile([{ file: "profile.yaml", text: profileText }]);
const { embedder } = await benchEmbedder(process.argv, join(".bench-out", "locomo"));
const counts = { questions: 0, fulltext: 0, vector: 0, union: 0, unionPlusNeighbours: 0, neighboursOfTop5: 0 };
for (const conv of parseLocomo(JSON.parse(readFileSync(process.argv[2], "utf8")))) {
	await warmEmbedder(embedder, conv, context);
	const { opened, turnIds } = await loadConversation(conv, profile, embedder, context);
	const { memory, scope } = opened;
	const deep = new HybridSearch({ graph: memory.graph, vectors: memory.vectors, embedder, clock: memory.clock, settings: { channelK: depth } });
	for (const q of conv.questions) {
		if (q.category < 1 || q.category > 4 || q.evidence.length === 0) continue;
		counts.questions++;
		const run = async (channels: { fulltext?: boolean; vector?: boolean }) =>
			(await deep.search(scope, q.question, { limit: 200, channels, graph: false, temporal: false })).hits.map((h) => h.node.id);
		const ft = await run({ vector: false });
		const vec = await run({ fulltext: false });
		const fused = await run({});
		const has = (ids: Iterable<string>) => q.evidence.some((e) => [...ids].some((id) => turnIds.get(id) === e));
		if (has(ft)) counts.fulltext++;
		if (has(vec)) counts.vector++;
		const union = new Set([...ft, ...vec]);
		if (has(union)) counts.union++;
		const walker = new GraphWalker(memory.graph, scope, 64);
		await walker.load(union);
		const expanded = new Set(union);
		for (const id of union) for (const n of walker.neighbours(id)) expanded.add(n);
		if (has(expanded)) counts.unionPlusNeighbours++;
		const top5 = new Set(fused.slice(0, 5));
		for (const id of fused.slice(0, 5)) for (const n of walker.neighbours(id)) top5.add(n);
		if (has(top5)) counts.neighboursOfTop5++;
	}
	await opened.close();
	embedder.save();
}
console.log(`channel depth ${depth}:`, Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, k === "questions" ? v : (v / counts.questions).toFixed(3)])));
