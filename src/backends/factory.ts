import type { EngramaConfig } from "../config/engrama-config";
import { ValidationError } from "../engine/errors";
import type { Backend } from "./backend";
import { NullGraphStore } from "./null/null-graph-store";
import { SqliteGraphStore } from "./sqlite/sqlite-graph-store";
import { SqliteVectorStore } from "./sqlite/sqlite-vector-store";
import { openSqlite, type NativeOpener, type SqliteEngine } from "./sqlite/open-sqlite";
import type { SnapshotStorage } from "./sqlite/sqlite-connection";

export type { Backend } from "./backend";

export interface BackendOptions {
	/** Obsidian mobile: no Node fs, so the SQLite file is kept through the vault adapter. */
	readonly snapshot?: SnapshotStorage;
	/** Which SQLite engine (default wasm: the plugin's). `auto`/`native` need `openNative`. */
	readonly sqliteEngine?: SqliteEngine;
	/** The native engine's opener; only Node callers pass it (src/nodejs/node-backend.ts). */
	readonly openNative?: NativeOpener;
}

/** The one place that chooses a backend. Graph and vectors are opened together and initialised. */
export async function createBackend(config: EngramaConfig, options: BackendOptions = {}): Promise<Backend> {
	switch (config.backend) {
		case "sqlite": {
			const { conn, engine } = await openSqlite(
				{ path: config.dbPath, snapshot: options.snapshot, requiredTable: "nodes" },
				options.sqliteEngine ?? "wasm",
				options.openNative,
			);
			const graph = new SqliteGraphStore(conn, { engine });
			try {
				await graph.init();
			} catch (error) {
				await graph.close();
				throw error;
			}
			const vectors = config.vectorBackend === "none" ? null : new SqliteVectorStore(graph);
			return { graph, vectors };
		}
		case "null":
			return { graph: new NullGraphStore(), vectors: null };
		case "neo4j": {
			const { createNeo4jBackend } = await import("./neo4j/neo4j-backend");
			return createNeo4jBackend(config);
		}
		default:
			throw new ValidationError(`Unknown backend "${String(config.backend)}". Use sqlite, neo4j or null.`);
	}
}
