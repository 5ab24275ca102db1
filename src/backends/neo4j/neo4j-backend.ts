import type { EngramaConfig } from "../../config/engrama-config";
import type { Backend } from "../backend";
import { DEFAULT_RETRY, Neo4jConnection, type Neo4jSettings, type RetryPolicy } from "./neo4j-connection";
import { Neo4jGraphStore } from "./neo4j-graph-store";
import { Neo4jVectorStore } from "./neo4j-vector-store";

export interface Neo4jBackendOptions {
	/** Which memory in the database (default "default"); tests give each memory its own. */
	readonly namespace?: string;
	readonly retry?: Partial<RetryPolicy>;
}

export interface Neo4jBackend extends Backend {
	readonly graph: Neo4jGraphStore;
	readonly vectors: Neo4jVectorStore | null;
}

export function neo4jSettings(config: EngramaConfig): Neo4jSettings {
	return { uri: config.neo4j.uri, username: config.neo4j.username, password: config.neo4j.password, database: config.neo4j.database };
}

// Options bound to one config object, for callers that go through the generic factory
// (openMemory → createBackend) but need their own memory in a shared database: the contract tests.
const boundOptions = new WeakMap<EngramaConfig, Neo4jBackendOptions>();

/** Makes `createNeo4jBackend(config)` use these options for this exact config object. */
export function bindNeo4jOptions(config: EngramaConfig, options: Neo4jBackendOptions): EngramaConfig {
	boundOptions.set(config, options);
	return config;
}

/**
 * Opens the Neo4j backend: checks the server answers (retrying while it starts), then creates
 * the constraints and indexes if they are missing. Fails with a BackendError naming the URI.
 */
export async function createNeo4jBackend(config: EngramaConfig, explicit?: Neo4jBackendOptions): Promise<Neo4jBackend> {
	const options = explicit ?? boundOptions.get(config) ?? {};
	const conn = new Neo4jConnection(neo4jSettings(config), { ...DEFAULT_RETRY, ...options.retry });
	const graph = new Neo4jGraphStore(conn, { namespace: options.namespace });
	try {
		await graph.init();
	} catch (error) {
		await graph.close();
		throw error;
	}
	const vectors = config.vectorBackend === "none" || config.vectorBackend === "sqlite-vec" ? null : new Neo4jVectorStore(graph);
	return { graph, vectors };
}

/** The settings panel's "test connection": null when Neo4j answers, else what is wrong. */
export async function testNeo4jConnection(settings: Neo4jSettings, retry: Partial<RetryPolicy> = { maxElapsedMs: 0 }): Promise<string | null> {
	const conn = new Neo4jConnection(settings, { ...DEFAULT_RETRY, ...retry });
	try {
		await conn.verify();
		return null;
	} catch (error) {
		return error instanceof Error ? error.message : String(error);
	} finally {
		await conn.close();
	}
}
