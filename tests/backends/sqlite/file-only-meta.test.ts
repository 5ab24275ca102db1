import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createBackend } from "../../../src/backends/factory";
import { SCHEMA_VERSION } from "../../../src/backends/sqlite/schema";
import { parseConfig } from "../../../src/config/engrama-config";
import { Memory } from "../../../src/engine/memory";
import { importMemory } from "../../../src/engine/transfer/memory-import";
import { testProfile } from "../../contracts/backends";
import { makeTempDir } from "../../helpers/temp-dir";

describe("a SQLite file's own settings (its schema version)", () => {
	it("are neither listed for export or migrate nor overwritten by an older file's export imported into it", async () => {
		const dir = makeTempDir("engrama-file-meta-");
		const backend = await createBackend(parseConfig({ backend: "sqlite", dbPath: join(dir.path, "memory.db") }));
		try {
			const memory = new Memory({ graph: backend.graph, vectors: backend.vectors, profile: testProfile() });
			await memory.writeMeta("standalone_user_id", "local-ana");
			expect(await backend.graph.listMeta?.()).toEqual([["standalone_user_id", "local-ana"]]);

			// An export written by a schema 9 file: its settings, the schema version among them, go into an empty memory.
			const lines = [
				`{"engrama_export":1,"format_version":1,"producer":"engrama-obsidian","version":"0.1.0"}`,
				`{"type":"meta","key":"schema_version","value":"9"}`,
				`{"type":"end","nodes":0,"relations":0,"vectors":0,"history":0,"meta":1}`,
			];
			const scope = { orgId: "acme", userId: "ana" };
			const options = { merge: false, dryRun: false, callerScope: scope, embeddingModel: "", newId: () => crypto.randomUUID(), now: "2026-01-01T00:00:00.000Z" };
			await memory.write(() => importMemory(memory, async function* () { yield* lines; }, options));
			expect(await backend.graph.getMeta("schema_version")).toBe(String(SCHEMA_VERSION));
		} finally {
			await backend.graph.close();
			dir.cleanup();
		}
	});
});
