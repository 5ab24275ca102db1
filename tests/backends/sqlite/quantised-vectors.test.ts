import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PY_LAYOUT_VERSION, QUANTISED_TABLE, SCHEMA_VERSION } from "../../../src/backends/sqlite/schema";
import type { SqliteVectorStore } from "../../../src/backends/sqlite/sqlite-vector-store";
import { openDatabase } from "../../../src/backends/sqlite/wasm/open-database";
import { parseConfig } from "../../../src/config/engrama-config";
import { HashEmbeddingProvider } from "../../../src/engine/embedding/hash-embedding-provider";
import { openMemory, type OpenedMemory } from "../../../src/nodejs/open-memory";
import { makeTempDir } from "../../helpers/temp-dir";

const WORDS = "cache queue token retry index shard replica schema migration latency throughput lease lock journal snapshot vector graph anchor decay invoice billing client course lesson module oauth refresh webhook parser lexer runtime kernel socket stream codec".split(" ");
const QUERIES = ["cache retry", "billing invoice client", "socket stream codec kernel", "graph anchor", "oauth refresh webhook", "lesson module"];

async function open(path: string): Promise<OpenedMemory> {
	return openMemory(parseConfig({ backend: "sqlite", dbPath: path, orgId: "acme", userId: "ana" }), { embedder: new HashEmbeddingProvider(64) });
}

/** 240 nodes of four words each, embedded by the hash embedder. */
async function fill(opened: OpenedMemory): Promise<void> {
	const ctx = { scope: opened.scope, source: "cli" as const };
	await opened.memory.pipeline.transaction(async () => {
		for (let i = 0; i < 240; i++) {
			const text = [0, 1, 2, 3].map((j) => WORDS[(i * 7 + j * 13 + (i >> 3)) % WORDS.length]).join(" ");
			await opened.memory.remember(ctx, { label: "Concept", key: `Note ${i} ${text}` });
		}
	});
}

async function channels(opened: OpenedMemory, query: string) {
	const store = opened.memory.vectors as SqliteVectorStore;
	const vector = await new HashEmbeddingProvider(64).embed(query);
	return { quantised: await store.knn(opened.scope, vector, 10), float: await store.knnFloat(opened.scope, vector, 10) };
}

describe("the int8 vector channel", () => {
	let dir: ReturnType<typeof makeTempDir>;
	beforeEach(() => {
		dir = makeTempDir("engrama-int8-");
	});
	afterEach(() => dir.cleanup());

	it("returns the float scan's top hits with the float similarities (rescored)", async () => {
		const opened = await open(join(dir.path, "m.db"));
		try {
			await fill(opened);
			for (const query of QUERIES) {
				const { quantised, float } = await channels(opened, query);
				expect(quantised.length).toBe(10);
				// Equal similarities may come in either order.
				const rows = (hits: typeof quantised) => hits.map((h) => `${h.similarity.toFixed(5)} ${h.nodeId}`).sort();
				expect(rows(quantised)).toEqual(rows(float));
			}
		} finally {
			await opened.close();
		}
	});

	it("migrates a file made before the codes existed (schema 6) without losing a vector, and codes vectors written by the Python engrama", async () => {
		const path = join(dir.path, "old.db");
		let opened = await open(path);
		await fill(opened);
		const before = await channels(opened, "cache retry");
		await opened.close();
		// The file as Engrama schema 6 left it: no code table, its version in user_version.
		const db = await openDatabase({ path });
		db.exec(`DROP TABLE ${QUANTISED_TABLE}; DELETE FROM engrama_meta WHERE key = 'schema_version'; PRAGMA user_version = 6;`);
		const vectors = db.get<{ n: number }>("SELECT count(*) AS n FROM node_embeddings")?.n;
		db.close();
		expect(vectors).toBe(240);

		opened = await open(path);
		try {
			const conn = (opened.memory.vectors as unknown as { graph: { connection(): { get<T>(sql: string): T | undefined } } }).graph.connection();
			expect(conn.get<{ user_version: number }>("PRAGMA user_version")?.user_version).toBe(PY_LAYOUT_VERSION);
			expect(conn.get<{ value: string }>("SELECT value FROM engrama_meta WHERE key = 'schema_version'")?.value).toBe(String(SCHEMA_VERSION));
			expect(conn.get<{ n: number }>(`SELECT count(*) AS n FROM ${QUANTISED_TABLE}`)?.n).toBe(240);
			expect(conn.get<{ n: number }>("SELECT count(*) AS n FROM node_embeddings")?.n).toBe(240);
			expect(await channels(opened, "cache retry")).toEqual(before);
			expect((await opened.memory.search(opened.scope, "cache retry")).results.some((r) => (r.scores.vector ?? 0) > 0)).toBe(true);
		} finally {
			await opened.close();
		}

		// A reader that keeps only node_embeddings (the Python engrama) adds a vector: the next open codes it.
		const python = await openDatabase({ path });
		const row = python.get<{ node_id: number; embedding: Uint8Array }>("SELECT node_id, embedding FROM node_embeddings ORDER BY node_id LIMIT 1");
		python.run(`DELETE FROM ${QUANTISED_TABLE} WHERE node_id = ?`, [row?.node_id ?? 0]);
		python.close();
		opened = await open(path);
		try {
			const conn = (opened.memory.vectors as unknown as { graph: { connection(): { get<T>(sql: string): T | undefined } } }).graph.connection();
			await channels(opened, "cache retry");
			expect(conn.get<{ n: number }>(`SELECT count(*) AS n FROM ${QUANTISED_TABLE}`)?.n).toBe(240);
		} finally {
			await opened.close();
		}
	});
});
