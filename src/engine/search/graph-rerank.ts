import type { GraphStore } from "../protocols";
import type { NodeRecord, PartialScope } from "../types";
import { clamp01 } from "./fusion";

export interface GraphRerankSettings {
	/** BFS depth (2). */
	readonly hops: number;
	/** A node with more relations than this is a hub: reached, never walked through (64). */
	readonly fanOutCap: number;
	/** Weight of a candidate d hops away: decay^(d−1) (0.5: halving per hop). */
	readonly cohesionDecay: number;
	/** Weight of closeness to a node the query names (0.5). */
	readonly anchorWeight: number;
}

export interface GraphSignal {
	/** clamp01(cohesion + anchorWeight · anchor): the β term. */
	readonly graph: number;
	/** Σ of the other candidates' scores, halving per hop, divided by the window's maximum. */
	readonly cohesion: number;
	/** 1/(1 + hops) to the nearest node named in the query (1 for the named node itself). */
	readonly anchor: number;
}

/** Distances (in hops, ≤ max) from one node to the nodes reached. */
export type Distances = ReadonlyMap<string, number>;

/** Lowercase words without accents, for matching node names inside a query. */
export function nameWords(text: string): string {
	return (text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).join(" ");
}

/** Nodes whose whole name appears in the query as words (names under 3 characters never do). */
export function findAnchors(query: string, nodes: Iterable<NodeRecord>): NodeRecord[] {
	const haystack = ` ${nameWords(query)} `;
	const out: NodeRecord[] = [];
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

interface Adjacent {
	readonly ids: readonly string[];
	readonly hub: boolean;
}

/** One search's view of the graph around the window: each node's neighbours read at most once. */
export class NeighbourWalker {
	private readonly adjacency = new Map<string, Promise<Adjacent>>();
	readonly seen = new Map<string, NodeRecord>();

	constructor(
		private readonly graph: GraphStore,
		private readonly scope: PartialScope,
		private readonly fanOutCap: number,
	) {}

	private neighbours(id: string): Promise<Adjacent> {
		let found = this.adjacency.get(id);
		if (!found) {
			found = this.graph.neighbourhood(this.scope, id, 1, this.fanOutCap).then((hood) => {
				if (!hood) return { ids: [], hub: false };
				for (const n of hood.nodes) if (!this.seen.has(n.node.id)) this.seen.set(n.node.id, n.node);
				return { ids: hood.nodes.map((n) => n.node.id), hub: hood.truncated };
			});
			this.adjacency.set(id, found);
		}
		return found;
	}

	/** Breadth-first distances from `start`, up to `hops`; hubs are reached but not walked through. */
	async distancesFrom(start: string, hops: number): Promise<Map<string, number>> {
		const dist = new Map<string, number>([[start, 0]]);
		let frontier = [start];
		for (let depth = 1; depth <= hops && frontier.length > 0; depth++) {
			const lists = await Promise.all(frontier.map((id) => this.neighbours(id)));
			const next: string[] = [];
			for (const adjacent of lists) {
				if (adjacent.hub) continue;
				for (const id of adjacent.ids) {
					if (dist.has(id)) continue;
					dist.set(id, depth);
					next.push(id);
				}
			}
			frontier = next;
		}
		return dist;
	}
}

/**
 * The graph term over the fused window: cohesion (a candidate near other strong candidates rises,
 * halving per hop) plus closeness to a node the query names. Reads only the caller's scope, and
 * archived nodes are never walked (the store leaves them out of neighbourhoods).
 */
export async function graphSignals(
	graph: GraphStore,
	scope: PartialScope,
	query: string,
	window: ReadonlyMap<string, number>,
	windowNodes: ReadonlyMap<string, NodeRecord>,
	settings: GraphRerankSettings,
): Promise<{ signals: Map<string, GraphSignal>; anchors: NodeRecord[] }> {
	const walker = new NeighbourWalker(graph, scope, settings.fanOutCap);
	const ids = [...window.keys()];
	const maps = new Map<string, Distances>();
	for (const id of ids) maps.set(id, await walker.distancesFrom(id, settings.hops));

	// Shortest of the two walks: a hub candidate is not walked from, but others reach it.
	const distance = (a: string, b: string): number | undefined => {
		const ab = maps.get(a)?.get(b);
		const ba = maps.get(b)?.get(a);
		if (ab === undefined) return ba;
		return ba === undefined ? ab : Math.min(ab, ba);
	};
	const cohesion = cohesionScores(window, distance, settings.cohesionDecay);

	const known = new Map<string, NodeRecord>(walker.seen);
	for (const [id, node] of windowNodes) known.set(id, node);
	const anchors = findAnchors(query, known.values());

	const signals = new Map<string, GraphSignal>();
	for (const id of ids) {
		let anchor = 0;
		for (const a of anchors) {
			const hops = a.id === id ? 0 : distance(id, a.id);
			if (hops !== undefined) anchor = Math.max(anchor, 1 / (1 + hops));
		}
		const c = cohesion.get(id) ?? 0;
		signals.set(id, { cohesion: c, anchor, graph: clamp01(c + settings.anchorWeight * anchor) });
	}
	return { signals, anchors };
}
