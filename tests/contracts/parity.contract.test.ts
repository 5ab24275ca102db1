import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HashEmbeddingProvider } from "../../src/engine/embedding/hash-embedding-provider";
import { Memory, type SearchOptions } from "../../src/engine/memory";
import { listInsights, reflect, reviewInsight, type InsightStatus, type ReflectReport } from "../../src/engine/reflect";
import type { WriteContext } from "../../src/engine/write/write-pipeline";
import type { OpenedMemory } from "../../src/nodejs/open-memory";
import { TestClock } from "../engine/skills/skill-fixture";
import { sqliteTestBackend, testBackends, testProfile, type TestBackend } from "./backends";
import { seedReflectFixture } from "./reflect-fixture";

// Every backend other than SQLite must give the answers SQLite gives for the same memory: the same
// Insights from reflect (titles, bodies, confidence, entities, review state) and the same search
// results (shape, order, scores). Ids differ per backend (each write mints its own UUID), so
// entities are compared as `Label:name`.

// With SQLite alone (the default run), a second SQLite memory is compared with the first: reflect
// and search must not depend on anything but the memory's content.
const others = testBackends().filter((b) => b.name !== "sqlite");
const compared = others.length > 0 ? others : [sqliteTestBackend];

interface Side {
	readonly opened: OpenedMemory;
	readonly memory: Memory;
	readonly ctx: WriteContext;
	readonly clock: TestClock;
}

async function open(backend: TestBackend): Promise<Side> {
	const opened = await backend.open();
	const clock = new TestClock("2026-03-01T09:00:00.000Z");
	// One memory over the backend's stores with a fixed clock and a real (hash) embedder, so both
	// sides write identical timestamps and vectors.
	const memory = new Memory({ graph: opened.stores.graph, vectors: opened.stores.vectors, embedder: new HashEmbeddingProvider(64), profile: testProfile(), clock });
	return { opened, memory, ctx: { scope: opened.scope, source: "cli" }, clock };
}

/** The same writes, in the same order, on one side: the reflect fixture plus text to search. */
async function fill(side: Side): Promise<void> {
	await seedReflectFixture(side.memory, side.ctx);
	side.clock.advanceDays(2);
	const text: [string, string, string][] = [
		["Concept", "Backpressure", "slowing producers when consumers lag behind a queue"],
		["Concept", "Rate limiting", "capping requests per client so a queue never floods"],
		["Problem", "Queue floods at night", "consumers lag when the nightly import floods the queue"],
		["Decision", "Bound the import queue", "apply backpressure to the nightly import"],
		["Technology", "RabbitMQ", "message queue used by the Warehouse project"],
	];
	for (const [label, key, description] of text) {
		await side.memory.remember(side.ctx, { label, key, props: { description, tags: ["queue", label.toLowerCase()] } });
		side.clock.advanceDays(1);
	}
	const rel = (fl: string, fk: string, type: string, tl: string, tk: string) => side.memory.relate(side.ctx, { label: fl, key: fk }, type, { label: tl, key: tk });
	await rel("Problem", "Queue floods at night", "SOLVED_BY", "Decision", "Bound the import queue");
	await rel("Decision", "Bound the import queue", "APPLIES", "Concept", "Backpressure");
	await rel("Project", "Warehouse", "USES", "Technology", "RabbitMQ");
	await rel("Project", "Warehouse", "HAS", "Problem", "Queue floods at night");
}

/** A reflect report without ids and timings. */
function reflectFace(report: ReflectReport) {
	return {
		ran_at: report.ran_at,
		label_counts: report.label_counts,
		totals: [report.created, report.refreshed, report.unchanged],
		detectors: report.detectors.map(({ ms: _ms, ...rest }) => rest),
		insights: report.insights.map(({ insight_id: _id, about, ...rest }) => ({ ...rest, about: about.map((a) => `${a.label}:${a.name}`) })),
	};
}

const QUERIES: [string, SearchOptions][] = [
	["queue consumers lag", {}],
	["nightly import", { graph: false }],
	["backpressure", { fusion: "linear" }],
	["idempotency booking", { channels: { vector: false } }],
	["typescript projects", { labels: ["Project", "Technology"] }],
	["rabbitmq warehouse", { channels: { fulltext: false } }],
];

describe.each(compared)("$name gives SQLite's answers for the same memory", (backend) => {
	let lite: Side;
	let other: Side;

	beforeAll(async () => {
		[lite, other] = await Promise.all([open(sqliteTestBackend), open(backend)]);
		await fill(lite);
		await fill(other);
	}, 120_000);
	afterAll(async () => {
		await lite?.opened.close();
		await other?.opened.close();
	});

	it("reflect proposes identical Insights: titles, bodies, confidence, entities, detector reports", async () => {
		const expected = reflectFace(await reflect(lite.memory, lite.ctx));
		const actual = reflectFace(await reflect(other.memory, other.ctx));
		// The fixture has a pattern for every detector: no comparison of empty lists.
		expect(expected.detectors.filter((d) => d.found > 0)).toHaveLength(9);
		expect(expected.insights.length).toBeGreaterThan(10);
		expect(expected.insights.every((i) => i.about.length > 0 && i.body.length > 0)).toBe(true);
		expect(actual).toEqual(expected);
	}, 120_000);

	it("after the same reviews and a changed graph, a second reflect and the Insight list stay identical", async () => {
		for (const side of [lite, other]) {
			side.clock.advanceDays(1);
			const pending = await listInsights(side.memory, side.opened.scope, { status: "pending" });
			await reviewInsight(side.memory, side.ctx, pending[0].title, "approved", "useful");
			await reviewInsight(side.memory, side.ctx, pending[1].title, "dismissed", "noise");
			// A pattern goes away (its Insight is retired) and a new one appears.
			await side.memory.forget(side.ctx, { label: "Person", key: "Elena" });
			await side.memory.relate(side.ctx, { label: "Project", key: "Warehouse" }, "USES", { label: "Technology", key: "TypeScript" });
		}
		const expected = reflectFace(await reflect(lite.memory, lite.ctx));
		expect(reflectFace(await reflect(other.memory, other.ctx))).toEqual(expected);
		expect(expected.totals[0]).toBeGreaterThan(0);
		const statuses: InsightStatus[] = ["pending", "approved", "dismissed"];
		const list = async (side: Side) =>
			(await Promise.all(statuses.map((status) => listInsights(side.memory, side.opened.scope, { status, limit: 500 })))).flat().map(({ insight_id: _id, about, ...rest }) => ({ ...rest, about: about.map((a) => `${a.label}:${a.name}`) }));
		const all = await list(lite);
		expect(new Set(all.map((i) => i.status))).toEqual(new Set(["pending", "approved", "dismissed"]));
		expect(await list(other)).toEqual(all);
	}, 120_000);

	it("search returns the same results in the same shape, order and scores", async () => {
		const face = async (side: Side, q: string, options: SearchOptions) => {
			const view = await side.memory.search(side.opened.scope, q, { limit: 8, ...options });
			return { ...view, results: view.results.map(({ node_id: _id, ...rest }) => rest) };
		};
		// Vector similarities are float32 in sqlite-vec and float64 in Neo4j: equal to ~1e-6.
		type Result = Awaited<ReturnType<typeof face>>["results"][number];
		const close = (v: number): unknown => expect.closeTo(v, 4);
		const near = (r: Result) => ({
			...r,
			score: close(r.score),
			scores: Object.fromEntries(Object.entries(r.scores).map(([k, v]) => [k, close(v)])),
		});
		for (const [q, options] of QUERIES) {
			const expected = await face(lite, q, options);
			expect(expected.results.length, q).toBeGreaterThan(0);
			expect(expected.degraded, q).toBe(false);
			const actual = await face(other, q, options);
			expect(Object.keys(actual).sort(), q).toEqual(Object.keys(expected).sort());
			expect(actual, `${q} ${JSON.stringify(options)}`).toEqual({ ...expected, results: expected.results.map(near) });
		}
		const fulltext = async (side: Side) => (await side.memory.searchFulltext(side.opened.scope, "queue lag", { limit: 5 })).map(({ node_id: _id, ...rest }) => rest);
		expect(await fulltext(other)).toEqual(await fulltext(lite));
	}, 120_000);
});
