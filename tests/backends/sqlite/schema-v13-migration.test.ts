import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FLOAT_CHUNK_ROWS, SCHEMA_VERSION } from "../../../src/backends/sqlite/schema";
import { openDatabase } from "../../../src/backends/sqlite/wasm/open-database";
import { parseConfig } from "../../../src/config/engrama-config";
import { HashEmbeddingProvider } from "../../../src/engine/embedding/hash-embedding-provider";
import type { VectorStore } from "../../../src/engine/protocols";
import { openMemory, type OpenedMemory } from "../../../src/nodejs/open-memory";
import { makeTempDir } from "../../helpers/temp-dir";

const SCOPE = { orgId: "acme", userId: "ana" };
const open = (path: string) => openMemory(parseConfig({ backend: "sqlite", dbPath: path, ...SCOPE }), { embedder: new HashEmbeddingProvider(16) });
const declaration = async (path: string) => {
	const db = await openDatabase({ path, readonly: true });
	try {
		return db.get<{ sql: string }>("SELECT sql FROM sqlite_master WHERE name = 'node_embeddings'")?.sql ?? "";
	} finally {
		db.close();
	}
};

/** Every node's stored float vector and the vector channel's answer to a few queries. */
async function vectorsAndAnswers(opened: OpenedMemory, ids: readonly string[]) {
	const vectors = opened.memory.vectors as unknown as Required<Pick<VectorStore, "vectorsOf">>;
	const stored = [...(await vectors.vectorsOf(opened.scope, ids))].map(([id, v]) => [id, Array.from(v)]);
	const embedder = new HashEmbeddingProvider(16);
	const answers = [];
	for (const query of ["queue consumer", "billing invoice", "graph memory"]) {
		answers.push((await opened.memory.vectors!.knn(opened.scope, await embedder.embed(query), 5)).map((h) => [h.nodeId, h.similarity.toFixed(6)]));
	}
	return { stored, answers };
}

describe("schema 13 (float vectors in small vec0 chunks) from a schema 12 file", () => {
	let dir: ReturnType<typeof makeTempDir>;
	let path: string;
	beforeEach(() => {
		dir = makeTempDir("engrama-v13-");
		path = join(dir.path, "memory.db");
	});
	afterEach(() => dir.cleanup());

	it("a new memory declares its float table in small chunks; an older file's is rebuilt so, vectors and answers unchanged", async () => {
		let opened = await open(path);
		const ctx = { scope: opened.scope, source: "cli" as const };
		const words = ["queue", "consumer", "billing", "invoice", "graph", "memory", "vault", "note", "retry", "cache"];
		const ids: string[] = [];
		for (let i = 0; i < 150; i++) {
			const node = await opened.memory.remember(ctx, { label: "Concept", key: `Concept ${i}`, props: { description: `${words[i % 10]} ${words[(i * 3) % 10]} ${words[(i * 7) % 10]}` } });
			ids.push(node.node.id);
		}
		const before = await vectorsAndAnswers(opened, ids);
		await opened.close();
		expect(await declaration(path)).toMatch(new RegExp(`float\\[16\\] distance_metric=cosine, chunk_size=${FLOAT_CHUNK_ROWS}\\)`));

		// A schema 12 file: the same vectors in vec0's default chunks.
		const db = await openDatabase({ path });
		try {
			db.exec(`CREATE TEMP TABLE v AS SELECT node_id, embedding FROM node_embeddings;
				DROP TABLE node_embeddings;
				CREATE VIRTUAL TABLE node_embeddings USING vec0(node_id INTEGER PRIMARY KEY, embedding float[16] distance_metric=cosine);
				INSERT INTO node_embeddings(node_id, embedding) SELECT node_id, embedding FROM temp.v;`);
			db.run("UPDATE engrama_meta SET value = '12' WHERE key = 'schema_version'");
		} finally {
			db.close();
		}
		expect(await declaration(path)).not.toMatch(/chunk_size/);

		opened = await open(path);
		try {
			expect((await opened.memory.graph.health()).schemaVersion).toBe(SCHEMA_VERSION);
			expect(await vectorsAndAnswers(opened, ids)).toEqual(before);
		} finally {
			await opened.close();
		}
		expect(await declaration(path)).toMatch(new RegExp(`chunk_size=${FLOAT_CHUNK_ROWS}\\)`));
	});
});
