// Where the time of one default search goes, channel by channel (search-speed --profile).
// The search runs as Memory.search runs it, over stores wrapped so that every store call is timed
// and charged to the channel that made it; what no store call accounts for is the engine's own
// JavaScript (fusion, graph term, scoring), and the result views (snippets) are timed apart.
// Times are CPU (user + system) of this process: on a shared machine wall time mostly measures
// waiting for a core, and every store call here runs on this thread.
import type { SqliteConnection } from "../../src/backends/sqlite/sqlite-connection";
import type { SqliteGraphStore } from "../../src/backends/sqlite/sqlite-graph-store";
import type { Memory } from "../../src/engine/memory";
import { hybridResultView } from "../../src/engine/memory";
import { HybridSearch } from "../../src/engine/search/hybrid-search";
import { queryTimeCues } from "../../src/engine/temporal/time-mentions";
import type { EmbeddingProvider } from "../../src/engine/protocols";
import type { PartialScope } from "../../src/engine/types";
import { fmt, percentile } from "./stats";

type Totals = Map<string, number>;

/** CPU ms of this process so far. */
function cpuNow(): number {
	const u = process.cpuUsage();
	return (u.user + u.system) / 1000;
}

/** The channel a store call belongs to, by method and arguments (name rarity asks for 200 unprefixed hits). */
function channelOf(method: string, args: readonly unknown[]): string {
	const query = args[1] as { limit?: number; prefix?: boolean } | undefined;
	const rarity = query?.prefix === false && (query.limit ?? 0) >= 200;
	switch (method) {
		case "fulltext":
			return rarity ? "name rarity (fulltext counts)" : "fulltext: nodes";
		case "searchPassages":
			return rarity ? "name rarity (fulltext counts)" : "fulltext: passages";
		case "counts":
			return "name rarity (fulltext counts)";
		case "knn":
		case "dimensions":
		case "getMeta":
			return "vector: knn + checks";
		case "passageKnn":
			return "vector: passages knn";
		case "adjacency":
		case "neighbourhood":
			return "graph: neighbour lists";
		case "getNodeById":
			return "node reads (vector-only hits)";
		default:
			return `other: ${method}`;
	}
}

/** `target` with each method call timed into the current `totals()` under its channel. */
function timed<T extends object>(target: T, totals: () => Totals, name: (method: string, args: readonly unknown[]) => string): T {
	return new Proxy(target, {
		get(obj, prop, receiver) {
			const value = Reflect.get(obj, prop, receiver) as unknown;
			if (typeof value !== "function" || typeof prop !== "string") return value;
			return (...args: unknown[]) => {
				const start = cpuNow();
				const add = () => {
					const channel = name(prop, args);
					totals().set(channel, (totals().get(channel) ?? 0) + cpuNow() - start);
				};
				const out = (value as (...a: unknown[]) => unknown).apply(obj, args);
				if (out instanceof Promise) return out.finally(add);
				add();
				return out;
			};
		},
	});
}

/** Each SQL statement's CPU, summed by its text (cut to 100 characters), while `on()` says so. */
function instrument(conn: SqliteConnection, costs: Map<string, { ms: number; n: number }>, on: () => boolean): void {
	for (const method of ["run", "all", "get", "exec"] as const) {
		const original = (conn[method] as (...a: unknown[]) => unknown).bind(conn);
		(conn as unknown as Record<string, unknown>)[method] = (sql: string, ...rest: unknown[]) => {
			if (!on()) return original(sql, ...rest);
			const start = cpuNow();
			try {
				return original(sql, ...rest);
			} finally {
				const key = sql.replace(/\s+/g, " ").slice(0, 100);
				const entry = costs.get(key) ?? { ms: 0, n: 0 };
				entry.ms += cpuNow() - start;
				entry.n++;
				costs.set(key, entry);
			}
		};
	}
}

/**
 * Per query, ms spent in each channel of Memory.search; printed as mean and p95 over the queries.
 * `cold`: the store's read caches (neighbour lists, degrees) are emptied before each search, as
 * any write between two searches empties them.
 */
export async function profileSearch(memory: Memory, embedder: EmbeddingProvider, scope: PartialScope, texts: readonly string[], cold = false): Promise<string> {
	const forget = () => (memory.graph as unknown as { ctx?: { forgetAdjacency(): void } }).ctx?.forgetAdjacency();
	let totals: Totals = new Map();
	const current = () => totals;
	const searcher = new HybridSearch({
		graph: timed(memory.graph, current, channelOf),
		vectors: memory.vectors ? timed(memory.vectors, current, channelOf) : null,
		embedder: timed(embedder, current, () => "vector: embed query"),
		clock: { now: () => new Date() },
		settings: memory.searcher.settings,
	});
	const perQuery: Totals[] = [];
	const statements = new Map<string, { ms: number; n: number }>();
	let counting = false;
	const conn = (memory.graph as unknown as Partial<SqliteGraphStore>).connection?.();
	if (conn) instrument(conn, statements, () => counting);
	// The first query warms the caches (as the timed modes do), and is not counted.
	for (const [i, text] of [texts[0], ...texts].entries()) {
		totals = new Map();
		if (cold) forget();
		counting = i > 0;
		const t0 = cpuNow();
		const outcome = await searcher.search(scope, text, { limit: 10 });
		const t1 = cpuNow();
		counting = false;
		for (const hit of outcome.hits) hybridResultView(hit, outcome.fusion, text);
		const t2 = cpuNow();
		queryTimeCues(text, new Date());
		const t3 = cpuNow();
		const stores = [...totals.values()].reduce((a, b) => a + b, 0);
		totals.set("temporal: date cues (chrono)", t3 - t2);
		totals.set("engine JS (fusion, graph term, scores; incl. date cues)", t1 - t0 - stores);
		totals.set("result views + snippets", t2 - t1);
		totals.set("total", t2 - t0);
		if (i > 0) perQuery.push(totals);
	}
	const names = [...new Set(perQuery.flatMap((t) => [...t.keys()]))].filter((n) => n !== "total");
	const line = (name: string) => {
		const values = perQuery.map((t) => t.get(name) ?? 0);
		const mean = values.reduce((a, b) => a + b, 0) / values.length;
		return `| ${name} | ${fmt(mean)} | ${fmt(percentile(values, 95))} |`;
	};
	const top = [...statements].sort((a, b) => b[1].ms - a[1].ms).slice(0, 12);
	const perSearch = (ms: number) => fmt(ms / perQuery.length);
	return [
		"| channel | mean CPU ms | p95 CPU ms |",
		"| --- | ---: | ---: |",
		...names.sort().map(line),
		line("total"),
		"",
		"Statements by CPU per search (calls per search):",
		...top.map(([sql, c]) => `${perSearch(c.ms)} (${(c.n / perQuery.length).toFixed(1)}) ${sql}`),
	].join("\n");
}
