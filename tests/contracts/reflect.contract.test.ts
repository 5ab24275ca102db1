import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReflectDetectorId, ReflectEntity, ReflectParams, ReflectRowMap } from "../../src/engine/protocols";
import { reflect } from "../../src/engine/reflect";
import type { WriteContext } from "../../src/engine/write/write-pipeline";
import type { OpenedMemory } from "../../src/nodejs/open-memory";
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

	it("2. shared technology: one row per Technology with three or more users", async () => {
		expect(project(await rows("shared_technology"))).toEqual([
			{
				technology: "Technology:TypeScript",
				users: [
					{ entity: "Project:Booking", via: "USES" },
					{ entity: "Course:Bootcamp", via: "TEACHES" },
					{ entity: "Project:Portal", via: "USES" },
				],
				userCount: 3,
				labelCount: 2,
			},
		]);
		expect(project(await rows("shared_technology", { listCap: 2 }))).toEqual([
			{
				technology: "Technology:TypeScript",
				users: [
					{ entity: "Project:Booking", via: "USES" },
					{ entity: "Course:Bootcamp", via: "TEACHES" },
				],
				userCount: 3,
				labelCount: 2,
			},
		]);
	});

	it("2. shared technology: who counts as a user, the threshold, the order and the caps", async () => {
		// A graph of its own, so the fixture's other detectors stay as they are.
		const own = await backend.open();
		try {
			const c: WriteContext = { scope: own.scope, source: "cli" };
			const node = (label: string, key: string, props: Record<string, unknown> = {}) => own.memory.remember(c, { label, key, props });
			const rel = (fl: string, fk: string, type: string, tl: string, tk: string) => own.memory.relate(c, { label: fl, key: fk }, type, { label: tl, key: tk });
			for (const t of ["Node", "Go", "Rust", "Deno", "V8"]) await node("Technology", t);
			for (const p of ["Alpha", "Beta", "Gamma", "Gone", "Delta"]) await node("Project", p, { status: "active" });
			await node("Course", "Bootcamp");
			await node("Person", "Ana");
			await node("Note", "Daily");
			// Node: four users of three labels; Alpha both uses and is built from it (via: the smaller type).
			await rel("Project", "Alpha", "USES", "Technology", "Node");
			await rel("Project", "Alpha", "COMPOSED_OF", "Technology", "Node");
			await rel("Project", "Beta", "USES", "Technology", "Node");
			await rel("Course", "Bootcamp", "TEACHES", "Technology", "Node");
			await node("Technology", "Express");
			await rel("Technology", "Express", "COMPOSED_OF", "Technology", "Node");
			// Not users: an archived and a superseded project, other relation types, an edge out of Node.
			await rel("Project", "Gone", "USES", "Technology", "Node");
			await rel("Project", "Delta", "USES", "Technology", "Node");
			await rel("Person", "Ana", "RELATED_TO", "Technology", "Node");
			await rel("Note", "Daily", "LINKS_TO", "Technology", "Node");
			await rel("Technology", "Node", "COMPOSED_OF", "Technology", "V8");
			// Go and Rust: three projects each (one label); Deno: two live users, below the threshold.
			for (const t of ["Go", "Rust"]) for (const p of ["Alpha", "Beta", "Gamma"]) await rel("Project", p, "USES", "Technology", t);
			for (const p of ["Alpha", "Beta", "Gone"]) await rel("Project", p, "USES", "Technology", "Deno");
			await own.memory.forget(c, { label: "Project", key: "Gone" });
			await node("Project", "Delta", { valid_to: "2025-01-01" });

			const graph = own.memory.graph;
			const ownRows = async (params: Partial<ReflectParams> = {}) => project(await graph.reflectRows(own.scope, "shared_technology", { ...PARAMS, ...params }));
			const projects = (via: string) => ["Alpha", "Beta", "Gamma"].map((p) => ({ entity: `Project:${p}`, via }));
			expect(await ownRows()).toEqual([
				{
					technology: "Technology:Node",
					users: [
						{ entity: "Project:Alpha", via: "COMPOSED_OF" },
						{ entity: "Project:Beta", via: "USES" },
						{ entity: "Course:Bootcamp", via: "TEACHES" },
						{ entity: "Technology:Express", via: "COMPOSED_OF" },
					],
					userCount: 4,
					labelCount: 3,
				},
				{ technology: "Technology:Go", users: projects("USES"), userCount: 3, labelCount: 1 },
				{ technology: "Technology:Rust", users: projects("USES"), userCount: 3, labelCount: 1 },
			]);
			expect(await ownRows({ limit: 2, listCap: 1 })).toEqual([
				{ technology: "Technology:Node", users: [{ entity: "Project:Alpha", via: "COMPOSED_OF" }], userCount: 4, labelCount: 3 },
				{ technology: "Technology:Go", users: [{ entity: "Project:Alpha", via: "USES" }], userCount: 3, labelCount: 1 },
			]);
		} finally {
			await own.close();
		}
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
