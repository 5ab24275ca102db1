import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBackend } from "../../../src/backends/factory";
import { parseConfig } from "../../../src/config/engrama-config";
import { EMBEDDING_MODEL_META } from "../../../src/engine/embedding/vector-model";
import { EARLIER_DEFAULT_LOCAL_MODEL } from "../../../src/engine/plain-values";
import { resolveIdentity } from "../../../src/engine/standalone-identity";
import { Memory } from "../../../src/engine/memory";
import { reindex } from "../../../src/engine/search/reindex";
import { DEFAULT_LOCAL_MODEL, TransformersEmbeddingProvider } from "../../../src/nodejs/embedders/transformers-embedding-provider";
import { openMemory, type OpenedMemory } from "../../../src/nodejs/open-memory";
import { testProfile } from "../../contracts/backends";
import { makeTempDir } from "../../helpers/temp-dir";
import { TINY_DIMS, writeTinyModel } from "./tiny-onnx-model";

/*
 * The default local model may change (all-MiniLM-L6-v2 ↔ e5-small-v2). Both are 384-d, so a memory
 * embedded with one and searched with the other would answer nonsense without an error. Real
 * SQLite files, the real transformers.js provider on tiny generated models named like the real ones.
 */
describe("a memory embedded with another local model", () => {
	const dir = makeTempDir("engrama-memory-model-");
	const models = join(dir.path, "models");
	const config = (dbPath: string, model = "") =>
		parseConfig({
			backend: "sqlite",
			dbPath,
			orgId: "org",
			userId: "me",
			embedding: { provider: "local", model, localModelPath: models, allowRemoteModels: false, dimensions: TINY_DIMS },
		});
	const notes = ["the cat sat on the mat", "a dog ran in the park", "sqlite graph database"];

	/** What a release before the model was recorded left: vectors from MiniLM, no record of it. */
	async function legacyMemory(dbPath: string): Promise<void> {
		const cfg = config(dbPath);
		const { graph, vectors } = await createBackend(cfg);
		const embedder = new TransformersEmbeddingProvider({ model: EARLIER_DEFAULT_LOCAL_MODEL, cacheDir: join(dir.path, "cache"), localModelPath: models, allowRemoteModels: false, dimensions: TINY_DIMS });
		const memory = new Memory({ graph, vectors, embedder, profile: testProfile() });
		const scope = await resolveIdentity(memory, cfg);
		for (const [i, text] of notes.entries()) await memory.remember({ scope, source: "cli" }, { label: "Concept", key: `Note ${i}`, props: { description: text } });
		expect(await graph.getMeta(EMBEDDING_MODEL_META)).toBeNull();
		await memory.close();
		await embedder.close();
	}

	const search = (opened: OpenedMemory, text: string) => opened.memory.search(opened.scope, text);

	beforeAll(() => {
		writeTinyModel(models, EARLIER_DEFAULT_LOCAL_MODEL);
		writeTinyModel(models, "Xenova/e5-small-v2");
	});
	afterAll(() => dir.cleanup());

	it("keeps its model while none is named: the vectors still answer, and the model is recorded", async () => {
		const dbPath = join(dir.path, "legacy.db");
		await legacyMemory(dbPath);
		const opened = await openMemory(config(dbPath), { profile: testProfile() });
		try {
			expect(opened.memory.embedder?.model).toBe(EARLIER_DEFAULT_LOCAL_MODEL);
			expect(await opened.memory.graph.getMeta(EMBEDDING_MODEL_META)).toBe(`local:${EARLIER_DEFAULT_LOCAL_MODEL}`);
			const view = await search(opened, "cat on a mat");
			expect(view.degraded).toBe(false);
			expect(view.results[0]?.name).toBe("Note 0");
			expect(view.results[0]?.scores.vector).toBeGreaterThan(0);
		} finally {
			await opened.close();
		}
	});

	it("a memory embedded with a model other than the default keeps it while none is named", async () => {
		const dbPath = join(dir.path, "e5.db");
		await (await openMemory(config(dbPath, "Xenova/e5-small-v2"), { profile: testProfile() })).close();
		const first = await openMemory(config(dbPath, "Xenova/e5-small-v2"), { profile: testProfile() });
		await first.memory.remember({ scope: first.scope, source: "cli" }, { label: "Concept", key: "Note 0", props: { description: notes[0] } });
		await first.close();
		const opened = await openMemory(config(dbPath), { profile: testProfile() });
		try {
			expect(DEFAULT_LOCAL_MODEL).not.toBe("Xenova/e5-small-v2");
			expect(opened.memory.embedder?.model).toBe("Xenova/e5-small-v2");
			const view = await search(opened, "cat on a mat");
			expect(view.degraded).toBe(false);
			expect(view.results[0]?.scores.vector).toBeGreaterThan(0);
		} finally {
			await opened.close();
		}
	});

	it("a new memory gets the default model and records it", async () => {
		const opened = await openMemory(config(join(dir.path, "new.db")), { profile: testProfile() });
		try {
			expect(opened.memory.embedder?.model).toBe(DEFAULT_LOCAL_MODEL);
			expect(await opened.memory.graph.getMeta(EMBEDDING_MODEL_META)).toBe(`local:${DEFAULT_LOCAL_MODEL}`);
		} finally {
			await opened.close();
		}
	});

	it("with another model named, search says so and uses fulltext until reindex embeds again; then vectors answer", async () => {
		const dbPath = join(dir.path, "switch.db");
		await legacyMemory(dbPath);
		// Opened once without a model: MiniLM is recorded.
		await (await openMemory(config(dbPath), { profile: testProfile() })).close();
		const opened = await openMemory(config(dbPath, "Xenova/e5-small-v2"), { profile: testProfile() });
		try {
			const before = await search(opened, "cat on a mat");
			expect(before.degraded).toBe(true);
			expect(before.degraded_cause).toBe("model_changed");
			expect(before.reason).toMatch(/made by local:Xenova\/all-MiniLM-L6-v2, but the embedder is local:Xenova\/e5-small-v2/);
			// Fulltext still answers.
			expect(before.results[0]?.name).toBe("Note 0");
			expect(before.results.every((r) => r.scores.vector === 0)).toBe(true);

			const { memory, scope } = opened;
			const report = await reindex(memory, scope, { apply: true });
			expect(report.reasons.model_changed).toBe(notes.length);
			expect(await memory.graph.getMeta(EMBEDDING_MODEL_META)).toBe("local:Xenova/e5-small-v2");
			const after = await search(opened, "cat on a mat");
			expect(after.degraded).toBe(false);
			expect(after.results[0]?.scores.vector).toBeGreaterThan(0);
		} finally {
			await opened.close();
		}
	});
});
