import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createBackend, type Backend } from "../../../src/backends/factory";
import { createNeo4jBackend, type Neo4jBackend } from "../../../src/backends/neo4j/neo4j-backend";
import { REFLECT_QUERIES, UNLINKED_TAG_QUERIES } from "../../../src/backends/neo4j/reflect-queries";
import { parseConfig } from "../../../src/config/engrama-config";
import type { GraphStore, ReflectDetectorId, ReflectParams } from "../../../src/engine/protocols";
import type { PropValue, Scope } from "../../../src/engine/types";
import { neo4jTestSettings } from "../../contracts/neo4j-backend";
import { makeTempDir } from "../../helpers/temp-dir";

const withServer = (process.env.ENGRAMA_TEST_BACKENDS ?? "").split(",").map((s) => s.trim()).includes("neo4j");

const DETECTORS: readonly ReflectDetectorId[] = [
	"cross_project_solution",
	"shared_technology",
	"training_opportunity",
	"technique_transfer",
	"concept_clustering",
	"stale_knowledge",
	"under_connected",
	"hub_stubs",
	"unlinked_tag",
];
const LABELS = ["Project", "Project", "Concept", "Concept", "Problem", "Problem", "Problem", "Decision", "Decision", "Technology", "Technique", "Domain", "Course", "Lesson", "Vulnerability", "Note", "Insight", "Person"];
const STATUS_OF: Record<string, readonly string[]> = {
	Project: ["active", "active", "active", "paused", "", "archived"],
	Problem: ["open", "in-progress", "resolved", "resolved", "", "archived"],
	Vulnerability: ["open", "fixed", ""],
	Decision: ["accepted", "proposed", "rejected", "superseded", ""],
	Course: ["active", "draft"],
};
const DEFAULT_STATUS = ["", "active", "stub", "stub", "archived"];
/** Edge shapes the detectors look for, plus noise (any type between any two nodes). */
const SHAPES: readonly [string, string, string][] = [
	["Problem", "BELONGS_TO", "Project"],
	["Project", "HAS", "Problem"],
	["Decision", "BELONGS_TO", "Project"],
	["Problem", "RELATED_TO", "Concept"],
	["Concept", "RELATED_TO", "Problem"],
	["Problem", "SOLVED_BY", "Decision"],
	["Project", "USES", "Technology"],
	["Course", "TEACHES", "Technology"],
	["Technology", "COMPOSED_OF", "Technology"],
	["Project", "IN_DOMAIN", "Domain"],
	["Course", "COVERS", "Concept"],
	["Lesson", "TEACHES", "Concept"],
	["Project", "RELATED_TO", "Technique"],
	["Decision", "APPLIES", "Technique"],
	["Vulnerability", "RELATED_TO", "Concept"],
	["Concept", "RELATED_TO", "Concept"],
	["Course", "RELATED_TO", "Concept"],
	["Note", "LINKS_TO", "Concept"],
	["Insight", "ABOUT", "Concept"],
];
const NOISE_TYPES = ["LINKS_TO", "RELATED_TO", "USES", "HAS", "BELONGS_TO"];

/** Small deterministic PRNG (mulberry32), so a failing seed can be replayed. */
function random(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/** The same random graph, written through the GraphStore protocol, on both backends. */
async function seedGraph(stores: readonly GraphStore[], seed: number, scope: Scope, other: Scope): Promise<void> {
	const rnd = random(seed);
	const pick = <T>(list: readonly T[]) => list[Math.floor(rnd() * list.length)];
	const nodes: { id: string; scope: Scope }[] = [];
	const ids = new Map<string, string>();
	const byLabel = new Map<string, { id: string; scope: Scope }[]>();
	const count = 60 + Math.floor(rnd() * 20);
	for (let i = 0; i < count; i++) {
		const label = pick(LABELS);
		const keyField = label === "Decision" ? "title" : "name";
		// Keys collide across labels on purpose ("Alpha 3" as a Concept and a Technology).
		const key = `${pick(["Alpha", "Beta", "Gamma", "Delta", "Épsilon", "zeta", "Eta", "Theta"])} ${i % 9 === 0 ? "" : i % 23}`.trim();
		const props: Record<string, PropValue> = { [keyField]: key };
		const status = pick(STATUS_OF[label] ?? DEFAULT_STATUS);
		if (status) props.status = status;
		const r = rnd();
		if (r < 0.05) props.valid_to = "2026-01-01T00:00:00.000Z";
		else if (r < 0.08) props.valid_to = null;
		if (label === "Insight" && rnd() < 0.5) props.source_query = rnd() < 0.5 ? "shared_technology" : "  ";
		if (rnd() < 0.3) props.updated = pick(["2025-01-02", "2026-03-01", "2024-12-31T10:00:00Z"]);
		else if (rnd() < 0.1) props.updated = 20250101;
		if (rnd() < 0.3) props.confidence = pick([0.2, 0.49, 0.5, 0.9, 1]);
		else if (rnd() < 0.05) props.confidence = "low";
		// Tags that may name an anchor (unlinked_tag), in other spellings: case, "_", "-", accents.
		if (rnd() < 0.35) {
			const tag = () => `${pick(["alpha", "BETA", "gamma", "Epsilon", "épsilon", "zeta"])}${pick([" ", "_", "-"])}${Math.floor(rnd() * 23)}`;
			props.tags = rnd() < 0.2 ? tag() : [tag(), tag()];
		}
		const owner = rnd() < 0.08 ? other : scope;
		// A repeated (label, key, scope) merges into the node already there: keep its id.
		const identity = `${owner.userId}|${label}|${key}`;
		const known = ids.get(identity);
		const id = known ?? crypto.randomUUID();
		ids.set(identity, id);
		const now = pick(["2025-06-01T00:00:00.000Z", "2026-02-20T00:00:00.000Z", "2026-03-10T00:00:00.000Z"]);
		for (const store of stores) {
			await store.mergeNode(owner, { label, keyField, key, set: props, setOnCreate: { engrama_id: id }, now });
		}
		if (known) continue;
		const node = { id, scope: owner };
		nodes.push(node);
		byLabel.set(label, [...(byLabel.get(label) ?? []), node]);
	}
	// One planted instance of the rarest patterns, then the random edges around everything.
	const plant = async (label: string, key: string, status: string, extra: Record<string, PropValue> = {}) => {
		const id = crypto.randomUUID();
		const keyField = label === "Decision" ? "title" : "name";
		for (const store of stores) {
			await store.mergeNode(scope, { label, keyField, key, set: { [keyField]: key, status, ...extra }, setOnCreate: { engrama_id: id }, now: "2026-02-01T00:00:00.000Z" });
		}
		// Kept out of the random edges, so the planted patterns stay intact.
		return { id, scope };
	};
	const link = async (from: { id: string }, type: string, to: { id: string }) => {
		for (const store of stores) await store.mergeEdge(scope, { fromId: from.id, type, toId: to.id, now: "2026-02-01T00:00:00.000Z" });
	};
	const [p1, p2, open, resolved, concept, decision, taught, issue] = [
		await plant("Project", "Planted billing", "active"),
		await plant("Project", "Planted shop", "active"),
		await plant("Problem", "Planted timeout", "open"),
		await plant("Problem", "Planted slow query", "resolved"),
		await plant("Concept", "Planted caching", "active"),
		await plant("Decision", "Planted add a cache", "accepted"),
		await plant("Concept", "Planted retries", "active"),
		await plant("Problem", "Planted flaky job", "in-progress"),
	];
	await link(open, "BELONGS_TO", p1);
	await link(p2, "HAS", resolved);
	await link(open, "RELATED_TO", concept);
	await link(concept, "RELATED_TO", resolved);
	await link(resolved, "SOLVED_BY", decision);
	await link(open, "RELATED_TO", taught);
	await link(issue, "RELATED_TO", taught);
	const [technique, api, worker, redis] = [
		await plant("Technique", "Planted backoff", "active"),
		await plant("Project", "Planted api", "active"),
		await plant("Project", "Planted worker", "active"),
		await plant("Technology", "Planted redis", "active"),
	];
	// Tags naming two planted projects; a body link to one of them links it.
	const standup = await plant("Note", "Planted standup", "", { tags: ["planted_billing", "PLANTED-SHOP"] });
	await link(standup, "LINKS_TO", p2);
	await link(api, "RELATED_TO", technique);
	// Three users of redis: the least shared_technology needs.
	const ops = await plant("Course", "Planted ops course", "active");
	await link(api, "USES", redis);
	await link(worker, "USES", redis);
	await link(ops, "TEACHES", redis);

	const edges = count * 3;
	for (let i = 0; i < edges; i++) {
		let from = pick(nodes);
		let to = rnd() < 0.02 ? from : pick(nodes);
		let type = pick(NOISE_TYPES);
		if (rnd() < 0.85) {
			const [fromLabel, shapeType, toLabel] = pick(SHAPES);
			const froms = byLabel.get(fromLabel) ?? [];
			const tos = byLabel.get(toLabel) ?? [];
			if (froms.length === 0 || tos.length === 0) continue;
			[from, to, type] = [pick(froms), pick(tos), shapeType];
		}
		if (from.scope !== to.scope) continue;
		for (const store of stores) await store.mergeEdge(from.scope, { fromId: from.id, type, toId: to.id, now: "2026-01-01T00:00:00.000Z" });
	}
}

describe("reflect detector queries", () => {
	it("filter every node they touch by the caller's scope and take every value as a parameter", () => {
		const queries = Object.entries({ ...REFLECT_QUERIES, ...Object.fromEntries(Object.entries(UNLINKED_TAG_QUERIES).map(([k, q]) => [`unlinked_tag ${k}`, q])) });
		expect(queries).toHaveLength(DETECTORS.length - 1 + 3);
		for (const [detector, query] of queries) {
			// Each node variable a detector reads is declared live (scope included) or is an outer entity.
			expect(query, detector).toContain("$ns");
			expect(query, detector).toContain("$org");
			expect(query, detector).toContain("$user");
			for (const param of query.match(/\$[A-Za-z]+/g) ?? []) expect(["$ns", "$org", "$user", "$limit", "$cap", "$staleBefore", "$low", "$anchorLabels", "$pairs"], `${detector} ${param}`).toContain(param);
			const variables = new Set([...query.matchAll(/MATCH \(([a-z]+)[:)]/g)].map((m) => m[1]));
			for (const v of variables) expect(query, `${detector}: ${v} has no scope check`).toMatch(new RegExp(`${v}\\.__ns = \\$ns`));
		}
	});
});

describe.each(withServer ? ["neo4j"] : [])("reflect detectors: %s returns exactly SQLite's rows", () => {
	const scope: Scope = { orgId: "reflect", userId: "ana" };
	const other: Scope = { orgId: "reflect", userId: "bob" };
	let lite: Backend;
	let neo: Neo4jBackend;
	let dir: { path: string; cleanup(): void };

	beforeEach(async () => {
		dir = makeTempDir("engrama-reflect-parity-");
		lite = await createBackend(parseConfig({ backend: "sqlite", dbPath: join(dir.path, "memory.db") }));
		neo = await createNeo4jBackend(parseConfig({ backend: "neo4j", dbPath: ":memory:", neo4j: neo4jTestSettings() }), {
			namespace: `test-${crypto.randomUUID()}`,
		});
	});
	afterEach(async () => {
		await neo.graph.dropNamespace();
		await neo.graph.close();
		await lite.graph.close();
		dir.cleanup();
	});

	const paramSets: ReflectParams[] = [
		{ limit: 100, listCap: 50, staleBefore: "2026-01-01T00:00:00.000Z", lowConfidence: 0.5 },
		{ limit: 3, listCap: 2, staleBefore: "2026-03-01", lowConfidence: 0.9 },
	];

	it.each([1, 2, 3])("on random graph %i, for every detector and limit", async (seed) => {
		await neo.graph.transaction(() => lite.graph.transaction(() => seedGraph([lite.graph, neo.graph], seed, scope, other)));
		const found = new Set<string>();
		for (const params of paramSets) {
			for (const detector of DETECTORS) {
				if (!lite.graph.reflectRows || !neo.graph.reflectRows) throw new Error("both backends implement reflectRows");
				const expected = await lite.graph.reflectRows(scope, detector, params);
				const actual = await neo.graph.reflectRows(scope, detector, params);
				expect(actual, `${detector} ${JSON.stringify(params)}`).toEqual(expected);
				if (expected.length > 0) found.add(detector);
			}
		}
		// The graphs are shaped so that every detector finds something: no comparison of empty lists.
		expect([...found].sort()).toEqual([...DETECTORS].sort());
		expect(await neo.graph.reflectRows?.({ orgId: "reflect" }, "under_connected", paramSets[0])).toEqual([]);
	}, 120_000);
});
