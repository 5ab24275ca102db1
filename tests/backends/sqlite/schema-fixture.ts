import { copyFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseConfig } from "../../../src/config/engrama-config";
import { exportMemory } from "../../../src/engine/transfer/memory-export";
import { openMemory, type OpenedMemory } from "../../../src/nodejs/open-memory";

/**
 * The memory files an older schema's code wrote (tests/fixtures/schema-vN: memory.db, made by
 * make-fixture.ts beside it, and export.ndjson, that code's full export), for migration tests.
 */
export const FIXTURE_OWNER = { orgId: "standalone", userId: "local-6f1c2a9e-4b7d-4e0a-9c3f-2d8e5b1a7c40" };

const HASH = { embedding: { provider: "hash" as const, model: "", dimensions: 16, baseUrl: "", apiKey: "", allowRemoteModels: false, localModelPath: "", timeoutMs: 30_000 } };

export function fixtureDir(schema: number): string {
	return join(__dirname, `../../fixtures/schema-v${schema}`);
}

/** Copies schema N's memory file to `path`, where today's code may migrate it. */
export function copyFixture(schema: number, path: string): void {
	copyFileSync(join(fixtureDir(schema), "memory.db"), path);
}

/** Opens a memory file as the fixture's owner, with the hash embedder its vectors were made with. */
export const openFixtureMemory = (path: string): Promise<OpenedMemory> =>
	openMemory(parseConfig({ backend: "sqlite", dbPath: path, ...FIXTURE_OWNER, ...HASH }));

/** The full export, one JSON line per entry, with the fixture's fixed version and time. */
export async function exportLines(opened: OpenedMemory): Promise<string[]> {
	const lines: string[] = [];
	const { memory } = opened;
	for await (const line of exportMemory(memory.graph, memory.vectors, { vectors: true, embeddingModel: memory.embedder?.model ?? "", version: "fixture", now: "2026-01-01T00:00:00.000Z", pageSize: 4 })) {
		lines.push(JSON.stringify(line));
	}
	return lines;
}

/**
 * Schema N's export as the code of today writes it: the file's schema version is no longer exported
 * (it is the file's own), and opening the fixture with its hash embedder records the vectors' model
 * (a meta row it had not), in its place: the end record's count of settings is the same.
 */
export function expectedLines(schema: number): string[] {
	const old = `{"type":"meta","key":"schema_version","value":"${schema}"}`;
	const model = `{"type":"meta","key":"embedding_model","value":"hash:hash-16"}`;
	return readFileSync(join(fixtureDir(schema), "export.ndjson"), "utf8")
		.trimEnd()
		.split("\n")
		.map((line) => (line === old ? model : line));
}
