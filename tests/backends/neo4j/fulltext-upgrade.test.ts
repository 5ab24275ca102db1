import { afterEach, describe, expect, it } from "vitest";
import { FT_COLUMNS, FT_LENGTH_PROPERTY, FT_SCOPE_PROPERTY, ftProperty, fulltextProperties, storedColumn } from "../../../src/backends/neo4j/fts-query";
import { Neo4jGraphStore } from "../../../src/backends/neo4j/neo4j-graph-store";
import { NODE_LABEL } from "../../../src/backends/neo4j/schema";
import { FULLTEXT_VERSION, FULLTEXT_VERSION_KEY } from "../../../src/backends/neo4j/upgrade";
import type { NodeRecord, Props } from "../../../src/engine/types";
import type { OpenedMemory } from "../../../src/nodejs/open-memory";
import { testBackends } from "../../contracts/backends";
import { neo4jTestBackend } from "../../contracts/neo4j-backend";

const neo4j = testBackends().some((b) => b.name === "neo4j");

/** A node's fulltext columns as the store wrote them before words of every script: a CJK or Thai run was one token. */
function columnsBefore(props: Props): Record<string, string | number | null> {
	const out: Record<string, string | number | null> = {};
	let length = 0;
	for (const column of FT_COLUMNS) {
		const value = props[column];
		const text = value === undefined || value === null ? null : Array.isArray(value) ? value.map(String).join(" ") : typeof value === "object" ? null : String(value);
		// Marks stripped first, every script's letters folded: the tokens of that version.
		const words = text === null ? [] : (text.normalize("NFD").replace(/\p{M}+/gu, "").normalize("NFC").toLowerCase().match(/[\p{L}\p{N}\p{Co}]+/gu) ?? []);
		length += words.length;
		out[ftProperty(column)] = storedColumn(words);
	}
	out[FT_LENGTH_PROPERTY] = length;
	return out;
}

const NOTES: Record<string, string> = {
	"Chinese migration": "我们把旧的数据库迁移到PostgreSQL的时候遇到了很多问题。",
	"Japanese sync": "モバイルアプリでデータを同期すると、ときどきタイムアウトが発生する。",
	"Korean meeting": "지난주 회의에서 배포 일정을 다시 정했다.",
	"Thai release": "ทีมงานตัดสินใจเลื่อนการปล่อยซอฟต์แวร์ออกไปหนึ่งสัปดาห์",
	"French notes": "Le café était fermé, donc la réunion a eu lieu à la bibliothèque.",
	"Greek notes": "Η συνάντηση μετακινήθηκε",
};

describe.runIf(neo4j)("Neo4j: nodes written before words of every script are re-indexed at open", () => {
	let opened: OpenedMemory;
	afterEach(async () => opened?.close());

	it("rewrites only their fulltext columns, once, and search then finds their words", async () => {
		opened = await neo4jTestBackend.open();
		const graph = opened.memory.graph as Neo4jGraphStore;
		const ctx = { scope: opened.scope, source: "cli" as const };
		for (const [key, description] of Object.entries(NOTES)) {
			await opened.memory.remember(ctx, { label: "Concept", key, props: { description, ...(key === "French notes" ? {} : { tags: ["日志"] }) } });
		}
		const french = await graph.getNode(opened.scope, "Concept", "French notes");
		const concept = await graph.getNode(opened.scope, "Concept", "Chinese migration");
		await opened.memory.pipeline.storeNotePassages({ scope: opened.scope, source: "sync" }, concept as NodeRecord, [
			{ heading: "", line: 1, text: "数据库的备份", hash: "p1" },
		]);
		// The memory as an earlier version left it: old columns, no fulltext format recorded.
		const before: NodeRecord[] = [];
		for (const key of Object.keys(NOTES)) {
			const node = (await graph.getNode(opened.scope, "Concept", key)) as NodeRecord;
			before.push(node);
			await graph.conn.write(
				(q) => q.run("MATCH (n:Engrama {__ns: $ns, engrama_id: $id}) SET n += $ft", { ns: graph.namespace, id: node.id, ft: columnsBefore(node.props) }),
				"test: old columns",
			);
		}
		await graph.conn.write((q) => q.run("MATCH (m:EngramaMeta {__ns: $ns, key: $key}) DELETE m", { ns: graph.namespace, key: FULLTEXT_VERSION_KEY }), "test");
		const names = async (query: string) => (await opened.memory.searchFulltext(opened.scope, query)).map((h) => h.name);
		expect(await names("数据库")).toEqual([]);
		expect(await names("회의")).toEqual([]);
		expect(await names("bibliothèque")).toEqual(["French notes"]);
		expect(await names("συνάντηση")).toEqual([]);

		// The next open of the memory upgrades it.
		const reopened = new Neo4jGraphStore(graph.conn, { namespace: graph.namespace });
		const seen: string[] = [];
		const conn = graph.conn;
		conn.trace = true;
		conn.resetCounts();
		await reopened.init();
		seen.push(...conn.resetCounts().log);
		conn.trace = false;
		expect(seen.filter((s) => s.includes("SET n += row.ft"))).toHaveLength(1);
		expect(await names("数据库")).toEqual(["Chinese migration"]);
		expect(await names("迁移")).toEqual(["Chinese migration"]);
		expect(await names("タイムアウト")).toEqual(["Japanese sync"]);
		expect(await names("회의")).toEqual(["Korean meeting"]);
		expect(await names("ซอฟต์แวร์")).toEqual(["Thai release"]);
		expect((await names("日志")).length).toBe(5);
		expect(await names("συνάντηση")).toEqual(["Greek notes"]);
		expect(await names("bibliothèque")).toEqual(["French notes"]);
		// Nothing else changed: props, timestamps, passages (the French node holds no such script: not rewritten).
		for (const node of before) expect(await graph.getNode(opened.scope, "Concept", node.key)).toEqual(node);
		expect(await graph.getNode(opened.scope, "Concept", "French notes")).toEqual(french);
		expect((await graph.passagesOf(opened.scope, (concept as NodeRecord).id)).map((p) => p.text)).toEqual(["数据库的备份"]);
		// Recorded, hidden from the memory's settings (export, migrate), and not run again.
		const version = await graph.conn.read((q) => q.run("MATCH (m:EngramaMeta {__ns: $ns, key: $key}) RETURN m.value AS v", { ns: graph.namespace, key: FULLTEXT_VERSION_KEY }), "test");
		expect(version[0]?.v).toBe(String(FULLTEXT_VERSION));
		expect((await graph.listMeta()).map(([k]) => k)).not.toContain(FULLTEXT_VERSION_KEY);
		conn.trace = true;
		conn.resetCounts();
		await new Neo4jGraphStore(graph.conn, { namespace: graph.namespace }).init();
		const again = conn.resetCounts().log;
		conn.trace = false;
		expect(again.filter((s) => s.includes("re-index") || s.includes("=~"))).toEqual([]);
	}, 120_000);

	it("gives the items written at format 3 their day's words, not a person's note, and only once", async () => {
		opened = await neo4jTestBackend.open();
		const graph = opened.memory.graph as Neo4jGraphStore;
		const agent = { scope: opened.scope, source: "mcp" as const, agent: "claude" };
		await opened.memory.remember(agent, { label: "Concept", key: "Support group", props: { description: "Went to the support group", valid_from: "2023-05-08T13:56:00Z" } });
		await opened.memory.remember({ scope: opened.scope, source: "sync" }, { label: "Concept", key: "Garden", props: { description: "Planting tomatoes", obsidian_path: "Garden.md", valid_from: "2021-11-09" } });
		// Format 3 wrote the same columns without the day (valid_from itself is never searched).
		for (const key of ["Support group", "Garden"]) {
			const node = (await graph.getNode(opened.scope, "Concept", key)) as NodeRecord;
			const { valid_from: _, ...undated } = node.props;
			await graph.conn.write(
				(q) => q.run("MATCH (n:Engrama {__ns: $ns, engrama_id: $id}) SET n += $ft", { ns: graph.namespace, id: node.id, ft: fulltextProperties(undated) }),
				"test: format 3 columns",
			);
		}
		await graph.conn.write(
			(q) => q.run("MATCH (m:EngramaMeta {__ns: $ns, key: $key}) SET m.value = '3'", { ns: graph.namespace, key: FULLTEXT_VERSION_KEY }),
			"test: format 3",
		);
		const names = async (query: string) => (await opened.memory.searchFulltext(opened.scope, query)).map((h) => h.name);
		expect(await names("May 2023")).toEqual([]);

		const conn = graph.conn;
		conn.trace = "full";
		conn.resetCounts();
		await new Neo4jGraphStore(graph.conn, { namespace: graph.namespace }).init();
		const run = conn.resetCounts().statementsRun.map((s) => s.query);
		conn.trace = false;
		// Format 3 already had every script's words and the scope words: only dated nodes are looked at.
		const found = run.filter((q) => q.includes("n.__seq > $after"));
		expect(found.length).toBeGreaterThan(0);
		expect(found.every((q) => q.includes("valid_from IS NOT NULL") && !q.includes("=~"))).toBe(true);
		expect(run.filter((q) => q.includes("SET n += row.ft"))).toHaveLength(1);
		expect(await names("May 2023")).toEqual(["Support group"]);
		expect(await names("November 2021")).toEqual([]);
		expect(await names("tomatoes")).toEqual(["Garden"]);
		conn.trace = "full";
		conn.resetCounts();
		await new Neo4jGraphStore(graph.conn, { namespace: graph.namespace }).init();
		const again = conn.resetCounts().statementsRun.map((s) => s.query);
		conn.trace = false;
		expect(again.filter((q) => q.includes("n.__seq > $after") || q.includes("row.ft"))).toEqual([]);
	}, 120_000);

	it("gives the nodes written at format 5 with aliases their names, and only those", async () => {
		opened = await neo4jTestBackend.open();
		const graph = opened.memory.graph as Neo4jGraphStore;
		const sync = { scope: opened.scope, source: "sync" as const };
		await opened.memory.remember(sync, { label: "Concept", key: "Файлы восстановления", props: { description: "Снимки заметок.", aliases: ["File recovery"] } });
		await opened.memory.remember(sync, { label: "Concept", key: "Закладки", props: { description: "Избранные заметки." } });
		// Format 5 wrote the columns without the aliases list.
		const node = (await graph.getNode(opened.scope, "Concept", "Файлы восстановления")) as NodeRecord;
		const { aliases: _, ...plain } = node.props;
		await graph.conn.write(
			(q) => q.run("MATCH (n:Engrama {__ns: $ns, engrama_id: $id}) SET n += $ft", { ns: graph.namespace, id: node.id, ft: fulltextProperties(plain) }),
			"test: format 5 columns",
		);
		await graph.conn.write((q) => q.run("MERGE (m:EngramaMeta {__ns: $ns, key: $key}) SET m.value = '5'", { ns: graph.namespace, key: FULLTEXT_VERSION_KEY }), "test");
		const names = async (query: string) => (await opened.memory.searchFulltext(opened.scope, query)).map((h) => h.name);
		expect(await names("file recovery")).toEqual([]);

		const conn = graph.conn;
		conn.trace = "full";
		conn.resetCounts();
		await new Neo4jGraphStore(graph.conn, { namespace: graph.namespace }).init();
		const run = conn.resetCounts().statementsRun.map((s) => s.query);
		conn.trace = false;
		expect(run.filter((q) => q.includes("n.__seq > $after")).every((q) => q.includes("aliases IS NOT NULL") && !q.includes("valid_from"))).toBe(true);
		expect(run.filter((q) => q.includes("SET n += row.ft"))).toHaveLength(1);
		expect(await names("file recovery")).toEqual(["Файлы восстановления"]);
		expect(await names("Закладки")).toEqual(["Закладки"]);
		expect(await graph.getNode(opened.scope, "Concept", node.key)).toEqual(node);
	}, 120_000);

	it("gives nodes written before scope words theirs, once, and drops the first node fulltext index", async () => {
		opened = await neo4jTestBackend.open();
		const graph = opened.memory.graph as Neo4jGraphStore;
		const ctx = { scope: opened.scope, source: "cli" as const };
		for (const key of ["Walrus migration", "Walrus census", "Penguin census"]) {
			await opened.memory.remember(ctx, { label: "Concept", key, props: { description: `${key} notes` } });
		}
		// The memory as format 2 left it: no scope words, the first index beside it.
		await graph.conn.write((q) => q.run(`MATCH (n:${NODE_LABEL} {__ns: $ns}) REMOVE n.${FT_SCOPE_PROPERTY}`, { ns: graph.namespace }), "test: format 2");
		await graph.conn.write((q) => q.run("MERGE (m:EngramaMeta {__ns: $ns, key: $key}) SET m.value = '2'", { ns: graph.namespace, key: FULLTEXT_VERSION_KEY }), "test");
		await graph.conn.schema(`CREATE FULLTEXT INDEX engrama_fulltext IF NOT EXISTS FOR (n:${NODE_LABEL}) ON EACH [n.__ft_name]`);
		const names = async (query: string) => (await opened.memory.searchFulltext(opened.scope, query)).map((h) => h.name).sort();
		expect(await names("walrus")).toEqual([]);

		const conn = graph.conn;
		conn.trace = true;
		conn.resetCounts();
		await new Neo4jGraphStore(conn, { namespace: graph.namespace }).init();
		const seen = conn.resetCounts().log;
		conn.trace = false;
		expect(seen.filter((s) => s.includes(`SET n.${FT_SCOPE_PROPERTY} = row.words`))).toHaveLength(1);
		// Format 2 words are not rewritten again.
		expect(seen.filter((s) => s.includes("=~"))).toEqual([]);
		expect(await names("walrus")).toEqual(["Walrus census", "Walrus migration"]);
		expect(await names("census")).toEqual(["Penguin census", "Walrus census"]);
		const indexes = await conn.read((q) => q.run("SHOW INDEXES YIELD name RETURN collect(name) AS names"), "test");
		expect(indexes[0].names).not.toContain("engrama_fulltext");
		expect(indexes[0].names).toContain("engrama_node_words");

		conn.trace = true;
		conn.resetCounts();
		await new Neo4jGraphStore(conn, { namespace: graph.namespace }).init();
		const again = conn.resetCounts().log;
		conn.trace = false;
		expect(again.filter((s) => s.includes("scope words") || s.includes(FT_SCOPE_PROPERTY))).toEqual([]);
	}, 120_000);
});
