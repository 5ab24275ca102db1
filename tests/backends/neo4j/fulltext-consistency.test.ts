import { afterEach, describe, expect, it } from "vitest";
import { Neo4jConnection } from "../../../src/backends/neo4j/neo4j-connection";
import { Neo4jGraphStore } from "../../../src/backends/neo4j/neo4j-graph-store";
import { FULLTEXT_INDEX, PASSAGE_FULLTEXT_INDEX, synchronousFulltextIndexes } from "../../../src/backends/neo4j/schema";
import type { NodeRecord } from "../../../src/engine/types";
import type { OpenedMemory } from "../../../src/nodejs/open-memory";
import { testBackends } from "../../contracts/backends";
import { neo4jTestBackend } from "../../contracts/neo4j-backend";

const neo4j = testBackends().some((b) => b.name === "neo4j");

describe("Neo4j fulltext indexes: which are rebuilt at open", () => {
	it("names the engrama fulltext indexes that still update at commit, and no other index", () => {
		const rows = [
			{ name: FULLTEXT_INDEX, type: "FULLTEXT", eventual: false },
			{ name: PASSAGE_FULLTEXT_INDEX, type: "FULLTEXT", eventual: true },
			{ name: "engrama_scope", type: "RANGE", eventual: null },
			{ name: "someone_elses_words", type: "FULLTEXT", eventual: false },
		];
		expect(synchronousFulltextIndexes(rows)).toEqual([FULLTEXT_INDEX]);
	});
});

describe.runIf(neo4j)("Neo4j fulltext: updated after commit, and still read-your-writes", () => {
	let opened: OpenedMemory;
	afterEach(async () => opened?.close());

	const ids = (hits: readonly { node: NodeRecord }[]) => hits.map((h) => h.node.key);

	it("updates both fulltext indexes after the commit (the write is acknowledged without waiting for Lucene)", async () => {
		opened = await neo4jTestBackend.open();
		const graph = opened.memory.graph as Neo4jGraphStore;
		const rows = await graph.conn.read((q) =>
			q.run("SHOW FULLTEXT INDEXES YIELD name, options WHERE name IN $names RETURN name, options.indexConfig.`fulltext.eventually_consistent` AS eventual ORDER BY name", {
				names: [FULLTEXT_INDEX, PASSAGE_FULLTEXT_INDEX],
			}),
		);
		expect(rows).toEqual([
			{ name: FULLTEXT_INDEX, eventual: true },
			{ name: PASSAGE_FULLTEXT_INDEX, eventual: true },
		]);
	});

	it("finds each write in a search right after it, from this store and from another connection", async () => {
		opened = await neo4jTestBackend.open();
		const graph = opened.memory.graph as Neo4jGraphStore;
		const ctx = { scope: opened.scope, source: "cli" as const };
		for (let i = 0; i < 12; i++) {
			await opened.memory.remember(ctx, { label: "Concept", key: `Topic ${i}`, props: { description: `marker${i} written one at a time` } });
			expect(ids(await graph.fulltext(opened.scope, { text: `marker${i}`, limit: 5 }))).toEqual([`Topic ${i}`]);
		}
		// A write by another client (its own driver and session) is seen by this store's next search.
		const other = new Neo4jGraphStore(new Neo4jConnection(graph.conn.settings), { namespace: graph.namespace });
		try {
			await other.init();
			for (let i = 0; i < 5; i++) {
				await other.mergeNode(opened.scope, { label: "Concept", key: `Elsewhere ${i}`, keyField: "name", set: { description: `remote${i}` }, setOnCreate: {}, now: "2026-01-01T00:00:00Z" });
				expect(ids(await graph.fulltext(opened.scope, { text: `remote${i}`, limit: 5 }))).toEqual([`Elsewhere ${i}`]);
			}
		} finally {
			await other.close();
		}
	});

	it("inside a transaction, searches see its own writes: new nodes, changed words, new passages", async () => {
		opened = await neo4jTestBackend.open();
		const graph = opened.memory.graph as Neo4jGraphStore;
		const ctx = { scope: opened.scope, source: "sync" as const };
		await opened.memory.remember(ctx, { label: "Concept", key: "Kept", props: { description: "oldword stays here" } });
		await opened.memory.remember(ctx, { label: "Concept", key: "Changed", props: { description: "oldword leaves" } });
		await opened.memory.pipeline.transaction(async () => {
			const fresh = await opened.memory.pipeline.mergeEntity(ctx, { label: "Concept", key: "Fresh", props: { description: "newword arrives, two words" } });
			await opened.memory.pipeline.mergeEntity(ctx, { label: "Concept", key: "Changed", props: { description: "newword replaced it" } });
			await opened.memory.pipeline.storeNotePassages(ctx, fresh.node, [{ heading: "", line: 1, text: "a section about tidepools", hash: "h1" }]);
			expect(ids(await graph.fulltext(opened.scope, { text: "newword", limit: 10 })).sort()).toEqual(["Changed", "Fresh"]);
			expect(ids(await graph.fulltext(opened.scope, { text: "oldword", limit: 10 }))).toEqual(["Kept"]);
			// A phrase of two tokens is counted in Lucene, not looked up: its count sees the transaction too.
			expect(ids(await graph.fulltext(opened.scope, { text: '"two words"', limit: 10 }))).toEqual(["Fresh"]);
			expect((await graph.searchPassages(opened.scope, { text: "tidepools", limit: 10 })).map((h) => h.nodeId)).toEqual([fresh.node.id]);
		});
		expect(ids(await graph.fulltext(opened.scope, { text: "newword", limit: 10 })).sort()).toEqual(["Changed", "Fresh"]);
	});
});
