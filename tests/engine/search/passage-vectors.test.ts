import { afterEach, describe, expect, it } from "vitest";
import type { SqliteGraphStore } from "../../../src/backends/sqlite/sqlite-graph-store";
import { reindex } from "../../../src/engine/search/reindex";
import { verifyMemory } from "../../../src/engine/verify";
import { BagOfWordsEmbedder } from "../skills/skill-fixture";
import { allNodes, openHarness, SCOPE, type SyncHarness } from "../sync/sync-fixture";

/** A local model that can be switched off (a server down, a model not downloaded yet). */
class SwitchableEmbedder extends BagOfWordsEmbedder {
	down = false;
	override async embed(text: string): Promise<Float32Array> {
		if (this.down) throw new Error("the model server is down");
		return super.embed(text);
	}
}

const RENDERING = "# Rendering\n\n## Math\nFormulas are typed in LaTeX and rendered with MathJax.\n\n## Diagrams\nFlowcharts come from mermaid code blocks.\n";
const BACKUPS = "# Backups\n\nSnapshots are taken nightly and kept for thirty days.\n";

function conn(h: SyncHarness) {
	return (h.graph as SqliteGraphStore).connection();
}

const vectorCount = (h: SyncHarness) =>
	conn(h).get("SELECT 1 AS x FROM sqlite_master WHERE name = 'passage_embeddings'") ? Number(conn(h).get<{ n: number }>("SELECT count(*) AS n FROM passage_embeddings")?.n ?? 0) : 0;
const passageCount = (h: SyncHarness) => Number(conn(h).get<{ n: number }>("SELECT count(*) AS n FROM note_passages")?.n ?? 0);
const missing = async (h: SyncHarness) => (await h.memory.graph.countPassagesWithoutVectors?.(SCOPE)) ?? -1;

describe("passage vectors follow their passages (SQLite)", () => {
	let h: SyncHarness;
	afterEach(async () => h.close());

	it("a hard delete of a note's node takes its passages' vectors; verify finds and fixes vectors an older version left", async () => {
		h = await openHarness({ embedder: new SwitchableEmbedder() });
		h.write("Rendering.md", RENDERING);
		h.write("Backups.md", BACKUPS);
		await h.sync.fullSync();
		expect(passageCount(h)).toBe(4);
		expect(vectorCount(h)).toBe(4);

		const rendering = (await allNodes(h.memory)).find((n) => n.key === "Rendering");
		if (!rendering) throw new Error("no node for Rendering.md");
		const ids = (await h.memory.graph.passagesOf?.(SCOPE, rendering.id))?.map((p) => Number(p.id)) ?? [];
		expect(ids).toHaveLength(3);
		await h.memory.forget({ scope: SCOPE, source: "cli" }, { label: rendering.label, key: rendering.key }, { hard: true });
		expect(passageCount(h)).toBe(1);
		expect(vectorCount(h)).toBe(1);
		expect(conn(h).get<{ n: number }>(`SELECT count(*) AS n FROM passage_embeddings WHERE passage_id IN (${ids.join(", ")})`)?.n).toBe(0);
		const verified = await verifyMemory(h.memory, SCOPE);
		expect(verified.checks.find((c) => c.check === "vector_orphans")?.problems).toBe(0);

		// What a node delete before this fix (or another program's) left: passages gone, vectors kept.
		conn(h).run("DELETE FROM note_passages");
		const orphans = await verifyMemory(h.memory, SCOPE);
		expect(orphans.checks.find((c) => c.check === "vector_orphans")).toMatchObject({ ok: false, problems: 1, samples: [expect.stringMatching(/^vector of passage \d+$/)] });
		expect(await h.memory.pipeline.repairIntegrity()).toMatchObject({ vector_orphans: 1 });
		expect(vectorCount(h)).toBe(0);
	});
});

describe("reindex embeds note passages", () => {
	let h: SyncHarness;
	afterEach(async () => h.close());

	it("passages written while the embedder was down get their vectors, and are then found by meaning", async () => {
		const embedder = new SwitchableEmbedder();
		embedder.down = true;
		h = await openHarness({ embedder });
		h.write("Rendering.md", RENDERING);
		h.write("Backups.md", BACKUPS);
		await h.sync.fullSync();
		expect(passageCount(h)).toBe(4);
		expect(await missing(h)).toBe(4);

		embedder.down = false;
		const plan = await reindex(h.memory, SCOPE);
		expect(plan.passages).toEqual({ to_embed: 4, deferred: 0, embedded: 0, failed: 0 });
		expect(vectorCount(h)).toBe(0);

		const progress: number[] = [];
		const applied = await reindex(h.memory, SCOPE, { apply: true, batchSize: 3, onProgress: (p) => progress.push(p.done) });
		expect(applied.passages).toEqual({ to_embed: 4, deferred: 0, embedded: 4, failed: 0 });
		expect(progress.at(-1)).toBe(applied.embedded + 4);
		expect(await missing(h)).toBe(0);
		const near = (await h.memory.graph.passageKnn?.(SCOPE, await embedder.embed("Rendering > Diagrams flowcharts mermaid"), 1)) ?? [];
		expect(near[0]?.passage.heading).toBe("Rendering > Diagrams");
		expect((await reindex(h.memory, SCOPE)).passages.to_embed).toBe(0);
	});

	it("a memory synced with no model gets passage vectors once a model is configured, within --limit per run; --rebuild embeds them all again", async () => {
		h = await openHarness();
		h.write("Rendering.md", RENDERING);
		h.write("Backups.md", BACKUPS);
		await h.sync.fullSync();
		expect(await missing(h)).toBe(4);
		const { dbPath } = h;
		await h.close();
		h = await openHarness({ vaultDir: h.vaultDir, dbPath, embedder: new SwitchableEmbedder() });

		const first = await reindex(h.memory, SCOPE, { apply: true, limit: 3 });
		expect(first.passages).toEqual({ to_embed: 4, deferred: 1, embedded: 3, failed: 0 });
		const second = await reindex(h.memory, SCOPE, { apply: true, limit: 3 });
		expect(second.passages).toEqual({ to_embed: 1, deferred: 0, embedded: 1, failed: 0 });
		expect(vectorCount(h)).toBe(4);

		const before = conn(h).all<{ id: number }>("SELECT passage_id AS id FROM passage_embeddings ORDER BY passage_id");
		const rebuilt = await reindex(h.memory, SCOPE, { apply: true, rebuild: true });
		expect(rebuilt.passages).toEqual({ to_embed: 4, deferred: 0, embedded: 4, failed: 0 });
		expect(conn(h).all<{ id: number }>("SELECT passage_id AS id FROM passage_embeddings ORDER BY passage_id")).toEqual(before);
	});

	it("a batch that fails is counted, the rest still embedded, and the next run picks the failed ones up", async () => {
		const embedder = new SwitchableEmbedder();
		h = await openHarness();
		h.write("Rendering.md", RENDERING);
		h.write("Backups.md", BACKUPS);
		await h.sync.fullSync();
		const { dbPath } = h;
		await h.close();
		// Fails on the section about backups only.
		const picky = new (class extends SwitchableEmbedder {
			override async embed(text: string): Promise<Float32Array> {
				if (text.includes("Snapshots")) throw new Error("cannot embed this text");
				return super.embed(text);
			}
		})();
		h = await openHarness({ vaultDir: h.vaultDir, dbPath, embedder: picky });
		const run = await reindex(h.memory, SCOPE, { apply: true, batchSize: 1 });
		expect(run.passages).toMatchObject({ to_embed: 4, embedded: 3, failed: 1 });
		expect(run.errors.join("\n")).toMatch(/cannot embed this text/);
		await h.close();
		h = await openHarness({ vaultDir: h.vaultDir, dbPath, embedder });
		expect((await reindex(h.memory, SCOPE, { apply: true })).passages).toMatchObject({ to_embed: 1, embedded: 1, failed: 0 });
	});
});
