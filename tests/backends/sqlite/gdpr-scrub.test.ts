import { existsSync, readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createNodeBackend } from "../../../src/nodejs/node-backend";
import type { SqliteGraphStore } from "../../../src/backends/sqlite/sqlite-graph-store";
import { parseConfig } from "../../../src/config/engrama-config";
import { Memory } from "../../../src/engine/memory";
import { createSkills } from "../../../src/engine/skills";
import { splitPassages } from "../../../src/engine/sync/passages";
import { testProfile } from "../../contracts/backends";
import { BagOfWordsEmbedder } from "../../engine/skills/skill-fixture";
import { makeTempDir } from "./wasm/temp-dir";

const ME = { orgId: "acme", userId: "alice" };
const OTHER = { orgId: "acme", userId: "bob" };

// "No trace" means the bytes, not just the rows: SQLite keeps deleted content in free space, FTS5
// keeps deleted terms in its segments and the WAL keeps old page images until they are dropped.
// Both Node engines (WASM: the plugin's, native: the command line's), 80 writes and a forget each.
describe.each(["wasm", "native"] as const)("GDPR forget on SQLite (%s) leaves nothing of the caller in the files", (engine) => {
	let temp: ReturnType<typeof makeTempDir>;
	beforeEach(() => {
		temp = makeTempDir();
	});
	afterEach(() => temp.cleanup());

	it("names, descriptions, vectors, note passages (words and vectors) and the caller's counters are gone from the database and its WAL", async () => {
		const dbPath = temp.file("memory.db");
		const config = parseConfig({ backend: "sqlite", sqliteEngine: engine, dbPath, orgId: ME.orgId, userId: ME.userId });
		const { graph, vectors } = await createNodeBackend(config);
		const memory = new Memory({ graph, vectors, embedder: new BagOfWordsEmbedder(), profile: testProfile() });
		const skills = createSkills(memory);
		const mine = { scope: ME, source: "mcp" as const };
		const theirs = { scope: OTHER, source: "mcp" as const };
		for (let i = 0; i < 40; i++) {
			await skills.remember(mine, { label: "Project", name: `Zanzibarquux ${i}`, props: { description: `Secret plan wobblefrotz number ${i}` } });
			await skills.remember(theirs, { label: "Project", name: `Keepsake ${i}`, props: { description: `Shared plan glimmerhaus number ${i}` } });
		}
		// Each note's sections, as vault sync stores them (words in passages_fts, vectors in passage_embeddings).
		const notes = [
			{ ctx: { scope: ME, source: "sync" as const }, word: "Quokkaglyph" },
			{ ctx: { scope: OTHER, source: "sync" as const }, word: "Marmosetvale" },
		];
		for (const { ctx, word } of notes) {
			for (const node of await graph.listNodes(ctx.scope, { limit: 100 })) {
				const body = `# ${node.key}\n\n${word} intro of ${node.key}.\n\n## Details\n\nThe ${word.toLowerCase()} ledger is kept in section ${node.key}.`;
				expect((await memory.pipeline.storeNotePassages(ctx, node, splitPassages(body))).embedded).toBe(2);
			}
		}
		const conn = (graph as SqliteGraphStore).connection();
		const myPassageVectors = conn
			.all<{ v: Uint8Array }>(
				`SELECT e.embedding AS v FROM passage_embeddings e JOIN note_passages p ON p.id = e.passage_id JOIN nodes n ON n.id = p.node_id
				WHERE json_extract(n.props, '$.user_id') = ?`,
				[ME.userId],
			)
			.map((r) => Buffer.from(r.v));
		expect(myPassageVectors.length).toBe(80);
		const myVectors = conn
			.all<{ v: Uint8Array }>(
				"SELECT e.embedding AS v FROM node_embeddings e JOIN nodes n ON n.id = e.node_id WHERE json_extract(n.props, '$.user_id') = ?",
				[ME.userId],
			)
			.map((r) => Buffer.from(r.v));
		expect(myVectors.length).toBe(40);
		expect(await graph.getMeta(`proactive.remembers_since_reflect:${ME.orgId}:${ME.userId}`)).not.toBeNull();

		const report = await skills.gdprForget(mine, { apply: true });
		expect(report.counts).toMatchObject({ nodes: 40, vectors: 40, fulltext: 40, passages: 80 });
		// The other tenant's passages still answer, by words and by vector.
		expect(await graph.searchPassages?.(OTHER, { text: "marmosetvale", limit: 100 })).toHaveLength(80);
		expect(conn.get<{ n: number }>("SELECT count(*) AS n FROM passage_embeddings")?.n).toBe(80);
		// The passage text is deflated (no plain bytes to look for): none of the caller's is left, nor its words in the index.
		expect(conn.get<{ n: number }>("SELECT count(*) AS n FROM note_passage_text")?.n).toBe(40);
		expect(conn.get<{ n: number }>("SELECT count(*) AS n FROM note_passage_text_gone")?.n).toBe(0);
		expect(conn.all("SELECT term FROM passages_fts_vocab WHERE term = 'quokkaglyph'")).toEqual([]);
		expect(conn.get<{ doc: number }>("SELECT doc FROM passages_fts_vocab WHERE term = 'marmosetvale'")?.doc).toBe(80);
		conn.run("INSERT INTO passages_fts(passages_fts) VALUES ('integrity-check')");
		expect(await graph.getMeta(`proactive.remembers_since_reflect:${ME.orgId}:${ME.userId}`)).toBeNull();
		expect(await graph.getMeta(`proactive.remembers_since_reflect:${OTHER.orgId}:${OTHER.userId}`)).not.toBeNull();
		await memory.close();

		const files = [dbPath, `${dbPath}-wal`, `${dbPath}.engrama-wal`, `${dbPath}-journal`].filter((f) => existsSync(f)).map((f) => readFileSync(f));
		const bytes = Buffer.concat(files);
		for (const word of ["Zanzibarquux", "zanzibarquux", "wobblefrotz", "Quokkaglyph", "quokkaglyph", "alice"]) expect(bytes.includes(word), word).toBe(false);
		for (const v of myVectors) expect(bytes.includes(v)).toBe(false);
		for (const v of myPassageVectors) expect(bytes.includes(v), "a passage vector").toBe(false);
		// The other tenant's memory is all still there.
		expect(bytes.includes("Keepsake 39")).toBe(true);
		expect(bytes.includes("glimmerhaus")).toBe(true);
		expect(bytes.includes("marmosetvale")).toBe(true);
	}, 120_000);
});

// A hard forget (one node, or TTL expiry) is an erasure too: its words must not stay in FTS5's
// segments (nodes and passages) nor in old page images of the WAL.
describe.each(["wasm", "native"] as const)("hard forget on SQLite (%s) leaves nothing readable of the node in the files", (engine) => {
	let temp: ReturnType<typeof makeTempDir>;
	beforeEach(() => {
		temp = makeTempDir();
	});
	afterEach(() => temp.cleanup());

	it("forget --hard and TTL --hard: name, description and note passages are gone from the database and its WAL", async () => {
		const dbPath = temp.file("memory.db");
		const config = parseConfig({ backend: "sqlite", sqliteEngine: engine, dbPath, orgId: ME.orgId, userId: ME.userId });
		const { graph, vectors } = await createNodeBackend(config);
		let now = new Date("2026-01-01T00:00:00Z");
		const clock = { now: () => now };
		const memory = new Memory({ graph, vectors, embedder: new BagOfWordsEmbedder(), profile: testProfile(), clock });
		const skills = createSkills(memory);
		const ctx = { scope: ME, source: "mcp" as const };
		const sync = { scope: ME, source: "sync" as const };
		const words = { hard: ["Plinthwhistle", "frobnoodle", "Kestrelquay"], ttl: ["Oxbowjangle", "quiltmorrow", "Tamarindhush"] };
		for (const [name, description, passage] of [words.hard, words.ttl]) {
			const node = (await skills.remember(ctx, { label: "Project", name, props: { description: `The ${description} plan` } })).node;
			const record = await graph.getNodeById(ME, node.node_id);
			await memory.pipeline.storeNotePassages(sync, record!, splitPassages(`# ${name}\n\nThe ${passage} section.\n\n## More\n\nAnother ${passage} line.`));
		}
		now = new Date("2026-03-01T00:00:00Z");
		for (let i = 0; i < 20; i++) await skills.remember(ctx, { label: "Project", name: `Keeper ${i}`, props: { description: `Kept plan tamboline ${i}` } });
		await skills.forget(ctx, { label: "Project", name: words.hard[0] }, { hard: true });
		const ttl = await skills.forgetByTtl(ctx, { days: 30, hard: true, apply: true });
		expect(ttl.count).toBe(1);
		const conn = (graph as SqliteGraphStore).connection();
		expect(conn.get<{ n: number }>("SELECT count(*) AS n FROM note_passage_text")?.n).toBe(0);
		expect(conn.all("SELECT term FROM passages_fts_vocab")).toEqual([]);
		await memory.close();

		const bytes = Buffer.concat([dbPath, `${dbPath}-wal`, `${dbPath}-journal`].filter((f) => existsSync(f)).map((f) => readFileSync(f)));
		for (const word of [...words.hard, ...words.ttl]) {
			expect(bytes.includes(word), word).toBe(false);
			expect(bytes.includes(word.toLowerCase()), word.toLowerCase()).toBe(false);
		}
		expect(bytes.includes("tamboline")).toBe(true);
	}, 120_000);
});
