/**
 * The backends' one door for everything above them (hosts and adapters): open the configured
 * backend, test a connection before using it, copy a memory from one backend to another, and the
 * few host-facing pieces of the SQLite engine (its warm-up switch, its lock and errors, mobile
 * snapshots). Neo4j and the migration are loaded on first use, so the driver stays unevaluated
 * unless Neo4j is chosen. The native SQLite engine has its own Node-only door (./native.ts), so
 * main.js never holds it. tests/architecture.test.ts keeps callers to these doors.
 */
import type { EngramaConfig } from "../config/engrama-config";
import type { HealthReport } from "../engine/backend-kit";
import type { PartialScope } from "../engine/types";
import type { Backend } from "./backend";
import type { MigrationOptions, MigrationReport } from "./migration/memory-migration";
import type { Neo4jBackendOptions } from "./neo4j/neo4j-backend";

export { createBackend, type Backend, type BackendOptions } from "./factory";
export type { MigrationOptions, MigrationReport, ScopeCounts, ScopeReport } from "./migration/memory-migration";
export type { Neo4jBackendOptions } from "./neo4j/neo4j-backend";
export type { SnapshotStorage } from "./sqlite/sqlite-connection";
export { setSqliteWarmUp } from "./sqlite/wasm/warm-up-setting";
export { acquireProcessLock, type ProcessLock } from "./sqlite/wasm/process-lock";
export { DatabaseLockedError } from "./sqlite/wasm/errors";
export { MEMORY_LOG_SUFFIXES } from "./sqlite/wasm/engrama-log";

/**
 * Why the configured server cannot be used, in words a person can act on, or null when it answers
 * (one attempt, no retries). Backends without a server (sqlite, null) always answer null.
 */
export async function testConnection(config: EngramaConfig): Promise<string | null> {
	if (config.backend !== "neo4j") return null;
	const { neo4jSettings, testNeo4jConnection } = await import("./neo4j/neo4j-backend");
	return testNeo4jConnection(neo4jSettings(config));
}

/** Opens Neo4j with options the configuration does not hold (a memory's namespace, no retries). */
export async function createNeo4jBackend(config: EngramaConfig, options?: Neo4jBackendOptions): Promise<Backend> {
	const neo4j = await import("./neo4j/neo4j-backend");
	return neo4j.createNeo4jBackend(config, options);
}

/** Closes an opened backend: the graph store releases its file or connection (the vector store shares it). */
export function closeBackend(backend: Backend): Promise<void> {
	return backend.graph.close();
}

/** How an opened backend is (reachable, nodes, relations, schema, engine): one round trip to a server. */
export function backendHealth(backend: Backend): Promise<HealthReport> {
	return backend.graph.health();
}

/** How many nodes and relations a scope holds in an opened backend (what a copy into it would replace). */
export function scopeCounts(backend: Backend, scope: PartialScope): Promise<{ readonly nodes: number; readonly edges: number }> {
	return backend.graph.counts(scope);
}

/** `engrama migrate`: copies every scope of `source` into `target`, then verifies counts and content. */
export async function migrateMemory(source: Backend, target: Backend, options?: MigrationOptions): Promise<MigrationReport> {
	const migration = await import("./migration/memory-migration");
	return migration.migrateMemory(source, target, options);
}
