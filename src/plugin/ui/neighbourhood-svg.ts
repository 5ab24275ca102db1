import type { NodeRecord } from "../../engine/types";

/** What the picture needs of a node: a graph read or a node of skills.context both fit. */
export type DrawnNode = Pick<NodeRecord, "id" | "label" | "key" | "props">;

/** A neighbourhood to draw: Neighbourhood (the store's) fits, and so does one built from skills.context. */
export interface DrawnNeighbourhood {
	readonly center: DrawnNode;
	readonly nodes: readonly { readonly node: DrawnNode; readonly depth: number }[];
	readonly edges: readonly { readonly fromId: string; readonly type: string; readonly toId: string }[];
	readonly truncated: boolean;
}
import { relationText } from "./relation-text";

export interface PlacedNode {
	readonly node: DrawnNode;
	readonly depth: number;
	readonly x: number;
	readonly y: number;
}

/** A node's name on the picture: where it is drawn and the box it takes (estimated from its length). */
export interface PlacedLabel {
	readonly node: PlacedNode;
	readonly text: string;
	readonly x: number;
	/** The text's baseline. */
	readonly y: number;
	readonly anchor: "start" | "middle" | "end";
	readonly box: Box;
}

export interface Box {
	readonly left: number;
	readonly top: number;
	readonly right: number;
	readonly bottom: number;
}

export interface NeighbourhoodLayout {
	readonly width: number;
	readonly height: number;
	readonly nodes: readonly PlacedNode[];
	/** Names of the note and its direct neighbours, placed so that no two overlap (some may be shortened or left to the hover title). */
	readonly labels: readonly PlacedLabel[];
	readonly edges: readonly { readonly from: PlacedNode; readonly to: PlacedNode; readonly type: string }[];
	/** Nodes left out to keep the picture readable. */
	readonly hidden: number;
}

const MAX_RING_1 = 12;
const MAX_RING_2 = 16;

/**
 * A radial layout: the note's node in the middle, 1-hop neighbours on an inner ring, 2-hop
 * neighbours on an outer ring near the neighbour that reaches them. Deterministic (sorted by
 * label and name) so the same graph always draws the same picture.
 */
export function layoutNeighbourhood(hood: DrawnNeighbourhood, width = 340, height = 300): NeighbourhoodLayout {
	const cx = width / 2;
	const cy = height / 2;
	const r1 = Math.min(width, height) * 0.27;
	const r2 = Math.min(width, height) * 0.45;
	const byName = (a: DrawnNode, b: DrawnNode) => a.label.localeCompare(b.label) || a.key.localeCompare(b.key);
	const ring1All = hood.nodes.filter((n) => n.depth === 1).map((n) => n.node).sort(byName);
	const ring2All = hood.nodes.filter((n) => n.depth === 2).map((n) => n.node).sort(byName);
	const ring1 = ring1All.slice(0, MAX_RING_1);
	const center: PlacedNode = { node: hood.center, depth: 0, x: cx, y: cy };
	const placed = new Map<string, PlacedNode>([[hood.center.id, center]]);
	ring1.forEach((node, i) => {
		const angle = (2 * Math.PI * i) / Math.max(1, ring1.length) - Math.PI / 2;
		placed.set(node.id, { node, depth: 1, x: cx + r1 * Math.cos(angle), y: cy + r1 * Math.sin(angle) });
	});
	// Outer ring: each 2-hop node sits near the first inner node it is linked to.
	const anchorAngle = (node: DrawnNode): number => {
		for (const e of hood.edges) {
			const other = e.fromId === node.id ? e.toId : e.toId === node.id ? e.fromId : null;
			const p = other ? placed.get(other) : undefined;
			if (p && p.depth === 1) return Math.atan2(p.y - cy, p.x - cx);
		}
		return 0;
	};
	const ring2 = ring2All
		.filter((n) => hood.edges.some((e) => (e.fromId === n.id && placed.get(e.toId)?.depth === 1) || (e.toId === n.id && placed.get(e.fromId)?.depth === 1)))
		.slice(0, MAX_RING_2)
		.map((node) => ({ node, angle: anchorAngle(node) }))
		.sort((a, b) => a.angle - b.angle);
	ring2.forEach(({ node }, i) => {
		const angle = (2 * Math.PI * i) / Math.max(1, ring2.length) - Math.PI / 2 + Math.PI / Math.max(2, ring2.length);
		placed.set(node.id, { node, depth: 2, x: cx + r2 * Math.cos(angle), y: cy + r2 * Math.sin(angle) });
	});
	const edges: { from: PlacedNode; to: PlacedNode; type: string }[] = [];
	const seen = new Set<string>();
	for (const e of hood.edges) {
		const from = placed.get(e.fromId);
		const to = placed.get(e.toId);
		const key = `${e.fromId}|${e.type}|${e.toId}`;
		if (!from || !to || seen.has(key)) continue;
		seen.add(key);
		edges.push({ from, to, type: e.type });
	}
	const nodes = [...placed.values()];
	return { width, height, nodes, labels: placeLabels(nodes, width, height), edges, hidden: hood.nodes.length - (placed.size - 1) };
}

/** The label font is 9px (styles.css); 0.62em per character is above the average of UI fonts, so real text fits its box. */
export const LABEL_FONT_PX = 9;
const CHAR_WIDTH = LABEL_FONT_PX * 0.62;
const ASCENT = LABEL_FONT_PX * 0.95;
const DESCENT = LABEL_FONT_PX * 0.3;
/** Label lengths tried in turn; below 11 characters a name says too little ("Stale i…"), so the dot's hover title names it. */
const LENGTHS = [20, 15, 11];

/** `key` in at most `max` characters: cut at a word boundary when one is near, marked with "…". */
export function shortName(key: string, max: number): string {
	if (key.length <= max) return key;
	const cut = key.slice(0, max - 1);
	const space = cut.lastIndexOf(" ");
	return `${(space >= max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

export function dotRadius(depth: number): number {
	return depth === 0 ? 9 : depth === 1 ? 6 : 4;
}

/**
 * Greedy placement: the note's name first, then each neighbour's, trying positions pointing away
 * from the centre first, then around the dot, at full length, then shortened. A position is
 * taken only if its box stays inside the picture and touches no other label and no dot; a name
 * that fits nowhere is left to the dot's hover title.
 */
function placeLabels(nodes: readonly PlacedNode[], width: number, height: number): PlacedLabel[] {
	const center = nodes.find((n) => n.depth === 0);
	const dots: Box[] = nodes.map((n) => {
		const r = dotRadius(n.depth) + 1;
		return { left: n.x - r, top: n.y - r, right: n.x + r, bottom: n.y + r };
	});
	const placed: PlacedLabel[] = [];
	const free = (box: Box) =>
		box.left >= 0 && box.top >= 0 && box.right <= width && box.bottom <= height && !placed.some((l) => intersects(l.box, box, 1)) && !dots.some((d) => intersects(d, box, 0));
	for (const node of nodes.filter((n) => n.depth < 2)) {
		const candidates = labelPositions(node, center);
		let chosen: PlacedLabel | null = null;
		for (const max of LENGTHS) {
			const text = shortName(node.node.key, max);
			for (const c of candidates) {
				const label = { node, text, ...c, box: boxOf(c.x, c.y, c.anchor, text.length) };
				if (free(label.box)) {
					chosen = label;
					break;
				}
			}
			if (chosen || node.node.key.length <= max) break;
		}
		if (chosen) placed.push(chosen);
	}
	return placed;
}

function labelPositions(node: PlacedNode, center: PlacedNode | undefined): { x: number; y: number; anchor: PlacedLabel["anchor"] }[] {
	const gap = dotRadius(node.depth) + 3;
	const below = { x: node.x, y: node.y + gap + ASCENT, anchor: "middle" as const };
	const above = { x: node.x, y: node.y - gap - DESCENT, anchor: "middle" as const };
	const right = { x: node.x + gap, y: node.y + ASCENT / 2 - DESCENT / 2, anchor: "start" as const };
	const left = { x: node.x - gap, y: node.y + ASCENT / 2 - DESCENT / 2, anchor: "end" as const };
	if (!center || node === center) return [below, above, right, left];
	// Away from the centre first: the side the edges do not come from.
	const dx = node.x - center.x;
	const dy = node.y - center.y;
	const outward = Math.abs(dx) > Math.abs(dy) * 0.8 ? (dx > 0 ? right : left) : dy > 0 ? below : above;
	const sideways = dx > 0 ? right : left;
	const vertical = dy > 0 ? below : above;
	return [outward, vertical, sideways, dy > 0 ? above : below, dx > 0 ? left : right].filter((c, i, all) => all.indexOf(c) === i);
}

function boxOf(x: number, y: number, anchor: PlacedLabel["anchor"], length: number): Box {
	const w = length * CHAR_WIDTH;
	const left = anchor === "start" ? x : anchor === "end" ? x - w : x - w / 2;
	return { left, top: y - ASCENT, right: left + w, bottom: y + DESCENT };
}

export function intersects(a: Box, b: Box, pad = 0): boolean {
	return a.left < b.right + pad && b.left < a.right + pad && a.top < b.bottom + pad && b.top < a.bottom + pad;
}

/** Draws the layout as SVG inside `parent`; clicking a node calls `onOpen` with it. */
export function drawNeighbourhood(parent: HTMLElement, layout: NeighbourhoodLayout, onOpen: (node: DrawnNode) => void): SVGSVGElement {
	const svg = parent.createSvg("svg", {
		cls: "engrama-graph",
		attr: { viewBox: `0 0 ${layout.width} ${layout.height}`, role: "img", "aria-label": "Neighbourhood of this note in the graph" },
	});
	const lines = svg.createSvg("g", { cls: "engrama-graph-edges" });
	for (const e of layout.edges) {
		const line = lines.createSvg("line", {
			cls: `engrama-graph-edge depth-${Math.max(e.from.depth, e.to.depth)}`,
			attr: { x1: e.from.x.toFixed(1), y1: e.from.y.toFixed(1), x2: e.to.x.toFixed(1), y2: e.to.y.toFixed(1) },
		});
		line.createSvg("title").textContent = `${e.from.node.key} ${relationText(e.type)} ${e.to.node.key}`;
	}
	const dots = svg.createSvg("g", { cls: "engrama-graph-nodes" });
	const labels = new Map(layout.labels.map((l) => [l.node, l]));
	for (const p of layout.nodes) {
		const g = dots.createSvg("g", { cls: `engrama-graph-node depth-${p.depth}${p.node.props.status === "stub" ? " is-stub" : ""}`, attr: { tabindex: 0 } });
		g.createSvg("circle", { attr: { cx: p.x.toFixed(1), cy: p.y.toFixed(1), r: dotRadius(p.depth) } });
		// Names where the layout found room (see placeLabels); every dot names itself on hover.
		const label = labels.get(p);
		if (label) {
			const text = g.createSvg("text", { attr: { x: label.x.toFixed(1), y: label.y.toFixed(1), "text-anchor": label.anchor } });
			text.textContent = label.text;
		}
		g.createSvg("title").textContent = `${p.node.label}: ${p.node.key}`;
		g.addEventListener("click", () => onOpen(p.node));
	}
	return svg;
}
