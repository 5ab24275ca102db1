import { afterEach, describe, expect, it } from "vitest";
import { FT_COLUMNS, ftProperty } from "../../../src/backends/neo4j/fts-query";
import type { Neo4jGraphStore } from "../../../src/backends/neo4j/neo4j-graph-store";
import { FULLTEXT_VERSION_KEY, upgradeFulltext } from "../../../src/backends/neo4j/upgrade";
import type { MergeNodeInput } from "../../../src/engine/backend-kit";
import type { Scope } from "../../../src/engine/types";
import type { OpenedMemory } from "../../../src/nodejs/open-memory";
import { testBackends } from "../../contracts/backends";
import { neo4jTestBackend } from "../../contracts/neo4j-backend";

const neo4j = testBackends().some((b) => b.name === "neo4j");
const NOW = "2026-03-01T00:00:00Z";

/** A document's keys as the spec says: each token, its prefixes of 4+ characters, and a wide script's first character. */
function keysOf(columns: readonly (string | null)[]): Set<string> {
	const keys = new Set<string>();
	for (const column of columns) {
		for (const token of (column ?? "").split(" ").filter(Boolean)) {
			const chars = Array.from(token);
			keys.add(token);
			for (let n = 4; n <= chars.length; n++) keys.add(`${chars.slice(0, n).join("")}*`);
			if (chars[0] >= "\u1100") keys.add(`${chars[0]}*`);
		}
	}
	return keys;
}

/** The counts the documents stored now imply, counted here from their columns, beside the counts the store keeps. */
async function countsNowAndKept(graph: Neo4jGraphStore, corpus: "nodes" | "passages") {
	const docs = await graph.conn.read(
		(q) =>
			corpus === "nodes"
				? q.run(`MATCH (n:Engrama {__ns: $ns}) RETURN [${FT_COLUMNS.map((c) => `n.${ftProperty(c)}`).join(", ")}] AS cols, n.__ft_len AS len`, { ns: graph.namespace })
				: q.run("MATCH (p:EngramaPassage {__ns: $ns}) RETURN [p.__ft_body] AS cols, p.__ft_len AS len", { ns: graph.namespace }),
		"test: documents",
	);
	const expected: Record<string, number> = {};
	let tokens = 0;
	for (const doc of docs) {
		for (const key of keysOf(doc.cols as (string | null)[])) expected[key] = (expected[key] ?? 0) + 1;
		tokens += Number(doc.len ?? 0);
	}
	if (docs.length > 0) expected[`(documents, ${tokens} tokens)`] = docs.length;
	const rows = await graph.conn.read(
		(q) => q.run("MATCH (t:EngramaTerm {__ns: $ns, corpus: $corpus}) RETURN t.key AS key, t.df AS df, t.len AS len", { ns: graph.namespace, corpus }),
		"test: term counts",
	);
	const kept: Record<string, number> = {};
	for (const row of rows) kept[row.key === "" ? `(documents, ${Number(row.len)} tokens)` : String(row.key)] = Number(row.df);
	return { expected, kept };
}

const node = (key: string, props: Record<string, string>): MergeNodeInput => ({ label: "Concept", keyField: "name", key, set: { name: key, ...props }, setOnCreate: {}, now: NOW });

describe.runIf(neo4j)("Neo4j: bm25's document frequencies are kept as counts, so a search reads them", () => {
	let opened: OpenedMemory;
	afterEach(async () => opened?.close());

	it("follow every write, re-key, archive, delete, passage change and forget in the same transaction; an upgrade recounts them", async () => {
		opened = await neo4jTestBackend.open();
		const graph = opened.memory.graph as Neo4jGraphStore;
		const scope = opened.scope;
		const other: Scope = { orgId: scope.orgId, userId: `${scope.userId}-other` };
		const check = async () => {
			for (const corpus of ["nodes", "passages"] as const) {
				const { expected, kept } = await countsNowAndKept(graph, corpus);
				expect(kept, corpus).toEqual(expected);
			}
		};
		const a = (await graph.mergeNode(scope, node("Lantern Research", { description: "researching lanterns and 猫が好き" }))).node;
		// New nodes in a batch: their counts summed by the client (a wide script, a word beyond the BMP).
		await graph.mergeNodes(scope, [node("Harbour", { description: "lantern light in the harbour 港の灯り" }), node("Café", { description: "réunion au café 𝐚𝐛𝐜𝐝𝐞 lanterns" })]);
		await graph.mergeNode(other, node("Their Lantern", { description: "a lantern of theirs" }));
		await check();
		// An update that changes words, one that keeps them, an archive, a re-key.
		await graph.mergeNode(scope, node("Lantern Research", { description: "research notes without the word" }));
		await graph.updateNode(scope, a.id, { status: "archived" }, [], NOW);
		const harbour = (await graph.getNode(scope, "Concept", "Harbour"))!;
		await graph.rekeyNode(scope, harbour.id, { label: "Concept", keyField: "name", key: "Harbour Lights", now: NOW });
		await check();
		// Passages: added, replaced, and gone with their node.
		await graph.writePassages(scope, a.id, [
			{ heading: "One", line: 1, text: "lanterns in the research lab", hash: "h1" },
			{ heading: "Two", line: 5, text: "", hash: "h2" },
		]);
		await graph.writePassages(scope, a.id, [{ heading: "One", line: 1, text: "lanterns in the research lab", hash: "h1" }, { heading: "Three", line: 9, text: "harbour research", hash: "h3" }]);
		await graph.writePassages(other, (await graph.getNode(other, "Concept", "Their Lantern"))!.id, [{ heading: "Theirs", line: 1, text: "their research", hash: "t1" }]);
		await check();
		// A rolled-back transaction leaves the counts as they were.
		await expect(
			graph.transaction(async () => {
				await graph.mergeNode(scope, node("Rolled Back", { description: "vanishing lantern" }));
				throw new Error("roll back");
			}),
		).rejects.toThrow("roll back");
		await check();
		await graph.deleteNode(scope, a.id);
		await check();
		await graph.forgetScope(other);
		await check();

		// A memory written before the counts (its version older): they are counted afresh at open.
		await graph.conn.write((q) => q.run("MATCH (t:EngramaTerm {__ns: $ns, corpus: 'nodes'}) WITH t LIMIT 3 SET t.df = t.df + 7", { ns: graph.namespace }), "test: drift");
		await graph.setMeta(FULLTEXT_VERSION_KEY, "4");
		await upgradeFulltext(graph.ctx);
		await check();
	});

	it("a search of one-token words reads their counts; it counts in Lucene only a phrase no count covers", async () => {
		opened = await neo4jTestBackend.open();
		const graph = opened.memory.graph as Neo4jGraphStore;
		const scope = opened.scope;
		await graph.mergeNodes(scope, [node("Lantern Research", { description: "researching lanterns" }), node("Bold Letters", { description: "the word 𝐚𝐛𝐜𝐝 in bold" })]);
		const counting = async (text: string) => {
			graph.conn.trace = "full";
			graph.conn.resetCounts();
			const hits = await graph.fulltext(scope, { text, limit: 5, prefix: true });
			const log = graph.conn.resetCounts().statementsRun.filter((s) => s.query.includes("queryNodes($index, item.query)"));
			graph.conn.trace = false;
			return { hits: hits.map((h) => h.node.key), lucene: log.length };
		};
		expect(await counting("research lantern")).toEqual({ hits: ["Lantern Research"], lucene: 0 });
		// Three characters in six UTF-16 units: a prefix no key covers (keys start at four characters).
		expect(await counting("𝐚𝐛𝐜")).toEqual({ hits: ["Bold Letters"], lucene: 1 });
	});
});
