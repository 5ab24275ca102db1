import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SqliteGraphStore } from "../../../src/backends/sqlite/sqlite-graph-store";
import { SCHEMA_VERSION } from "../../../src/backends/sqlite/schema";
import { parseConfig } from "../../../src/config/engrama-config";
import { Memory } from "../../../src/engine/memory";
import type { PassageInput } from "../../../src/engine/protocols";
import { indexText } from "../../../src/engine/search/words";
import { createSkills } from "../../../src/engine/skills";
import { createNodeBackend } from "../../../src/nodejs/node-backend";
import { testProfile } from "../../contracts/backends";
import { makeTempDir } from "./wasm/temp-dir";

const ME = { orgId: "acme", userId: "alice" };
const OTHER = { orgId: "acme", userId: "bob" };
const NOTES = 8;

// Schema 12's passages (PASSAGES_V11 then): the text in each row, an external-content index.
const V12_PASSAGES = `
CREATE TABLE note_passages (
	id       INTEGER PRIMARY KEY,
	node_id  INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
	ord      INTEGER NOT NULL,
	heading  TEXT NOT NULL,
	line     INTEGER NOT NULL,
	hash     TEXT NOT NULL,
	body     TEXT NOT NULL,
	original TEXT
);
CREATE INDEX idx_note_passages_node ON note_passages(node_id, ord);
CREATE VIRTUAL TABLE passages_fts USING fts5(body, content='note_passages', content_rowid='id');
CREATE VIRTUAL TABLE passages_fts_vocab USING fts5vocab(passages_fts, 'row');
CREATE TRIGGER engrama_passage_deleted AFTER DELETE ON note_passages BEGIN
	INSERT INTO passages_fts(passages_fts, rowid, body) VALUES ('delete', old.id, old.body);
END;
`;

/** Note i's passages in version v: the opening stays, the details change, a Chinese section (indexed in pairs) in every other note. */
function passagesOf(i: number, version: number): PassageInput[] {
	const out: PassageInput[] = [
		{ heading: "", line: 1, text: `Opening words of note ${i} about quokkas and wombats`, hash: `open${i}` },
		{ heading: "Details", line: 4, text: `Details ${version} of note ${i}: numbats burrow${version} in the meadow`, hash: `details${i}-${version}` },
	];
	if (i % 2 === 0) out.push({ heading: "数据库", line: 8, text: `数据库设计 第${version}版 note${i}`, hash: `zh${i}-${version}` });
	return out;
}

const QUERIES = ["quokkas", "numbats", "burrow1", "burrow2", "meadow", "数据库", "note3", "wombats"];

// Passage text is stored once per note, deflated, and passages_fts is contentless (schema 14): a
// delete must give the index the very text a passage was indexed with, or its words stay behind.
describe.each(["wasm", "native"] as const)("passage text on SQLite (%s)", (engine) => {
	let temp: ReturnType<typeof makeTempDir>;
	beforeEach(() => {
		temp = makeTempDir();
	});
	afterEach(() => temp.cleanup());

	async function open(name: string) {
		const config = parseConfig({ backend: "sqlite", sqliteEngine: engine, dbPath: temp.file(name), orgId: ME.orgId, userId: ME.userId });
		const { graph, vectors } = await createNodeBackend(config);
		const memory = new Memory({ graph, vectors, embedder: null, profile: testProfile() });
		const conn = (graph as SqliteGraphStore).connection();
		const node = async (scope: typeof ME, i: number) =>
			(await createSkills(memory).remember({ scope, source: "sync" }, { label: "Project", name: `Note ${i}` })).node.node_id;
		const vocab = () => conn.all<{ term: string; doc: number; cnt: number }>("SELECT term, doc, cnt FROM passages_fts_vocab ORDER BY term");
		const integrity = () => conn.run("INSERT INTO passages_fts(passages_fts) VALUES ('integrity-check')");
		const answers = async () => {
			const out: Record<string, unknown> = {};
			for (const text of QUERIES) {
				const hits = (await graph.searchPassages!(ME, { text, limit: 50 })) ?? [];
				out[text] = hits.map((h) => ({ text: h.passage.text, heading: h.passage.heading, score: h.score.toFixed(9) }));
			}
			return out;
		};
		return { graph, conn, node, vocab, integrity, answers, close: () => memory.close() };
	}

	/** Turns an open schema 14 file into the layout schema 12 wrote (text in the rows, an external-content index) holding these passages. */
	function writeV12(old: Awaited<ReturnType<typeof open>>, ids: readonly string[], passagesFor: (i: number) => PassageInput[]): Map<string, number> {
		old.conn.exec(`DROP TRIGGER engrama_passage_text_deleted; DROP TABLE passages_fts_vocab; DROP TABLE passages_fts;
			DROP TABLE note_passage_text; DROP TABLE note_passage_text_gone; DROP TABLE note_passages; ${V12_PASSAGES}`);
		const rowIds = new Map<string, number>();
		for (const [i, nodeId] of ids.entries()) {
			const rowId = old.conn.get<{ id: number }>("SELECT id FROM nodes WHERE json_extract(props, '$.engrama_id') = ?", [nodeId])!.id;
			for (const [ord, p] of passagesFor(i).entries()) {
				const body = indexText(p.text);
				old.conn.run("INSERT INTO note_passages(node_id, ord, heading, line, hash, body, original) VALUES (?, ?, ?, ?, ?, ?, ?)", [
					rowId,
					ord,
					p.heading,
					p.line,
					p.hash,
					body,
					body === p.text ? null : p.text,
				]);
				const id = old.conn.get<{ id: number }>("SELECT last_insert_rowid() AS id")!.id;
				old.conn.run("INSERT INTO passages_fts(rowid, body) VALUES (?, ?)", [id, body]);
				rowIds.set(`${i}:${p.hash}`, id);
			}
		}
		old.conn.run("UPDATE engrama_meta SET value = '12' WHERE key = 'schema_version'");
		return rowIds;
	}

	it("edits, emptied notes, deletes and a scope's forget leave the index as one built from the passages that remain", async () => {
		const edited = await open("edited.db");
		const fresh = await open("fresh.db");
		try {
			const ids: string[] = [];
			for (let i = 0; i < NOTES; i++) ids.push(await edited.node(ME, i));
			const theirs = [await edited.node(OTHER, 100), await edited.node(OTHER, 101)];
			await edited.graph.writeManyPassages!(ME, ids.map((nodeId, i) => ({ nodeId, passages: passagesOf(i, 1) })));
			for (const [j, nodeId] of theirs.entries()) await edited.graph.writePassages!(OTHER, nodeId, passagesOf(100 + j, 1));
			// Hits read before the edits (their text is inflated when first read) keep the text they were found with.
			const early = await edited.graph.searchPassages!(ME, { text: "burrow1", limit: 50 });
			// Version 2 of every note: the opening kept, the rest replaced; note 1 emptied; note 2 deleted; bob forgotten.
			const change = await edited.graph.writeManyPassages!(ME, ids.map((nodeId, i) => ({ nodeId, passages: passagesOf(i, 2) })));
			expect(change[0]).toMatchObject({ kept: 1, removed: 2 });
			expect(await edited.graph.writePassages!(ME, ids[1], [])).toMatchObject({ removed: 2 });
			expect(await edited.graph.deleteNode(ME, ids[2])).toBe(true);
			expect((await edited.graph.forgetScope(OTHER)).passages).toBe(5);
			edited.integrity();
			expect(early.map((h) => h.passage.text).sort()).toEqual(ids.map((_, i) => passagesOf(i, 1)[1].text).sort());

			const remaining = [0, 3, 4, 5, 6, 7];
			for (const i of [0, 1, 2, ...remaining.slice(1)]) await fresh.node(ME, i);
			const freshIds = (await fresh.graph.listNodes(ME, { limit: 100 })).map((n) => n.id);
			await fresh.graph.writeManyPassages!(
				ME,
				remaining.map((i) => ({ nodeId: freshIds[i], passages: passagesOf(i, 2) })),
			);
			expect(edited.vocab()).toEqual(fresh.vocab());
			expect(edited.vocab().some((t) => t.term === "burrow1")).toBe(false);
			expect(await edited.answers()).toEqual(await fresh.answers());
			expect((await edited.graph.passagesOf!(ME, ids[4])).map((p) => p.text)).toEqual(passagesOf(4, 2).map((p) => p.text));
			expect(edited.conn.get<{ n: number }>("SELECT count(*) AS n FROM note_passage_text")?.n).toBe(remaining.length);
			expect(edited.conn.get<{ n: number }>("SELECT count(*) AS n FROM note_passage_text_gone")?.n).toBe(0);
		} finally {
			await edited.close();
			await fresh.close();
		}
	});

	it("a node another program deleted (its rows cascade) has its passages' words removed at the next open", async () => {
		const first = await open("shared.db");
		const kept = await first.node(ME, 0);
		const dropped = await first.node(ME, 1);
		await first.graph.writePassages!(ME, kept, passagesOf(0, 1));
		await first.graph.writePassages!(ME, dropped, [{ heading: "", line: 1, text: "Ocelotquill sings alone", hash: "solo" }]);
		// As the Python engrama deletes a node: one statement, foreign keys on, nothing of ours run.
		first.conn.run("DELETE FROM nodes WHERE json_extract(props, '$.engrama_id') = ?", [dropped]);
		expect(first.conn.get<{ n: number }>("SELECT count(*) AS n FROM note_passage_text_gone")?.n).toBe(1);
		expect(first.vocab().some((t) => t.term === "ocelotquill")).toBe(true);
		await first.close();

		const again = await open("shared.db");
		try {
			expect(again.conn.get<{ n: number }>("SELECT count(*) AS n FROM note_passage_text_gone")?.n).toBe(0);
			expect(again.vocab().some((t) => t.term === "ocelotquill")).toBe(false);
			expect(again.vocab().find((t) => t.term === "quokkas")?.doc).toBe(1);
			again.integrity();
		} finally {
			await again.close();
		}
	});

	it("a schema 12 file is migrated in place: same passages, ids, words and answers, the text columns gone", async () => {
		const old = await open("v12.db");
		const ids: string[] = [];
		for (let i = 0; i < NOTES; i++) ids.push(await old.node(ME, i));
		const rowIds = writeV12(old, ids, (i) => passagesOf(i, 1));
		const before = { vocab: old.vocab() };
		expect(before.vocab.some((t) => t.term === "quokkas")).toBe(true);
		await old.close();
		// The answers schema 14 gives for the same notes written afresh.
		const reference = await open("reference.db");
		const referenceIds: string[] = [];
		for (let i = 0; i < NOTES; i++) referenceIds.push(await reference.node(ME, i));
		await reference.graph.writeManyPassages!(ME, referenceIds.map((nodeId, i) => ({ nodeId, passages: passagesOf(i, 1) })));
		const answers = await reference.answers();
		expect(reference.vocab()).toEqual(before.vocab);
		await reference.close();

		const upgraded = await open("v12.db");
		try {
			const conn = upgraded.conn;
			expect(conn.get<{ value: string }>("SELECT value FROM engrama_meta WHERE key = 'schema_version'")?.value).toBe(String(SCHEMA_VERSION));
			expect(conn.all<{ name: string }>("PRAGMA table_info(note_passages)").map((c) => c.name)).toEqual(["id", "node_id", "ord", "heading", "line", "hash"]);
			expect(conn.get<{ sql: string }>("SELECT sql FROM sqlite_master WHERE name = 'passages_fts'")?.sql).toContain("content=''");
			expect(await upgraded.answers()).toEqual(answers);
			expect(upgraded.vocab()).toEqual(before.vocab);
			upgraded.integrity();
			const stored = await upgraded.graph.passagesOf!(ME, ids[2]);
			expect(stored.map((p) => [p.id, p.text])).toEqual(passagesOf(2, 1).map((p) => [String(rowIds.get(`2:${p.hash}`)), p.text]));
			// And the migrated text is what the next edit un-indexes.
			await upgraded.graph.writePassages!(ME, ids[2], passagesOf(2, 2));
			expect(upgraded.vocab().find((t) => t.term === "burrow1")?.doc).toBe(NOTES - 1);
			upgraded.integrity();
		} finally {
			await upgraded.close();
		}
	});
	it("a schema 12 file with many passages is compacted once migrated: the text's old pages do not stay", async () => {
		const old = await open("big.db");
		const ids: string[] = [];
		for (let i = 0; i < NOTES; i++) ids.push(await old.node(ME, i));
		const many = (i: number): PassageInput[] =>
			Array.from({ length: 150 }, (_, k) => ({ heading: `Part ${k}`, line: 3 * k + 1, text: `Part ${k} of note ${i}: ${"lorem ipsum dolor ".repeat(20)}${k * i}`, hash: `p${i}-${k}` }));
		writeV12(old, ids, many);
		await old.close();
		const upgraded = await open("big.db");
		try {
			expect(upgraded.conn.get<{ freelist_count: number }>("PRAGMA freelist_count")?.freelist_count).toBe(0);
			expect((await upgraded.graph.passagesOf!(ME, ids[5])).map((p) => p.text)).toEqual(many(5).map((p) => p.text));
			upgraded.integrity();
		} finally {
			await upgraded.close();
		}
	});
});
