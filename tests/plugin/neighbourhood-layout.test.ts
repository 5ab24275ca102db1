// The neighbourhood picture's names never overlap one another or a dot, even on a crowded graph.
import { describe, expect, test } from "vitest";
import type { EdgeRecord, Neighbourhood, NodeRecord } from "../../src/engine/types";
import { intersects, layoutNeighbourhood, shortName } from "../../src/plugin/ui/neighbourhood-svg";

function node(i: number, key: string, label = "Concept"): NodeRecord {
	return { id: `n${i}`, label, keyField: "name", key, props: {}, createdAt: "2026-01-01T00:00:00Z", updatedAt: "2026-01-01T00:00:00Z" };
}

function edge(fromId: string, toId: string): EdgeRecord {
	return { fromId, toId, type: "RELATES_TO", props: {} } as unknown as EdgeRecord;
}

/** 14 direct neighbours with long names (12 are drawn) and 20 second-hop nodes. */
function dense(): Neighbourhood {
	const center = node(0, "Billing Portal customer onboarding");
	const ring1 = Array.from({ length: 14 }, (_, i) => node(i + 1, `Neighbour number ${i + 1} with a long name`));
	const ring2 = Array.from({ length: 20 }, (_, i) => node(i + 100, `Far ${i}`));
	return {
		center,
		nodes: [...ring1.map((n) => ({ node: n, depth: 1 })), ...ring2.map((n) => ({ node: n, depth: 2 }))],
		edges: [...ring1.map((n) => edge(center.id, n.id)), ...ring2.map((n, i) => edge(ring1[i % ring1.length].id, n.id))],
		truncated: false,
	};
}

describe("neighbourhood labels", () => {
	test.each([
		["dense, panel size", dense(), 340, 300],
		["dense, narrow panel", dense(), 260, 240],
	])("%s: no two label boxes intersect, none covers a dot, all stay inside", (_name, hood, width, height) => {
		const layout = layoutNeighbourhood(hood, width, height);
		expect(layout.labels.length).toBeGreaterThanOrEqual(6);
		expect(layout.labels.some((l) => l.node.depth === 0)).toBe(true);
		for (const [i, a] of layout.labels.entries()) {
			expect(a.box.left).toBeGreaterThanOrEqual(0);
			expect(a.box.top).toBeGreaterThanOrEqual(0);
			expect(a.box.right).toBeLessThanOrEqual(width);
			expect(a.box.bottom).toBeLessThanOrEqual(height);
			for (const b of layout.labels.slice(i + 1)) expect(intersects(a.box, b.box), `"${a.text}" and "${b.text}"`).toBe(false);
			for (const n of layout.nodes) {
				const dot = { left: n.x - 4, top: n.y - 4, right: n.x + 4, bottom: n.y + 4 };
				expect(intersects(a.box, dot), `"${a.text}" over the dot of ${n.node.key}`).toBe(false);
			}
		}
	});

	test("a sparse graph keeps every name, whole", () => {
		const center = node(0, "Idempotency");
		const ring1 = ["Stripe", "Retries", "Webhooks", "Outbox"].map((k, i) => node(i + 1, k));
		const layout = layoutNeighbourhood({ center, nodes: ring1.map((n) => ({ node: n, depth: 1 })), edges: ring1.map((n) => edge(center.id, n.id)), truncated: false });
		expect(layout.labels.map((l) => l.text).sort()).toEqual(["Idempotency", "Outbox", "Retries", "Stripe", "Webhooks"]);
	});

	test("a shortened name is cut at a word and never to a stub of a word", () => {
		expect(shortName("Stale invoice totals after a plan change", 15)).toBe("Stale invoice…");
		expect(shortName("Idempotency", 15)).toBe("Idempotency");
		expect(shortName("Supercalifragilistic", 11)).toBe("Supercalif…");
		const layout = layoutNeighbourhood(dense(), 260, 240);
		for (const label of layout.labels) expect(label.text.replace("…", "").length, label.text).toBeGreaterThanOrEqual(6);
	});
});
