import type { Neighbourhood, NodeRecord } from "../../engine/types";
import { relationText } from "./relation-text";

export interface PlacedNode {
	readonly node: NodeRecord;
	readonly depth: number;
	readonly x: number;
	readonly y: number;
}

export interface NeighbourhoodLayout {
	readonly width: number;
	readonly height: number;
	readonly nodes: readonly PlacedNode[];
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
export function layoutNeighbourhood(hood: Neighbourhood, width = 340, height = 300): NeighbourhoodLayout {
	const cx = width / 2;
	const cy = height / 2;
	const r1 = Math.min(width, height) * 0.27;
	const r2 = Math.min(width, height) * 0.45;
	const byName = (a: NodeRecord, b: NodeRecord) => a.label.localeCompare(b.label) || a.key.localeCompare(b.key);
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
	const anchorAngle = (node: NodeRecord): number => {
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
	return { width, height, nodes: [...placed.values()], edges, hidden: hood.nodes.length - (placed.size - 1) };
}

/** Draws the layout as SVG inside `parent`; clicking a node calls `onOpen` with it. */
export function drawNeighbourhood(parent: HTMLElement, layout: NeighbourhoodLayout, onOpen: (node: NodeRecord) => void): SVGSVGElement {
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
	for (const p of layout.nodes) {
		const g = dots.createSvg("g", { cls: `engrama-graph-node depth-${p.depth}${p.node.props.status === "stub" ? " is-stub" : ""}`, attr: { tabindex: 0 } });
		g.createSvg("circle", { attr: { cx: p.x.toFixed(1), cy: p.y.toFixed(1), r: p.depth === 0 ? 9 : p.depth === 1 ? 6 : 4 } });
		// Names for the note and its direct neighbours; the outer ring names itself on hover.
		if (p.depth < 2) {
			// Upper half: label above the dot, lower half: below, so neighbouring labels collide less.
			const above = p.depth === 1 && p.y < layout.height / 2;
			const y = above ? p.y - 10 : p.y + (p.depth === 0 ? 21 : 15);
			const label = g.createSvg("text", { attr: { x: p.x.toFixed(1), y: y.toFixed(1), "text-anchor": "middle" } });
			label.textContent = p.node.key.length > 18 ? `${p.node.key.slice(0, 17)}…` : p.node.key;
		}
		g.createSvg("title").textContent = `${p.node.label}: ${p.node.key}`;
		g.addEventListener("click", () => onOpen(p.node));
	}
	return svg;
}
