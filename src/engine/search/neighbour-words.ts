import type { FulltextHit, NodeRecord } from "../types";
import { NOTE_PROPS } from "../system-props";
import type { GraphWalker } from "./graph-rerank";

/**
 * Words said across a sequence: a conversation's turns answer one another, so what a question asks
 * by meaning is often in the words around the turn that holds the answer ("What is Caroline's
 * relationship status?": "…after that tough breakup" is one turn, "single parent" two turns on).
 * An item's words score takes in the words scores of the items of its own label within `hops`
 * relations of it (the turn before and after, and the ones beyond), each at `weight`: the words a
 * caller could have written into every turn as its context, found at search time instead. Items
 * of another label (the session, the speaker) and hubs carry nothing: they relate to everything.
 * Notes neither give nor take: a note says what it means in its own text, and linked notes are
 * not a sequence (on the vault corpora, sharing their words cost note hit@5; docs/benchmarks-search.md).
 */
export interface NeighbourWords {
	/** Share of a neighbour's words score an item takes in (0: off). */
	readonly weight: number;
	/** How far along relations of the same label (1: the items next to it; 2: and theirs). */
	readonly hops: number;
}

/**
 * The words hits with each item's score raised by its neighbours' (see NeighbourWords): a raised
 * item moves up past the items it now beats, the others keep their order (the named nodes first,
 * passage-hits.ts); an item no word of the query matched but whose neighbours did joins the list,
 * read with `nodesOf` (all in one call: one statement on a server rather than one per item).
 * `limit` caps the list. Without a source (every hit a note) it is the hits. The lists the walk
 * loads (the hits' and those `hops` - 1 along their chains) and those of `next` (ids whose lists
 * the caller reads after: the other channel's candidates) are read in one call before it starts
 * (GraphWalker.readAhead). The last hop's lists are left to the graph term, which needs them only
 * for the items that reach its window (at 50k on Neo4j, reading them ahead cost about what the
 * two statements it saved did: 5 % of searches read them after).
 */
export async function withNeighbourWords(
	hits: readonly FulltextHit[],
	walker: GraphWalker,
	nodesOf: (ids: readonly string[]) => Promise<ReadonlyMap<string, NodeRecord>>,
	options: NeighbourWords,
	limit: number,
	next: readonly string[] = [],
): Promise<FulltextHit[]> {
	const sources = options.weight > 0 && options.hops > 0 ? hits.filter((h) => !isNote(h.node)) : [];
	if (sources.length === 0) return hits.slice(0, limit);
	await walker.readAhead([...hits.map((h) => h.node.id), ...next], { ids: sources.map((h) => h.node.id), hops: options.hops - 1 });
	await preload(walker, sources, options.hops);
	const known = new Map(hits.map((h) => [h.node.id, h]));
	const gain = new Map<string, { label: string; score: number }>();
	for (const hit of sources) {
		for (const id of await sequenceNeighbours(walker, hit.node.id, hit.node.label, options.hops)) {
			const node = known.get(id)?.node;
			if (node && isNote(node)) continue;
			gain.set(id, { label: hit.node.label, score: (gain.get(id)?.score ?? 0) + options.weight * hit.score });
		}
	}
	const unread = [...gain.keys()].filter((id) => !known.has(id));
	const read = unread.length > 0 ? await nodesOf(unread) : new Map<string, NodeRecord>();
	const raised: FulltextHit[] = [];
	for (const [id, g] of gain) {
		const hit = known.get(id);
		const node = hit?.node ?? read.get(id);
		if (node && node.label === g.label && !isNote(node)) raised.push({ node, score: (hit?.score ?? 0) + g.score });
	}
	raised.sort((a, b) => b.score - a.score || a.node.id.localeCompare(b.node.id));
	return mergeInOrder(hits.filter((h) => !gain.has(h.node.id)), raised, limit);
}

/** Two lists, each kept in its order, merged by score (ties to `kept`), at most `limit`. */
function mergeInOrder(kept: readonly FulltextHit[], raised: readonly FulltextHit[], limit: number): FulltextHit[] {
	const out: FulltextHit[] = [];
	let i = 0;
	let j = 0;
	while (out.length < limit && (i < kept.length || j < raised.length)) {
		const takeRaised = j < raised.length && (i >= kept.length || raised[j].score > kept[i].score);
		out.push(takeRaised ? raised[j++] : kept[i++]);
	}
	return out;
}

/** Every neighbour list the walk below reads, loaded hop by hop as the walk sees them (read ahead: no read of their own). */
async function preload(walker: GraphWalker, hits: readonly FulltextHit[], hops: number): Promise<void> {
	const labelOf = new Map(hits.map((h) => [h.node.id, h.node.label]));
	let frontier = [...labelOf.keys()];
	for (let hop = 1; hop < hops && frontier.length > 0; hop++) {
		await walker.load(frontier);
		const next = new Set<string>();
		for (const from of frontier) {
			for (const n of walker.neighbours(from)) {
				const label = labelOf.get(from);
				if (walker.refs.get(n)?.label !== label || labelOf.has(n)) continue;
				if (label !== undefined) labelOf.set(n, label);
				next.add(n);
			}
		}
		frontier = [...next];
	}
	await walker.load(frontier);
}

/** Items of `label` within `hops` relations of `id`, passing only through items of that label that are not hubs. */
async function sequenceNeighbours(walker: GraphWalker, id: string, label: string, hops: number): Promise<Set<string>> {
	const reached = new Set<string>();
	let frontier = [id];
	for (let hop = 0; hop < hops && frontier.length > 0; hop++) {
		await walker.load(frontier);
		const next: string[] = [];
		for (const from of frontier) {
			for (const n of walker.neighbours(from)) {
				if (n === id || reached.has(n) || walker.refs.get(n)?.label !== label || (await walker.isHub(n))) continue;
				if (!inChain(walker, from, label) || (walker.neighbours(n).size > 0 && !inChain(walker, n, label))) continue;
				reached.add(n);
				next.push(n);
			}
		}
		frontier = next;
	}
	return reached;
}

/** Related to at most two items of its label: one link of a chain (a turn to the turns before and after), not a note among linked notes. */
function inChain(walker: GraphWalker, id: string, label: string): boolean {
	let same = 0;
	for (const n of walker.neighbours(id)) if (walker.refs.get(n)?.label === label && ++same > 2) return false;
	return true;
}

/** An item synced from a note of the vault. */
function isNote(node: NodeRecord): boolean {
	return typeof node.props[NOTE_PROPS.path] === "string";
}
