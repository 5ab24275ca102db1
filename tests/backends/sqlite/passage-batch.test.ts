import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SqliteGraphStore } from "../../../src/backends/sqlite/sqlite-graph-store";
import { parseConfig } from "../../../src/config/engrama-config";
import { Memory } from "../../../src/engine/memory";
import type { PassageInput } from "../../../src/engine/protocols";
import { createSkills } from "../../../src/engine/skills";
import { createNodeBackend } from "../../../src/nodejs/node-backend";
import { testProfile } from "../../contracts/backends";
import { makeTempDir } from "./wasm/temp-dir";

const ME = { orgId: "acme", userId: "alice" };
const NOTES = 30;

const passagesOf = (i: number): PassageInput[] => [
	{ heading: "", line: 1, text: `Opening words of note ${i} about quokkas`, hash: `a${i}` },
	{ heading: "Details", line: 4, text: `Details of note ${i}: wombats and numbats`, hash: `b${i}` },
];

// FTS5 writes its pending words as a new segment at every savepoint: a sync batch's passages go
// in under one, not one per note (10k notes made 10k segments to write and merge).
describe.each(["wasm", "native"] as const)("a sync batch's passages on SQLite (%s)", (engine) => {
	let temp: ReturnType<typeof makeTempDir>;
	beforeEach(() => {
		temp = makeTempDir();
	});
	afterEach(() => temp.cleanup());

	async function open(name: string) {
		const config = parseConfig({ backend: "sqlite", sqliteEngine: engine, dbPath: temp.file(name), orgId: ME.orgId, userId: ME.userId });
		const { graph, vectors } = await createNodeBackend(config);
		const memory = new Memory({ graph, vectors, embedder: null, profile: testProfile() });
		const ids: string[] = [];
		for (let i = 0; i < NOTES; i++) ids.push((await createSkills(memory).remember({ scope: ME, source: "sync" }, { label: "Project", name: `Note ${i}` })).node.node_id);
		const conn = (graph as SqliteGraphStore).connection();
		// Automerge off, so the segments written stay countable.
		conn.run("INSERT INTO passages_fts(passages_fts, rank) VALUES ('automerge', 0)");
		const segments = () => Number(conn.get<{ n: number }>("SELECT count(DISTINCT segid) AS n FROM passages_fts_idx")?.n);
		return { graph, ids, segments, close: () => memory.close() };
	}

	it("writes one FTS5 segment for the batch, and answers as one write per note does", async () => {
		const batch = await open("batch.db");
		const single = await open("single.db");
		try {
			const many = await batch.graph.writeManyPassages!(ME, batch.ids.map((nodeId, i) => ({ nodeId, passages: passagesOf(i) })));
			const one = await single.graph.transaction(async () => {
				const out = [];
				for (const [i, nodeId] of single.ids.entries()) out.push(await single.graph.writePassages!(ME, nodeId, passagesOf(i)));
				return out;
			});
			expect(batch.segments()).toBe(1);
			// One per note or two (here 15 for 30 notes): what the batch saves.
			expect(single.segments()).toBeGreaterThanOrEqual(NOTES / 2);
			const shape = (changes: readonly { added: readonly { hash: string }[]; kept: number; removed: number }[]) =>
				changes.map((c) => ({ added: c.added.map((p) => p.hash), kept: c.kept, removed: c.removed }));
			expect(shape(many)).toEqual(shape(one));
			// A second batch keeps what is unchanged and replaces the rest, note by note.
			const again = await batch.graph.writeManyPassages!(ME, batch.ids.map((nodeId, i) => ({ nodeId, passages: [passagesOf(i)[0]] })));
			expect(again.every((c) => c.kept === 1 && c.added.length === 0 && c.removed === 1)).toBe(true);
		} finally {
			await batch.close();
			await single.close();
		}
	});
});
