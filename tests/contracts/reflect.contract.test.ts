import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReflectDetectorId, ReflectEntity, ReflectParams, ReflectRowMap } from "../../src/engine/protocols";
import { reflect } from "../../src/engine/reflect";
import type { WriteContext } from "../../src/engine/write/write-pipeline";
import type { OpenedMemory } from "../../src/node/open-memory";
import { testBackends } from "./backends";
import { seedReflectFixture } from "./reflect-fixture";

// GraphStore.reflectRows is the backend half of reflect: every backend must return these exact
// rows, in this order, for the same graph (src/engine/protocols/reflect-rows.ts defines them), so
// reflect proposes identical Insights on SQLite and Neo4j.

const PARAMS: ReflectParams = { limit: 50, listCap: 20, staleBefore: "2026-01-01T00:00:00.000Z", lowConfidence: 0.3 };

/** Entities as `Label:key` (ids differ per run, so they are checked separately). */
function k(e: ReflectEntity): string {
	return `${e.label}:${e.key}`;
}

function project(value: unknown): unknown {
	if (Array.isArray(value)) return value.map(project);
	if (value && typeof value === "object") {
		const o = value as Record<string, unknown>;
		if (typeof o.id === "string" && typeof o.label === "string" && typeof o.key === "string") return k(o as unknown as ReflectEntity);
		return Object.fromEntries(Object.entries(o).map(([name, v]) => [name, project(v)]));
	}
	return value;
}

describe.each(testBackends())("reflect rows on $name", (backend) => {
	let opened: OpenedMemory;
	let ctx: WriteContext;

	beforeAll(async () => {
		opened = await backend.open();
		ctx = { scope: opened.scope, source: "cli" };
		await seedReflectFixture(opened.memory, ctx);
	});
	afterAll(async () => opened?.close());

	async function rows<D extends ReflectDetectorId>(detector: D, params: Partial<ReflectParams> = {}): Promise<readonly ReflectRowMap[D][]> {
		const graph = opened.memory.graph;
		if (!graph.reflectRows) throw new Error(`${backend.name} has no GraphStore.reflectRows: reflect cannot run on it`);
		return graph.reflectRows(opened.scope, detector, { ...PARAMS, ...params });
	}

	it("1. cross-project solution", async () => {
		expect(project(await rows("cross_project_solution"))).toEqual([
			{
				open: "Problem:Double booking",
				openProjects: ["Project:Booking"],
				resolved: "Problem:Double charge",
				resolvedProjects: ["Project:Portal"],
				concepts: ["Concept:Idempotency"],
				decisions: ["Decision:Store event ids"],
			},
		]);
	});

	it("2. shared technology, pairs in entity order", async () => {
		expect(project(await rows("shared_technology"))).toEqual([
			{ technology: "Technology:TypeScript", a: "Project:Booking", aVia: "USES", b: "Course:Bootcamp", bVia: "TEACHES" },
			{ technology: "Technology:TypeScript", a: "Project:Booking", aVia: "USES", b: "Project:Portal", bVia: "USES" },
			{ technology: "Technology:TypeScript", a: "Course:Bootcamp", aVia: "TEACHES", b: "Project:Portal", bVia: "USES" },
		]);
		expect(project(await rows("shared_technology", { limit: 2 }))).toHaveLength(2);
	});

	it("3. training opportunity", async () => {
		expect(project(await rows("training_opportunity"))).toEqual([
			{ concept: "Concept:Cache Invalidation", issues: ["Problem:Stale dashboard", "Problem:Stale totals"], issueCount: 2 },
		]);
	});

	it("4. technique transfer", async () => {
		expect(project(await rows("technique_transfer"))).toEqual([
			{
				technique: "Concept:Token Rotation",
				from: "Project:Portal",
				to: "Project:Booking",
				evidence: ["Problem:Flaky refresh"],
				shared: ["Technology:TypeScript", "Domain:Web"],
				sharedCount: 2,
			},
		]);
	});

	it("5. concept clustering", async () => {
		expect(project(await rows("concept_clustering"))).toEqual([
			{
				concept: "Concept:Idempotency",
				members: ["Course:Bootcamp", "Problem:Double booking", "Problem:Double charge", "Decision:Store event ids"],
				memberCount: 4,
			},
		]);
		expect(project(await rows("concept_clustering", { listCap: 2 }))).toEqual([
			{ concept: "Concept:Idempotency", members: ["Course:Bootcamp", "Problem:Double booking"], memberCount: 4 },
		]);
	});

	it("6. stale knowledge", async () => {
		const found = await rows("stale_knowledge");
		expect(project(found)).toEqual([
			{ node: "Technology:Express", lastUpdated: "2025-07-01", confidence: 1, active: [{ entity: "Course:Bootcamp", type: "TEACHES", direction: "in" }] },
			{ node: "Technology:Moment", lastUpdated: found[1]?.lastUpdated, confidence: 0.2, active: [{ entity: "Project:Portal", type: "USES", direction: "in" }] },
		]);
	});

	it("7. under-connected, in degree then code-point order", async () => {
		const found = await rows("under_connected");
		expect(found.map((r) => [k(r.node), r.degree])).toEqual([
			["Concept:CRDTs", 0],
			["Technology:Express", 1],
			["Technology:Moment", 1],
			["Project:Old Site", 1],
			["Person:Pablo", 1],
			["Technology:Python", 1],
			["Concept:Token Rotation", 1],
			["Technology:jQuery", 1],
		]);
		expect(project(found[4].neighbours)).toEqual([{ entity: "Project:Warehouse", type: "BELONGS_TO", direction: "out" }]);
	});

	it("8. hub stubs", async () => {
		expect(project(await rows("hub_stubs"))).toEqual([{ stub: "Person:Elena", degree: 3, referrers: ["Project:Booking", "Course:Bootcamp", "Project:Portal"] }]);
	});

	it("9. unlinked tag: tags naming an anchor with no edge to it (any edge links, LINKS_TO included)", async () => {
		const expected = [
			{ anchor: "Project:Warehouse", nodes: ["Note:Daily", "Note:Standup"], nodeCount: 2 },
			{ anchor: "Project:Old Site", nodes: ["Note:Standup"], nodeCount: 1 },
			{ anchor: "Domain:Web", nodes: ["Note:Daily"], nodeCount: 1 },
		];
		expect(project(await rows("unlinked_tag"))).toEqual(expected);
		expect(project(await rows("unlinked_tag", { limit: 1, listCap: 1 }))).toEqual([{ anchor: "Project:Warehouse", nodes: ["Note:Daily"], nodeCount: 2 }]);
	});

	it("names entities by their engrama_id and status", async () => {
		const [row] = await rows("hub_stubs");
		const elena = await opened.memory.graph.getNode(opened.scope, "Person", "Elena");
		expect(row.stub).toEqual({ id: elena?.id, label: "Person", key: "Elena", status: "stub" });
	});

	it("reflect over these rows is idempotent", async () => {
		const first = await reflect(opened.memory, ctx);
		const second = await reflect(opened.memory, ctx);
		expect(first.created).toBeGreaterThan(10);
		expect(second).toMatchObject({ created: 0, refreshed: 0, unchanged: first.created });
		expect(second.insights.map((i) => [i.title, i.confidence, i.body])).toEqual(first.insights.map((i) => [i.title, i.confidence, i.body]));
	});
});
