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

export type NameRarity = (names: readonly string[]) => Promise<Map<string, number>>;

/** Rarity of each name, looked up once per word for this search. */
export function nameRarity(graph: GraphReads, scope: PartialScope): NameRarity {
	const byWord = new Map<string, number>();
	let total: number | undefined;
	const wordRarity = async (word: string): Promise<number> => {
		const known = byWord.get(word);
		if (known !== undefined) return known;
		total ??= (await graph.counts(scope)).nodes;
		const df = await documentsHolding(graph, scope, word);
		const rarity = total < 2 ? 1 : df <= 1 ? 1 : df >= total ? 0 : Math.log(total / df) / Math.log(total);
		byWord.set(word, rarity);
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
