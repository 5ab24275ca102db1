import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqliteFulltext, type FulltextTuning } from "../../../src/backends/sqlite/fulltext";
import { SqliteGraphStore } from "../../../src/backends/sqlite/sqlite-graph-store";
import { openDatabase } from "../../../src/backends/sqlite/wasm/open-database";
import type { SqliteConnection } from "../../../src/backends/sqlite/sqlite-connection";
import type { Scope } from "../../../src/engine/types";

// A real in-memory store with a small index; the tunings shrink the planner's sizes so every path
// (rare pass, AND-first, OR fill, bounds, fallback) runs on a few hundred documents.
const SCOPE: Scope = { orgId: "org", userId: "me" };
const OTHER: Scope = { orgId: "org", userId: "someone-else" };
const EXHAUSTIVE: FulltextTuning = { rankAllBelow: Number.POSITIVE_INFINITY, budget: 0, commonWindow: 0, fewLabelled: 0 };
/** Always planned; the common passes see every document, so results must equal the exhaustive ranking. */
const PLANNED_WIDE: FulltextTuning = { rankAllBelow: 0, budget: 15, commonWindow: 100_000, fewLabelled: 10 };
/** Always planned, with common passes that only see the 40 most recent matches. */
const PLANNED_NARROW: FulltextTuning = { rankAllBelow: 0, budget: 5, commonWindow: 40, fewLabelled: 10 };

const VOCABULARY = Array.from({ length: 60 }, (_, i) => `w${i}x`);

function random(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = Math.imul(state ^ (state >>> 15), state | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/** Zipf-like: a few words in most documents, most words in few. */
function words(rand: () => number, n: number): string {
	return Array.from({ length: n }, () => VOCABULARY[Math.min(VOCABULARY.length - 1, Math.floor(VOCABULARY.length * rand() ** 3))]).join(" ");
}

let conn: SqliteConnection;
let store: SqliteGraphStore;
let seq = 0;

async function note(scope: Scope, name: string, description: string, tags: string[] = [], label = "Concept"): Promise<void> {
	seq++;
	await store.mergeNode(scope, {
		label,
		keyField: "name",
		key: name,
		set: { name, description, tags },
		setOnCreate: { engrama_id: `id-${seq}` },
		now: new Date(1_700_000_000_000 + seq).toISOString(),
	});
}

const search = (tuning: FulltextTuning, text: string, options: { limit?: number; prefix?: boolean; labels?: string[]; scope?: Scope } = {}) =>
	new SqliteFulltext(conn, tuning).search(options.scope ?? SCOPE, { text, limit: options.limit ?? 10, prefix: options.prefix, labels: options.labels });

beforeAll(async () => {
	conn = await openDatabase({ path: ":memory:" });
	store = new SqliteGraphStore(conn);
	await store.init();
	const rand = random(42);
	await store.transaction(async () => {
		// Ten old guides hold both "alpha" and "beta" in their names; every later note holds one of
		// them, or neither, in its description, so recency alone would never find the guides.
		for (let i = 0; i < 10; i++) await note(SCOPE, `Alpha beta guide ${i}`, `${words(rand, 6)} alpha beta`);
		// Three old decisions mention the words once, in a long description: never in a ranking window.
		for (let i = 0; i < 3; i++) await note(SCOPE, `Decision ${i}`, `${words(rand, 30)} alpha ${i === 0 ? "beta" : ""}`, [], "Decision");
		for (let i = 0; i < 300; i++) {
			const extra = i % 3 === 0 ? "alpha" : i % 3 === 1 ? "beta" : "";
			await note(SCOPE, `Note ${i}`, `${words(rand, 8)} ${extra}`, [words(rand, 1)]);
		}
		// Another person's memory in the same file, full of the same words.
		for (let i = 0; i < 60; i++) await note(OTHER, `Theirs ${i}`, `alpha beta ${words(rand, 4)} researching`);
		await note(SCOPE, "Rotation log", "researching oauth rotation");
	});
});

afterAll(async () => {
	await store.close();
});

describe("planned fulltext", () => {
	const queries = ["w0x w1x w2x", "w0x w5x w40x", "w3x w7x", "w2x w30x w59x", "w0x w1x", "alpha w9x", "w12x w13x w14x", "w0x", "w50x w0x alpha beta"];

	it("ranks exactly like scoring every match when the common passes see every document", () => {
		for (const text of queries) {
			const expected = search(EXHAUSTIVE, text, { limit: 15 }).map((r) => r.rank);
			const got = search(PLANNED_WIDE, text, { limit: 15 }).map((r) => r.rank);
			expect(got.length, text).toBe(expected.length);
			// Words in half the documents or more are left out of ranking: they add at most 2.2e-6 each.
			got.forEach((rank, i) => expect(Math.abs(rank - expected[i]), `${text} #${i}`).toBeLessThan(1e-4));
		}
	});

	it("returns the same documents as exhaustive ranking, not just equal scores, where scores differ", () => {
		const expected = search(EXHAUSTIVE, "w0x w5x w40x", { limit: 5 });
		const got = search(PLANNED_WIDE, "w0x w5x w40x", { limit: 5 });
		const distinct = (rows: { rank: number }[]) => new Set(rows.map((r) => r.rank.toFixed(6))).size;
		if (distinct(expected) === expected.length) expect(got.map((r) => r.id)).toEqual(expected.map((r) => r.id));
		expect(got[0].id).toBe(expected[0].id);
	});

	it("puts the documents holding every common word first even when they are old (AND first)", () => {
		const hits = search(PLANNED_NARROW, "alpha beta", { limit: 10 });
		expect(hits.map((h) => h.key_value).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `Alpha beta guide ${i}`).sort());
		expect(hits.map((h) => h.rank)).toEqual(search(EXHAUSTIVE, "alpha beta", { limit: 10 }).map((h) => h.rank));
	});

	it("fills from documents holding some of the words when too few hold all of them (OR fill)", () => {
		const hits = search(PLANNED_NARROW, "alpha beta", { limit: 30 });
		expect(hits).toHaveLength(30);
		const text = (h: { props: string }) => String((JSON.parse(h.props) as { description: string }).description);
		expect(hits.slice(0, 10).every((h) => /alpha/.test(text(h)) && /beta/.test(text(h)))).toBe(true);
		expect(hits.slice(10).every((h) => /alpha|beta/.test(text(h)) && !h.key_value.startsWith("Alpha beta guide"))).toBe(true);
		// Ranked best first across both passes.
		expect(hits.map((h) => h.rank)).toEqual([...hits.map((h) => h.rank)].sort((a, b) => a - b));
	});

	it("keeps a rare word's documents first, scored with the common words too", () => {
		const hits = search(PLANNED_NARROW, "oauth alpha beta");
		expect(hits[0].key_value).toBe("Rotation log");
		expect(hits.slice(1, 11).every((h) => h.key_value.startsWith("Alpha beta guide"))).toBe(true);
	});

	it("matches prefixes of long words through the planner", () => {
		expect(search(PLANNED_NARROW, "research", { prefix: true }).map((h) => h.key_value)).toContain("Rotation log");
		expect(search(PLANNED_NARROW, "research", { prefix: false })).toEqual([]);
	});

	it("never returns another scope's documents, even when they fill the ranking window", () => {
		const hits = search(PLANNED_NARROW, "researching alpha beta", { limit: 20 });
		expect(hits).toHaveLength(20);
		expect(hits.every((h) => (JSON.parse(h.props) as { user_id: string }).user_id === "me")).toBe(true);
		expect(hits[0].key_value).toBe("Rotation log");
		expect(search(PLANNED_NARROW, "researching", { scope: OTHER, limit: 100 })).toHaveLength(60);
	});

	it("honours label filters on the planned path", () => {
		expect(search(PLANNED_NARROW, "alpha beta", { labels: ["Person"] })).toEqual([]);
		expect(search(PLANNED_NARROW, "alpha beta", { labels: ["Concept"] })).toHaveLength(10);
		// A label with few nodes: only they are scored, exactly.
		const decisions = search(PLANNED_NARROW, "alpha beta", { labels: ["Decision"] });
		expect(decisions.map((h) => h.key_value)).toEqual(search(EXHAUSTIVE, "alpha beta", { labels: ["Decision"] }).map((h) => h.key_value));
		expect(decisions[0].key_value).toBe("Decision 0");
		expect(decisions).toHaveLength(3);
	});

	it("scores a bounded set for common words: never every match, no fallback to ranking everything", () => {
		const statements: { sql: string; match: unknown }[] = [];
		const recording: SqliteConnection = {
			...conn,
			path: conn.path,
			all: (sql, params) => {
				statements.push({ sql, match: Array.isArray(params) ? params[0] : undefined });
				return conn.all(sql, params);
			},
			get: (sql, params) => conn.get(sql, params),
		};
		// Recency windows span the whole index: 100 reaches past the other scope's 60 newest notes.
		const planner = new SqliteFulltext(recording, { ...PLANNED_NARROW, commonWindow: 100 });
		for (const text of ["alpha beta", "w0x w1x", "oauth w0x", "oauth rotation"]) {
			statements.length = 0;
			expect(planner.search(SCOPE, { text, limit: 10 }).length, text).toBeGreaterThan(0);
			const scored = statements.filter((s) => s.sql.includes("bm25("));
			expect(scored.length, text).toBeGreaterThan(0);
			expect(statements.some((s) => s.sql.includes("ON n.id = f.rowid")), text).toBe(false);
			// Every scoring statement is bounded by recency or by a rare word.
			for (const s of scored) expect(s.sql.includes("rowid >= ?") || String(s.match).includes(`"oauth"`), `${text}: ${String(s.match)}`).toBe(true);
		}
	});

	it("matches the pairs of common words once per search, the recent members read and then ranked", () => {
		const pairMatches: string[] = [];
		const record = (sql: string, params: unknown) => {
			const pairs = (Array.isArray(params) ? params : []).filter((p) => /^\("[^"]+" AND "[^"]+"\) OR \(/.test(String(p)));
			pairMatches.push(...pairs.map(() => sql));
		};
		const recording: SqliteConnection = {
			...conn,
			path: conn.path,
			all: (sql, params) => (record(sql, params), conn.all(sql, params)),
			get: (sql, params) => (record(sql, params), conn.get(sql, params)),
		};
		for (const tuning of [PLANNED_NARROW, PLANNED_WIDE]) {
			pairMatches.length = 0;
			const planned = new SqliteFulltext(recording, tuning).search(SCOPE, { text: "w3x w4x w5x w6x", limit: 10 });
			expect(planned.map((h) => h.key_value)).toEqual(search(tuning, "w3x w4x w5x w6x").map((h) => h.key_value));
			expect(pairMatches).toHaveLength(1);
		}
	});

	it("keeps FTS5 syntax in the query inert", async () => {
		const before = Number(conn.get<{ n: number }>("SELECT count(*) AS n FROM nodes")?.n);
		const plain = search(PLANNED_NARROW, "alpha beta and not near", { limit: 20 }).map((h) => h.id);
		for (const text of [
			`alpha AND NOT beta NEAR`,
			`"alpha" NOT "beta" near`,
			`NEAR(alpha beta) and not`,
			`{name}: alpha ^beta -and not* near`,
		]) {
			expect(search(PLANNED_NARROW, text, { limit: 20 }).map((h) => h.id), text).toEqual(plain);
		}
		for (const text of [`'; DROP TABLE nodes; --`, `alpha" OR "x`, `*`, `""`, `rowid:1 OR 1=1`, `w0x) OR (w1x`]) {
			expect(() => search(PLANNED_NARROW, text), text).not.toThrow();
			expect(() => search(PLANNED_WIDE, text, { prefix: true }), text).not.toThrow();
		}
		expect(Number(conn.get<{ n: number }>("SELECT count(*) AS n FROM nodes")?.n)).toBe(before);
		expect((await store.fulltext(SCOPE, { text: `alpha" OR "beta`, limit: 5 })).length).toBe(5);
	});
});
