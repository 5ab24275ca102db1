import { afterEach, describe, expect, it } from "vitest";
import { Neo4jGraphStore } from "../../../src/backends/neo4j/neo4j-graph-store";
import { RANK_WINDOW } from "../../../src/backends/neo4j/passages";
import { PASSAGE_VECTOR_INDEX, ensureVectorIndex, vectorIndexDimensions } from "../../../src/backends/neo4j/schema";
import type { NodeRecord, Scope } from "../../../src/engine/types";
import type { OpenedMemory } from "../../../src/nodejs/open-memory";
import { testBackends } from "../../contracts/backends";
import { neo4jTestBackend } from "../../contracts/neo4j-backend";

const neo4j = testBackends().some((b) => b.name === "neo4j");

/** A unit vector pointing mostly along axis `i` (a little along the next one, so none is exactly equal). */
function axis(dims: number, i: number, tilt = 0.1): Float32Array {
	const v = new Float32Array(dims);
	v[i % dims] = 1;
	v[(i + 1) % dims] = tilt;
	const norm = Math.hypot(...v);
	return v.map((x) => x / norm);
}

describe.runIf(neo4j)("Neo4j passages", () => {
	let opened: OpenedMemory;
	afterEach(async () => opened?.close());

	it("are searched through the passage vector index, within the scope, live nodes only, with cosine scores", async () => {
		opened = await neo4jTestBackend.open();
		const graph = opened.memory.graph as Neo4jGraphStore;
		// The index is the database's (its dimension fixed by whoever made it first): use its dimension.
		let dims = await vectorIndexDimensions(graph.conn, true);
		if (dims === 0) {
			await ensureVectorIndex(graph.conn, 24, true);
			dims = await vectorIndexDimensions(graph.conn, true);
		}
		const scope = opened.scope;
		const other: Scope = { orgId: scope.orgId, userId: `${scope.userId}-other` };
		const note = async (s: Scope, key: string) => (await opened.memory.pipeline.mergeEntity({ scope: s, source: "cli" }, { label: "Concept", key })).node;
		const write = async (s: Scope, node: NodeRecord, vectors: readonly Float32Array[]) => {
			const change = await graph.writePassages(
				s,
				node.id,
				vectors.map((_, i) => ({ heading: `${node.key} ${i}`, line: i + 1, text: `section ${i} of ${node.key}`, hash: `${node.key}-${i}` })),
			);
			await graph.upsertPassageVectors(s, change.added.map((p, i) => ({ passageId: p.id, vector: vectors[i] })));
		};
		const mine = await note(scope, "Mine");
		const archived = await note(scope, "Archived");
		const theirs = await note(other, "Theirs");
		await write(scope, mine, [axis(dims, 0), axis(dims, 1), axis(dims, 2)]);
		await write(scope, archived, [axis(dims, 0, 0.01)]);
		await write(other, theirs, [axis(dims, 0, 0)]);
		await opened.memory.pipeline.archive({ scope, source: "cli" }, archived);

		graph.conn.trace = "full";
		graph.conn.resetCounts();
		const near = await graph.passageKnn(scope, axis(dims, 0, 0), 2);
		const run = graph.conn.resetCounts().statementsRun;
		graph.conn.trace = false;
		// One statement: the index answered (no scan after it).
		expect(run.map((s) => s.query.includes(`db.index.vector.queryNodes('${PASSAGE_VECTOR_INDEX}'`))).toEqual([true]);
		expect(near.map((h) => [h.nodeId, h.passage.heading])).toEqual([
			[mine.id, "Mine 0"],
			[mine.id, "Mine 1"],
		]);
		// Exact cosine similarity (the protocol's scale, not Neo4j's (1 + cos) / 2).
		expect(near[0].score).toBeCloseTo(1 / Math.hypot(1, 0.1), 5);
		expect(near[1].score).toBeCloseTo(0, 5);
		// Another scope sees only its own.
		expect((await graph.passageKnn(other, axis(dims, 0, 0), 5)).map((h) => h.nodeId)).toEqual([theirs.id]);
		// A scope without passage vectors asks neither the index nor a scan: one statement finds it has none.
		const bare: Scope = { orgId: scope.orgId, userId: `${scope.userId}-bare` };
		await write(bare, await note(bare, "Bare"), []);
		graph.conn.resetCounts();
		expect(await graph.passageKnn(bare, axis(dims, 0, 0), 5)).toEqual([]);
		expect(graph.conn.resetCounts().statements).toBe(1);
		// Once the memory's vectors have a dimension, a passage vector of another one is refused.
		await opened.stores.vectors?.upsert(scope, mine.id, axis(dims, 3));
		const change = await graph.writePassages(scope, mine.id, [{ heading: "x", line: 1, text: "x", hash: "x" }]);
		await expect(graph.upsertPassageVectors(scope, [{ passageId: change.added[0].id, vector: axis(dims + 1, 0) }])).rejects.toThrow(/dimension/);
	}, 120_000);

	it("rank the scope's best candidates by words; other scopes never fill the window, archived notes make it look further", async () => {
		opened = await neo4jTestBackend.open();
		const graph = opened.memory.graph as Neo4jGraphStore;
		const scope = opened.scope;
		const other: Scope = { orgId: scope.orgId, userId: `${scope.userId}-other` };
		const many = RANK_WINDOW + 50;
		// Notes written straight into the store (many of them, quickly): archived ones in this scope, live ones in another.
		const make = async (s: Scope, prefix: string, status: string) => {
			const rows = await graph.conn.write(
				(q) =>
					q.run(
						`UNWIND range(1, $many) AS i
						CREATE (n:Engrama:Concept {__ns: $ns, __label: 'Concept', __key: $prefix + i, __key_field: 'name', name: $prefix + i, org_id: $org, user_id: $user,
							engrama_id: randomUUID(), status: $status, __seq: i, created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z'})
						RETURN n.engrama_id AS id`,
						{ ns: graph.namespace, prefix, org: s.orgId, user: s.userId, status, many },
					),
				"test: many notes",
			);
			await graph.writeManyPassages(
				s,
				rows.map((r) => ({ nodeId: String(r.id), passages: [{ heading: "", line: 1, text: "lantern lantern lantern", hash: "h" }] })),
			);
		};
		await make(other, "Theirs ", "active");
		const mine = (await opened.memory.pipeline.mergeEntity({ scope, source: "cli" }, { label: "Concept", key: "Mine" })).node;
		await graph.writePassages(scope, mine.id, [{ heading: "Mine", line: 3, text: "a long section that mentions a lantern once among many other words here", hash: "m" }]);
		const ranking = async () => {
			graph.conn.trace = "full";
			graph.conn.resetCounts();
			const found = await graph.searchPassages(scope, { text: "lantern", limit: 5 });
			// The ranking statements: each asks Lucene for a window (after waiting for its pending updates).
			const log = graph.conn.resetCounts().statementsRun.filter((run) => run.query.includes("{limit: $window}"));
			graph.conn.trace = false;
			return { found, rankings: log.length };
		};
		expect(await ranking()).toMatchObject({ found: [{ nodeId: mine.id }], rankings: 1 });
		await make(scope, "Archived ", "archived");
		// Lucene's best 200 of this scope are all archived: every candidate is ranked, the live one found.
		const after = await ranking();
		expect(after.found.map((h) => h.nodeId)).toEqual([mine.id]);
		expect(after.rankings).toBe(2);
		expect((await graph.searchPassages(other, { text: "lantern", limit: 3 })).length).toBe(3);
	}, 120_000);
});
