// Where do LoCoMo evidence turns rank, channel by channel, when search misses them?
// Usage: npm run bench -- locomo-diagnose <locomo.json> [--conversation i] [--examples n]
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadProfile } from "../../src/engine/profile";
import { HybridSearch } from "../../src/engine/search/hybrid-search";
import { parseLocomo, turnText } from "./locomo/dataset";
import { loadConversation, warmEmbedder, type TurnContext } from "./locomo/load-conversation";
import profileText from "./locomo/profile.yaml";
import { benchEmbedder } from "./locomo/embedder";

const arg = (name: string) => {
	const i = process.argv.indexOf(`--${name}`);
	return i >= 0 ? process.argv[i + 1] : undefined;
};
const all = parseLocomo(JSON.parse(readFileSync(process.argv[2], "utf8")));
const conv = all[Number(arg("conversation") ?? 0)];
const context = process.argv.includes("--context") ? (process.argv[process.argv.indexOf("--context") + 1] as TurnContext) : "none";
const profile = loadProfile([{ file: "profile.yaml", text: profileText }]);
const { embedder } = await benchEmbedder(process.argv, join(".bench-out", "locomo"));
await warmEmbedder(embedder, conv, context);
embedder.save();
const { opened, turnIds } = await loadConversation(conv, profile, embedder, context);
const { memory, scope } = opened;
const deep = new HybridSearch({ graph: memory.graph, vectors: memory.vectors, embedder, clock: memory.clock, settings: { channelK: 200 } });
const order = new Map<string, number>();
const text = new Map<string, string>();
let index = 0;
for (const s of conv.sessions) for (const t of s.turns) {
	order.set(t.diaId, index++);
	text.set(t.diaId, turnText(t));
}
const bucket = (r: number | undefined) => (r === undefined ? ">200" : r <= 10 ? "1-10" : r <= 20 ? "11-20" : r <= 50 ? "21-50" : "51-200");
const hist: Record<string, Record<string, number>> = { fulltext: {}, vector: {}, best: {}, distance: {} };
let misses = 0;
let examples = Number(arg("examples") ?? 8);
for (const q of conv.questions) {
	if (q.category < 1 || q.category > 4 || q.evidence.length === 0) continue;
	const top = (await memory.search(scope, q.question, { limit: 10, graph: false, temporal: false })).results.map((r) => turnIds.get(r.node_id));
	if (q.evidence.some((e) => top.includes(e))) continue;
	misses++;
	const ft = (await deep.search(scope, q.question, { limit: 200, channels: { vector: false }, graph: false, temporal: false })).hits.map((h) => turnIds.get(h.node.id));
	const vec = (await deep.search(scope, q.question, { limit: 200, channels: { fulltext: false }, graph: false, temporal: false })).hits.map((h) => turnIds.get(h.node.id));
	const rank = (list: (string | undefined)[]) => Math.min(...q.evidence.map((e) => (list.indexOf(e) + 1 || Infinity))) || undefined;
	const fr = Number.isFinite(rank(ft)) ? rank(ft) : undefined;
	const vr = Number.isFinite(rank(vec)) ? rank(vec) : undefined;
	const inc = (h: Record<string, number>, k: string) => (h[k] = (h[k] ?? 0) + 1);
	inc(hist.fulltext, bucket(fr));
	inc(hist.vector, bucket(vr));
	inc(hist.best, bucket(Math.min(fr ?? Infinity, vr ?? Infinity) === Infinity ? undefined : Math.min(fr ?? Infinity, vr ?? Infinity)));
	const dist = Math.min(...q.evidence.flatMap((e) => top.slice(0, 5).map((t) => (t && order.has(e) && order.has(t) ? Math.abs((order.get(e) ?? 0) - (order.get(t) ?? 0)) : Infinity))));
	inc(hist.distance, dist <= 1 ? "adjacent" : dist <= 3 ? "2-3 turns" : dist <= 10 ? "4-10" : "far");
	if (examples-- > 0) {
		console.log(`\nQ(${q.category}) ${q.question}`);
		for (const e of q.evidence) console.log(`  evidence ${e}: ${text.get(e)?.slice(0, 140)}  [ft ${fr ?? "-"} vec ${vr ?? "-"}]`);
		for (const t of top.slice(0, 3)) console.log(`  got ${t}: ${t ? text.get(t)?.slice(0, 120) : "(not a turn)"}`);
	}
}
console.log(`\n${conv.id}: ${misses} questions missed at @10 (RRF)`);
for (const [name, h] of Object.entries(hist)) console.log(`${name}: ${JSON.stringify(h)}`);
await opened.close();
