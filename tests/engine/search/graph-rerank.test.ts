import { afterEach, describe, expect, it } from "vitest";
import { cohesionScores, findAnchors, nameWords } from "../../../src/engine/search/graph-rerank";
import type { NodeRecord } from "../../../src/engine/types";
import { openSearchMemory, type SearchMemory } from "./search-fixture";

const node = (id: string, key: string): NodeRecord => ({ id, label: "Concept", keyField: "name", key, props: {}, createdAt: "", updatedAt: "" });

describe("graph maths", () => {
	it("reads a name's words the same on the ASCII path as through Unicode's classes, and strips accents from the rest", () => {
		const unicode = (text: string) => (text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).join(" ");
		let ascii = "";
		for (let c = 0; c < 128; c++) ascii += String.fromCharCode(c);
		const texts = ["Project 0 socket cache", "Billing-Portal_v2 (OAuth)", "  x  ", "", "a.b,c;d:e!f?g'h\"i", ascii, ascii.split("").reverse().join(""), "Tab\tand\nnew line\u007f"];
		for (const text of texts) expect(nameWords(text), JSON.stringify(text)).toBe(unicode(text));
		expect(nameWords("Café Müller 2")).toBe("cafe muller 2");
		expect(nameWords("数据库 Ñandú")).toBe(unicode("数据库 Ñandú"));
	});

	it("cohesion sums the other candidates' scores, halving per hop, divided by the window's best", () => {
		const base = new Map([["a", 1], ["b", 0.8], ["c", 0.5], ["lonely", 0.9]]);
		const edges: Record<string, number> = { "a|b": 1, "b|c": 1, "a|c": 2 };
		const distance = (x: string, y: string) => edges[`${x}|${y}`] ?? edges[`${y}|${x}`];
		const c = cohesionScores(base, distance, 0.5);
		// raw: a = 0.8 + 0.5·0.5 = 1.05; b = 1 + 0.5 = 1.5; c = 0.8 + 1·0.5 = 1.3; lonely = 0
		expect(c.get("b")).toBe(1);
		expect(c.get("a")).toBeCloseTo(1.05 / 1.5, 12);
		expect(c.get("c")).toBeCloseTo(1.3 / 1.5, 12);
		expect(c.get("lonely")).toBe(0);
	});

	it("finds nodes whose whole name is in the query, ignoring case and accents", () => {
		const nodes = [node("1", "SQLite"), node("2", "Café Müller"), node("3", "Go"), node("4", "Lite")];
		expect(findAnchors("which projects use sqlite?", nodes).map((n) => n.id)).toEqual(["1"]);
		expect(findAnchors("notes about cafe muller", nodes).map((n) => n.id)).toEqual(["2"]);
		// Under 3 characters never anchors; a name inside a longer word does not either.
		expect(findAnchors("go go go", nodes)).toEqual([]);
		expect(findAnchors("sqlitedb", nodes)).toEqual([]);
	});
});

describe("graph rerank on a real memory", () => {
	let m: SearchMemory;
	afterEach(async () => {
		await m.close();
	});

	it("raises a candidate that sits near other strong candidates above an isolated one", async () => {
		// The graph term alone: neighbour words would raise the connected note in the words channel too (neighbour-words.test.ts).
		m = await openSearchMemory({ search: { neighbourWordsWeight: 0 } });
		await m.remember("Concept", "Isolated eviction note", { description: "cache eviction cache eviction policy" });
		await m.remember("Concept", "Connected eviction note", { description: "cache eviction policy" });
		await m.remember("Concept", "LRU", { description: "least recently used cache eviction" });
		await m.remember("Concept", "TTL expiry", { description: "time based cache eviction" });
		await m.relate(["Concept", "Connected eviction note"], "SIMILAR_TO", ["Concept", "LRU"]);
		await m.relate(["Concept", "Connected eviction note"], "SIMILAR_TO", ["Concept", "TTL expiry"]);

		const order = async (graph: boolean) =>
			(await m.memory.search(m.scope, "cache eviction", { graph, temporal: false })).results.map((r) => r.name);
		const flat = await order(false);
		const reranked = await order(true);
		expect(flat.indexOf("Isolated eviction note")).toBeLessThan(flat.indexOf("Connected eviction note"));
		expect(reranked.indexOf("Connected eviction note")).toBeLessThan(reranked.indexOf("Isolated eviction note"));

		const view = await m.memory.search(m.scope, "cache eviction", { temporal: false });
		const scores = Object.fromEntries(view.results.map((r) => [r.name, r.scores]));
		expect(scores["Connected eviction note"].cohesion).toBe(1);
		expect(scores["Isolated eviction note"].cohesion).toBe(0);
		expect(scores["Isolated eviction note"].graph).toBe(0);
	});

	it("keeps a far better words match first: the graph lifts near-ties, not a weak match over a strong one", async () => {
		// obsidian-hub's "recompile the stylesheet automatically on every save with --watch": the guide that
		// answers was 4th by its words and fell out of the top 5 under two weaker matches linked to others.
		m = await openSearchMemory();
		await m.remember("Concept", "Sass watch guide", { description: "recompile the stylesheet on save: sass watch recompiles the stylesheet automatically" });
		await m.remember("Concept", "Theme notes", { description: "notes about colours, fonts, spacing, icons and the stylesheet of a community theme kept for reference" });
		await m.remember("Concept", "Fonts", { description: "fonts a theme loads, and how the stylesheet names them" });
		await m.remember("Concept", "Icons", { description: "icon sets a theme ships beside its stylesheet" });
		await m.relate(["Concept", "Theme notes"], "RELATED_TO", ["Concept", "Fonts"]);
		await m.relate(["Concept", "Theme notes"], "RELATED_TO", ["Concept", "Icons"]);

		const view = await m.memory.search(m.scope, "recompile the stylesheet with sass watch", { temporal: false });
		const scores = Object.fromEntries(view.results.map((r) => [r.name, r.scores]));
		expect(scores["Theme notes"].cohesion).toBe(1);
		expect(scores["Sass watch guide"].cohesion).toBe(0);
		expect(view.results[0].name).toBe("Sass watch guide");
	});

	it("boosts nodes close to a node the query names, by 1/(1 + hops)", async () => {
		m = await openSearchMemory();
		await m.remember("Technology", "SQLite", { description: "embedded database" });
		await m.remember("Project", "Billing portal", { description: "invoices stored in a database" });
		await m.remember("Problem", "Slow invoice export", { description: "database export is slow" });
		await m.remember("Project", "Photo archive", { description: "a database of photos" });
		await m.relate(["Project", "Billing portal"], "USES", ["Technology", "SQLite"]);
		await m.relate(["Project", "Billing portal"], "HAS", ["Problem", "Slow invoice export"]);

		const view = await m.memory.search(m.scope, "database in SQLite", { temporal: false });
		const anchor = Object.fromEntries(view.results.map((r) => [r.name, r.scores.anchor]));
		expect(anchor.SQLite).toBe(1);
		expect(anchor["Billing portal"]).toBeCloseTo(1 / 2, 5);
		expect(anchor["Slow invoice export"]).toBeCloseTo(1 / 3, 5);
		expect(anchor["Photo archive"]).toBe(0);
		const names = view.results.map((r) => r.name);
		expect(names.indexOf("Billing portal")).toBeLessThan(names.indexOf("Photo archive"));
	});

	it("never walks through archived nodes", async () => {
		m = await openSearchMemory();
		await m.remember("Concept", "Alpha queue", { description: "message queue" });
		await m.remember("Concept", "Hidden bridge", { description: "unrelated" });
		await m.remember("Concept", "Beta queue", { description: "message queue" });
		await m.relate(["Concept", "Alpha queue"], "SIMILAR_TO", ["Concept", "Hidden bridge"]);
		await m.relate(["Concept", "Hidden bridge"], "SIMILAR_TO", ["Concept", "Beta queue"]);
		const linked = await m.memory.search(m.scope, "message queue", { temporal: false });
		expect(linked.results.every((r) => r.scores.cohesion > 0)).toBe(true);
		await m.memory.forget(m.ctx, { label: "Concept", key: "Hidden bridge" });
		const cut = await m.memory.search(m.scope, "message queue", { temporal: false });
		expect(cut.results.map((r) => r.scores.cohesion)).toEqual([0, 0]);
	});
});

describe("graph expansion (graphExpand)", () => {
	let m: SearchMemory;
	afterEach(async () => {
		await m.close();
	});

	it("adds the neighbours of the top candidates at their parent's score × decay, never hubs", async () => {
		m = await openSearchMemory({ search: { graphExpand: 1, expandDecay: 0.5, fanOutCap: 3 } });
		await m.remember("Problem", "Checkout times out", { description: "payment gateway timeout at checkout" });
		await m.remember("Decision", "Retry payments with backoff", { description: "the fix we chose" });
		await m.remember("Technology", "Stripe", { description: "used by many projects" });
		await m.relate(["Problem", "Checkout times out"], "SOLVED_BY", ["Decision", "Retry payments with backoff"]);
		await m.relate(["Problem", "Checkout times out"], "CAUSED_BY", ["Technology", "Stripe"]);
		for (const p of ["Shop", "Billing", "Donations", "Tickets"]) {
			await m.remember("Project", p);
			await m.relate(["Project", p], "USES", ["Technology", "Stripe"]);
		}

		const view = await m.memory.search(m.scope, "gateway timeout", { temporal: false });
		const names = view.results.map((r) => r.name);
		expect(names[0]).toBe("Checkout times out");
		const decision = view.results.find((r) => r.name === "Retry payments with backoff");
		expect(decision?.scores.rrf).toBeCloseTo(0.5 * (view.results[0].scores.rrf ?? 0), 5);
		expect(decision?.scores.fulltext_rank).toBeUndefined();
		// Stripe has 5 relations with a cap of 3: a hub, so it is not pulled in.
		expect(names).not.toContain("Stripe");

		const off = await m.memory.search(m.scope, "gateway timeout", { graph: false });
		expect(off.results.map((r) => r.name)).toEqual(["Checkout times out"]);
	});
});
