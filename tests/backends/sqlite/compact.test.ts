import { statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../../src/config/engrama-config";
import { exportMemory } from "../../../src/engine/transfer/memory-export";
import { compactMemory } from "../../../src/engine/verify";
import { openMemory, type OpenedMemory } from "../../../src/nodejs/open-memory";
import { makeTempDir } from "../../helpers/temp-dir";

const HASH = { embedding: { provider: "hash" as const, model: "", dimensions: 16, baseUrl: "", apiKey: "", allowRemoteModels: false, localModelPath: "", timeoutMs: 30_000 } };
const OWNER = { orgId: "standalone", userId: "local-6f1c2a9e-4b7d-4e0a-9c3f-2d8e5b1a7c40" };
const person = { scope: OWNER, source: "cli" as const };

async function exportLines(opened: OpenedMemory): Promise<string[]> {
	const lines: string[] = [];
	const { memory } = opened;
	for await (const line of exportMemory(memory.graph, memory.vectors, { vectors: true, embeddingModel: memory.embedder?.model ?? "", version: "t", now: "2026-01-01T00:00:00.000Z", pageSize: 50 })) {
		lines.push(JSON.stringify(line));
	}
	return lines;
}

describe("compact (VACUUM) of a SQLite memory", () => {
	let dir: ReturnType<typeof makeTempDir>;
	let path: string;
	beforeEach(() => {
		dir = makeTempDir("engrama-compact-");
		path = join(dir.path, "memory.db");
	});
	afterEach(() => dir.cleanup());

	it("gives the free pages back, empties the WAL, and every read (rows, fulltext, vectors, names) stays the same", async () => {
		const opened = await openMemory(parseConfig({ backend: "sqlite", dbPath: path, ...OWNER, ...HASH }));
		try {
			const { memory } = opened;
			const text = "A long description that takes room in the node, its fulltext row and its vector. ".repeat(20);
			for (let i = 0; i < 150; i++) await memory.remember(person, { label: "Concept", key: `Concept ${i}`, props: { description: `${i} ${text}` } });
			for (let i = 1; i < 150; i++) await memory.relate(person, { label: "Concept", key: `Concept ${i - 1}` }, "RELATED_TO", { label: "Concept", key: `Concept ${i}` });
			// Hard-delete most of them: their pages become free (the file keeps them).
			for (let i = 0; i < 150; i += 3) await memory.forget(person, { label: "Concept", key: `Concept ${i}` }, { hard: true });
			const before = await exportLines(opened);
			const search = async () => (await memory.search(OWNER, "Concept 100 description", { limit: 5 })).results.map((r) => [r.name, r.score]);
			const hitsBefore = await search();

			const view = await compactMemory(memory);
			expect(view).toMatchObject({ backend: "sqlite", compacted: true });
			expect(view.bytes_after).toBeLessThan(view.bytes_before ?? 0);
			expect(statSync(path).size).toBe(view.bytes_after);
			for (const log of [`${path}-wal`, `${path}.engrama-wal`]) expect(statSync(log, { throwIfNoEntry: false })?.size ?? 0).toBe(0);

			expect(await exportLines(opened)).toEqual(before);
			expect(await search()).toEqual(hitsBefore);
			// Writes go on after it (row ids, caches).
			await memory.remember(person, { label: "Concept", key: "After compact" });
			await memory.relate(person, { label: "Concept", key: "Concept 1" }, "RELATED_TO", { label: "Concept", key: "After compact" });
			expect((await memory.graph.counts(OWNER)).nodes).toBe(101);
		} finally {
			await opened.close();
		}
	});
});
