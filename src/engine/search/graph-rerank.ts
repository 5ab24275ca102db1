import type { Adjacency, ChainWalk, GraphReads } from "../protocols";
import type { NodeRecord, PartialScope } from "../types";
import { clamp01 } from "./fusion";

export interface GraphRerankSettings {
	/** Walk depth: 1 or 2 (larger values count as 2). */
	readonly hops: number;
	/** A node with more relations than this is a hub: reached, never walked through (64). */
	readonly fanOutCap: number;
	/** Weight of a candidate d hops away: decay^(d−1) (0.5: halving per hop). */
	readonly cohesionDecay: number;
	/** Weight of closeness to a node the query names (1 by default). */
	readonly anchorWeight: number;
}

export interface GraphSignal {
	/** clamp01(cohesion + anchorWeight · anchor): the β term. */
	readonly graph: number;
	/** Σ of the other candidates' scores, halving per hop, divided by the window's maximum. */
	readonly cohesion: number;
	/** rarity/(1 + hops) to the nearest node named in the query (its name's rarity for the named node itself). */
	readonly anchor: number;
}

/** A node as the walk sees it: enough to name it, not its props. */
export interface NodeRef {
	readonly id: string;
	readonly label: string;
	readonly key: string;
}

/** Names seen lately, as words: the same names come back search after search (the window's neighbours). */
const nameWordsCache = new Map<string, string>();
const NAME_WORDS_KEPT = 4096;

/** Lowercase words without accents, for matching node names inside a query. */
export function nameWords(text: string): string {
	let words = nameWordsCache.get(text);
	if (words === undefined) {
		// ASCII text has no accents to strip and no letters or digits beyond [a-z0-9]: the same words
		// without NFD and the Unicode classes (a search's graph term reads the names of every node in
		// its lists, a thousand or more, and most miss the cache: 3 ms of a 50k search's CPU).
		words = /^\p{ASCII}*$/u.test(text)
			? (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).join(" ")
			: (text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).join(" ");
		if (nameWordsCache.size >= NAME_WORDS_KEPT) nameWordsCache.clear();
		nameWordsCache.set(text, words);
	}
	return words;
}

/**
 * True when the query, as words, is the node's name or one of its aliases: a search for a note by
 * its title, which must find that node first (search's name term), not a note that mentions it.
 */
export function queryNames(queryWords: string, node: Pick<NodeRecord, "key" | "props">): boolean {
	if (queryWords === "") return false;
	if (nameWords(node.key) === queryWords) return true;
	const aliases = node.props.aliases;
	const list = Array.isArray(aliases) ? aliases : typeof aliases === "string" ? aliases.split(",") : [];
	return list.some((alias) => typeof alias === "string" && nameWords(alias) === queryWords);
}

/** Nodes whose whole name appears in the query as words (names under 3 characters never do). */
export function findAnchors<T extends Pick<NodeRef, "key">>(query: string, nodes: Iterable<T>): T[] {
	const haystack = ` ${nameWords(query)} `;
	const out: T[] = [];
	for (const node of nodes) {
		const name = nameWords(node.key);
		if (name.length >= 3 && haystack.includes(` ${name} `)) out.push(node);
	}
	return out;
}

/**
 * Cohesion of each candidate: Σ over the other candidates c within reach of base(c)·decay^(dist−1),
 * divided by the window's maximum (an isolated candidate gets 0). Pure: the distances are given.
 */
export function cohesionScores(
	base: ReadonlyMap<string, number>,
	distance: (a: string, b: string) => number | undefined,
	decay: number,
): Map<string, number> {
	const raw = new Map<string, number>();
	const ids = [...base.keys()];
	for (const d of ids) {
		let total = 0;
		for (const c of ids) {
			if (c === d) continue;
			const hops = distance(d, c);
			if (hops !== undefined && hops > 0) total += (base.get(c) ?? 0) * decay ** (hops - 1);
		}
		raw.set(d, total);
	}
	const peak = Math.max(0, ...raw.values());
	const out = new Map<string, number>();
	for (const [id, v] of raw) out.set(id, peak > 0 ? v / peak : 0);
	return out;
}

interface Entry {
	readonly degree: number;
	readonly neighbours: ReadonlySet<string>;
}

/**
 * One search's view of the graph around its window: neighbour lists read in batches (one
 * statement per batch where the store offers `adjacency`) and kept for the rest of the search.
 * Distances follow a breadth-first walk of up to 2 hops in which hubs (more relations than the
 * cap) are reached but never walked through.
 */
export class GraphWalker {
	private readonly entries = new Map<string, Entry>();
	/** Every node seen so far (the window and its neighbours), by id. */
	readonly refs = new Map<string, NodeRef>();
	/** Relation counts of nodes seen as neighbours (before their own list is read). */
	private readonly degrees = new Map<string, number>();
	/** Lists read ahead and not loaded yet (undefined: asked for, none). */
	private readonly ahead = new Map<string, Adjacency | undefined>();

	constructor(
		private readonly graph: GraphReads,
		private readonly scope: PartialScope,
		private readonly cap: number,
	) {}

	/**
	 * Reads now, in one call, the lists of `ids` and of the chains `along` walks (EdgeStore's
	 * ChainWalk), which the search would otherwise read hop after hop. They stay apart until `load`
	 * asks for them: what the walk has seen (neighbours, degrees, the names the anchors are found
	 * among) grows exactly as it did without reading ahead, so every answer is the same. Stores
	 * without `adjacency` read nothing ahead.
	 */
	async readAhead(ids: Iterable<string>, along: ChainWalk): Promise<void> {
		if (!this.graph.adjacency) return;
		const wanted = [...new Set(ids)].filter((id) => !this.entries.has(id) && !this.ahead.has(id));
		const found = await this.graph.adjacency(this.scope, wanted, this.cap, along);
		// An id asked for and not answered has no list (unknown, archived, another scope's).
		for (const id of wanted) this.ahead.set(id, found.get(id));
		for (const [id, adjacency] of found) if (!this.entries.has(id)) this.ahead.set(id, adjacency);
	}

	/** Reads the neighbour lists of the ids not read yet (those read ahead are taken as they are). */
	async load(ids: Iterable<string>): Promise<void> {
		const missing = [...new Set(ids)].filter((id) => !this.entries.has(id));
		if (missing.length === 0) return;
		const unread = missing.filter((id) => !this.ahead.has(id));
		const found: ReadonlyMap<string, Adjacency> =
			unread.length === 0 ? new Map() : this.graph.adjacency ? await this.graph.adjacency(this.scope, unread, this.cap) : await this.walkOneByOne(unread);
		for (const id of missing) {
			const adjacency = this.ahead.has(id) ? this.ahead.get(id) : found.get(id);
			this.ahead.delete(id);
			const neighbours = new Set<string>();
			for (const n of adjacency?.neighbours ?? []) {
				if (n.id === id) continue;
				neighbours.add(n.id);
				if (!this.refs.has(n.id)) this.refs.set(n.id, { id: n.id, label: n.label, key: n.key });
				if (n.degree >= 0) this.degrees.set(n.id, n.degree);
			}
			this.entries.set(id, { degree: adjacency?.degree ?? 0, neighbours });
		}
	}

	/** The fallback for stores without `adjacency`: one neighbourhood read per node. */
	private async walkOneByOne(ids: readonly string[]): Promise<Map<string, Adjacency>> {
		const out = new Map<string, Adjacency>();
		for (const id of ids) {
			const hood = await this.graph.neighbourhood(this.scope, id, 1, this.cap);
			if (!hood || hood.center.props.status === "archived") continue;
			out.set(id, {
				degree: hood.truncated ? this.cap + 1 : hood.nodes.length,
				// Degree -1: unknown until the neighbour's own list is read.
				neighbours: hood.nodes.map((n) => ({ id: n.node.id, label: n.node.label, key: n.node.key, degree: -1 })),
			});
		}
		return out;
	}

	neighbours(id: string): ReadonlySet<string> {
		return this.entries.get(id)?.neighbours ?? new Set();
	}

	/** Known after the node's own list or a list that holds it was read (the fallback reads it). */
	async isHub(id: string): Promise<boolean> {
		let degree = this.knownDegree(id);
		if (degree === undefined) {
			await this.load([id]);
			degree = this.entries.get(id)?.degree ?? 0;
		}
		return degree > this.cap;
	}

	/** The relation count when known without a read. */
	private knownDegree(id: string): number | undefined {
		return this.entries.get(id)?.degree ?? this.degrees.get(id);
	}

	/**
	 * `distance` without a read or an await, or null when it needs a relation count not read yet:
	 * a window's pairs are hundreds of calls per search, nearly all answered from what is loaded.
	 */
	knownDistance(a: string, b: string, hops: number): number | undefined | null {
		if (a === b) return 0;
		const na = this.neighbours(a);
		const nb = this.neighbours(b);
		if (na.has(b) || nb.has(a)) return 1;
		if (hops < 2) return undefined;
		const hub = (id: string) => {
			const degree = this.knownDegree(id);
			return degree === undefined ? null : degree > this.cap;
		};
		// In `distance`'s order: a count not known yet is read there, and a read adds to `refs`.
		const ha = hub(a);
		if (ha !== false) return ha === null ? null : undefined;
		const hb = hub(b);
		if (hb !== false) return hb === null ? null : undefined;
		const [small, large] = na.size <= nb.size ? [na, nb] : [nb, na];
		for (const m of small) {
			if (!large.has(m)) continue;
			const hm = hub(m);
			if (hm === null) return null;
			if (!hm) return 2;
		}
		return undefined;
	}

	/**
	 * Hops between two nodes whose lists were read (undefined beyond `hops`): 1 when linked; 2
	 * through a shared neighbour that is not a hub, and only from a node that is not a hub itself.
	 */
	async distance(a: string, b: string, hops: number): Promise<number | undefined> {
		const known = this.knownDistance(a, b, hops);
		if (known !== null) return known;
		if (a === b) return 0;
		const na = this.neighbours(a);
		const nb = this.neighbours(b);
		if (na.has(b) || nb.has(a)) return 1;
		if (hops < 2 || (await this.isHub(a)) || (await this.isHub(b))) return undefined;
		const [small, large] = na.size <= nb.size ? [na, nb] : [nb, na];
		for (const m of small) if (large.has(m) && !(await this.isHub(m))) return 2;
		return undefined;
	}
}

/**
 * The graph term over the fused window: cohesion (a candidate near other strong candidates rises,
 * halving per hop) plus closeness to a node the query names. Reads only the caller's scope, and
 * archived nodes are never walked (the store leaves them out of neighbour lists).
 */
export async function graphSignals(
	walker: GraphWalker,
	query: string,
	window: ReadonlyMap<string, number>,
	windowNodes: ReadonlyMap<string, NodeRecord>,
	settings: GraphRerankSettings,
	rarity?: (names: readonly string[]) => Promise<ReadonlyMap<string, number>>,
): Promise<{ signals: Map<string, GraphSignal>; anchors: NodeRef[] }> {
	const ids = [...window.keys()];
	const hops = Math.min(2, Math.max(1, Math.floor(settings.hops)));
	await walker.load(ids);

	// Every pair's distance, in a matrix by window position (not a map keyed by joined ids).
	const at = new Map(ids.map((id, i) => [id, i]));
	const pairs: (number | undefined)[] = new Array<number | undefined>(ids.length * ids.length);
	for (let i = 0; i < ids.length; i++) {
		for (let j = i + 1; j < ids.length; j++) {
			let d = walker.knownDistance(ids[i], ids[j], hops);
			if (d === null) d = await walker.distance(ids[i], ids[j], hops);
			pairs[i * ids.length + j] = d;
			pairs[j * ids.length + i] = d;
		}
	}
	const cohesion = cohesionScores(window, (a, b) => pairs[(at.get(a) ?? 0) * ids.length + (at.get(b) ?? 0)], settings.cohesionDecay);

	const known = new Map<string, NodeRef>(walker.refs);
	for (const [id, node] of windowNodes) known.set(id, { id, label: node.label, key: node.key });
	const anchors = findAnchors(query, known.values());
	// A name of common words (a page titled `open`) says little about the question: it weighs less.
	const weights = rarity && anchors.length > 0 ? await rarity(anchors.map((a) => a.key)) : undefined;
	// A hub anchor is only ever 1 hop away (never walked through): its own list is not needed.
	if (hops >= 2) {
		const lists: string[] = [];
		for (const a of anchors) if (!(await walker.isHub(a.id))) lists.push(a.id);
		await walker.load(lists);
	}

	const signals = new Map<string, GraphSignal>();
	for (const id of ids) {
		let anchor = 0;
		for (const a of anchors) {
			let d = walker.knownDistance(id, a.id, hops);
			if (d === null) d = await walker.distance(id, a.id, hops);
			if (d !== undefined) anchor = Math.max(anchor, (weights?.get(a.key) ?? 1) / (1 + d));
		}
		const c = cohesion.get(id) ?? 0;
		signals.set(id, { cohesion: c, anchor, graph: clamp01(c + settings.anchorWeight * anchor) });
	}
	return { signals, anchors };
}

/**
 * Neighbours of the `top` best candidates that are not candidates yet, each scored
 * parent score × decay (the best parent wins). Hubs are neither expanded nor added.
 */
export async function expandNeighbours(walker: GraphWalker, base: ReadonlyMap<string, number>, top: number, decay: number): Promise<Map<string, number>> {
	const out = new Map<string, number>();
	const parents = [...base].sort((a, b) => b[1] - a[1]).slice(0, top);
	await walker.load(parents.map(([id]) => id));
	for (const [id, score] of parents) {
		if (await walker.isHub(id)) continue;
		for (const neighbour of walker.neighbours(id)) {
			const value = score * decay;
			if (base.has(neighbour) || (out.get(neighbour) ?? -1) >= value || (await walker.isHub(neighbour))) continue;
			out.set(neighbour, value);
		}
	}
	return out;
}
