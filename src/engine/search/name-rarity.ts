import type { GraphReads } from "../protocols";
import type { PartialScope } from "../types";
import { isStopword } from "./query-text";
import { nameWords } from "./graph-rerank";

/**
 * How much a name the query holds says about what it asks: its rarest word's idf in the memory,
 * scaled to [0, 1] (1: a word only one node holds, 0: a word every node holds). The anchor term
 * weighs a named node by it, so a reference page titled `open`, `add`, `File` or `Inbox` is not
 * lifted over the notes that answer "open the same view in a separate window", while a project
 * or a person the query names still is. Counted with the fulltext channel itself (node rows and
 * passages, up to RARITY_CAP documents), so every backend answers it the same way.
 */
const RARITY_CAP = 200;

/** A word's rarity is kept this long: it moves slowly, and counting a common word costs a search. */
const RARITY_TTL_MS = 60_000;
const RARITY_CACHE_MAX = 2048;

export type NameRarity = (names: readonly string[]) => Promise<Map<string, number>>;

/** Word rarities of one memory, by scope and word, each kept RARITY_TTL_MS (by the search's clock). */
export class RarityCache {
	private readonly words = new Map<string, { rarity: number; at: number }>();

	constructor(private readonly now: () => number) {}

	get(key: string): number | undefined {
		const hit = this.words.get(key);
		return hit && this.now() - hit.at < RARITY_TTL_MS ? hit.rarity : undefined;
	}

	set(key: string, rarity: number): void {
		if (this.words.size >= RARITY_CACHE_MAX) this.words.clear();
		this.words.set(key, { rarity, at: this.now() });
	}
}

/** Rarity of each name in the scope's memory, words looked up through the cache. */
export function nameRarity(graph: GraphReads, scope: PartialScope, cache: RarityCache): NameRarity {
	let total: number | undefined;
	const wordRarity = async (word: string): Promise<number> => {
		const key = `${scope.orgId ?? ""}\u0000${scope.userId ?? ""}\u0000${word}`;
		const known = cache.get(key);
		if (known !== undefined) return known;
		total ??= (await graph.counts(scope)).nodes;
		const df = await documentsHolding(graph, scope, word);
		const rarity = total < 2 ? 1 : df <= 1 ? 1 : df >= total ? 0 : Math.log(total / df) / Math.log(total);
		cache.set(key, rarity);
		return rarity;
	};
	return async (names) => {
		const out = new Map<string, number>();
		for (const name of names) {
			const words = nameWords(name).split(" ").filter((w) => w !== "" && !isStopword(w));
			let best = 0;
			for (const word of new Set(words)) best = Math.max(best, await wordRarity(word));
			out.set(name, best);
		}
		return out;
	};
}

/** Distinct nodes whose row or a passage holds the word, counted up to RARITY_CAP. */
async function documentsHolding(graph: GraphReads, scope: PartialScope, word: string): Promise<number> {
	const query = { text: word, limit: RARITY_CAP, prefix: false };
	const [nodes, passages] = await Promise.all([graph.fulltext(scope, query), graph.searchPassages ? graph.searchPassages(scope, { ...query, limit: RARITY_CAP * 2 }) : Promise.resolve([])]);
	const ids = new Set(nodes.map((h) => h.node.id));
	for (const p of passages) ids.add(p.nodeId);
	return Math.min(ids.size, RARITY_CAP);
}
