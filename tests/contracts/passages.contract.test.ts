import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { HashEmbeddingProvider } from "../../src/engine/embedding/hash-embedding-provider";
import { Memory } from "../../src/engine/memory";
import type { EmbeddingProvider, GraphStore } from "../../src/engine/protocols";
import { createSkills } from "../../src/engine/skills";
import { VaultSync } from "../../src/engine/sync/vault-sync";
import type { Scope } from "../../src/engine/types";
import { FolderVaultSource } from "../../src/nodejs/folder-vault-source";
import type { OpenedMemory } from "../../src/nodejs/open-memory";
import { BagOfWordsEmbedder } from "../engine/skills/skill-fixture";
import { exampleProfile } from "../engine/sync/sync-fixture";
import { makeTempDir } from "../helpers/temp-dir";
import { sqliteTestBackend, testBackends, type TestBackend } from "./backends";
import { RELATED_VAULT } from "../fixtures/related-vault";

// Passages (sections of notes) on every backend: written by vault sync, found by words and by
// vector, carried by edits, renames, deletes and forgets, restored by a rebuild from the vault.

const NOTE = `---
type: Concept
description: A short description.
---
# Rendering

## Math
Formulas are typed in LaTeX between dollar signs and rendered with MathJax.

## Diagrams
Flowcharts come from mermaid code blocks.
`;

// Titles apart from the words searched, so the section (not the title's heading) is what matches.
const CJK_NOTES: Record<string, string> = {
	"Migration log.md": "# 记录\n\n## 经过\n我们把旧的数据库迁移到PostgreSQL的时候遇到了很多问题。\n",
	"Sync memo.md": "# メモ\n\n## 問題\nモバイルアプリでデータを同期すると、ときどきタイムアウトが発生する。\n",
	"Meeting.md": "# 기록\n\n## 결정\n지난주 회의에서 배포 일정을 다시 정했다.\n",
	"Release.md": "# บันทึก\n\n## การตัดสินใจ\nทีมงานตัดสินใจเลื่อนการปล่อยซอฟต์แวร์ออกไปหนึ่งสัปดาห์\n",
};

interface Side {
	readonly opened: OpenedMemory;
	readonly memory: Memory;
	readonly graph: GraphStore;
	readonly scope: Scope;
	readonly vault: string;
	readonly sync: VaultSync;
	write(path: string, text: string): void;
	read(path: string): string;
	close(): Promise<void>;
}

/** A memory on the backend (with a hash embedder when asked) and a vault folder synced into it. */
async function openSide(backend: TestBackend, options: { vectors?: boolean; vault?: string; embedder?: EmbeddingProvider } = {}): Promise<Side> {
	const temp = makeTempDir("engrama-passages-");
	const profile = exampleProfile();
	const opened = await backend.open({ profile });
	const graph = opened.stores.graph;
	const embedder = options.embedder ?? (options.vectors ? new HashEmbeddingProvider(32) : null);
	const memory = new Memory({ graph, vectors: opened.stores.vectors, embedder, profile });
	const vault = options.vault ?? join(temp.path, "vault");
	mkdirSync(vault, { recursive: true });
	const sync = new VaultSync({ memory, source: new FolderVaultSource(vault), scope: opened.scope, settings: { debounceMs: 40 } });
	return {
		opened,
		memory,
		graph,
		scope: opened.scope,
		vault,
		sync,
		write: (path, text) => writeFileSync(join(vault, path), text),
		read: (path) => readFileSync(join(vault, path), "utf8"),
		close: async () => {
			await sync.stop();
			await opened.close();
			if (!options.vault) temp.cleanup();
		},
	};
}

async function node(side: Side, label: string, key: string) {
	const found = await side.graph.getNode(side.scope, label, key);
	if (!found) throw new Error(`${label} ${key} missing`);
	return found;
}

describe.each(testBackends())("passages on $name", (backend) => {
	let side: Side;
	afterEach(async () => side?.close());

	const hits = async (query: string) => (await side.graph.searchPassages?.(side.scope, { text: query, limit: 10 })) ?? [];

	it("a note's body is searchable section by section, frontmatter left out", async () => {
		side = await openSide(backend);
		expect(side.graph.writePassages).toBeTypeOf("function");
		side.write("Rendering.md", NOTE);
		await side.sync.fullSync();
		const concept = await node(side, "Concept", "Rendering");
		const found = await hits("mermaid");
		const line = side.read("Rendering.md").split("\n").indexOf("## Diagrams") + 1;
		expect(line).toBe(11);
		expect(found.map((p) => [p.nodeId, p.passage.heading, p.passage.line])).toEqual([[concept.id, "Rendering > Diagrams", line]]);
		expect(found[0].passage.text).toBe("## Diagrams\nFlowcharts come from mermaid code blocks.");
		expect(found[0].score).toBeGreaterThan(0);
		expect((await hits("MathJax"))[0]?.passage.heading).toBe("Rendering > Math");
		expect(await hits("type")).toEqual([]);
		expect(await side.graph.hasPassages?.(side.scope)).toBe(true);
		expect((await side.graph.passagesOf?.(side.scope, concept.id))?.map((p) => p.heading)).toEqual(["Rendering", "Rendering > Math", "Rendering > Diagrams"]);
	});

	it("an edit rewrites only the sections it changed; rename carries the passages; delete removes them", async () => {
		side = await openSide(backend);
		side.write("Rendering.md", NOTE);
		await side.sync.fullSync();
		const concept = await node(side, "Concept", "Rendering");
		const before = await side.graph.passagesOf?.(side.scope, concept.id);
		side.write("Rendering.md", `${side.read("Rendering.md")}\n## Tables\nPipes make tables.\n`.replace("mermaid", "Mermaid or PlantUML"));
		await side.sync.syncPaths(["Rendering.md"]);
		const after = (await side.graph.passagesOf?.(side.scope, concept.id)) ?? [];
		const id = (heading: string, list: typeof after | undefined) => list?.find((p) => p.heading === heading)?.id;
		expect(id("Rendering > Math", after)).toBe(id("Rendering > Math", before));
		expect(id("Rendering > Diagrams", after)).not.toBe(id("Rendering > Diagrams", before));
		expect(after.map((p) => p.heading)).toEqual(["Rendering", "Rendering > Math", "Rendering > Diagrams", "Rendering > Tables"]);
		expect(await hits("mermaid plantuml")).toHaveLength(1);
		expect(await hits("mermaid code")).toHaveLength(1);

		renameSync(join(side.vault, "Rendering.md"), join(side.vault, "Rendered.md"));
		await side.sync.syncPaths(["Rendering.md", "Rendered.md"]);
		const moved = await hits("PlantUML");
		expect(moved).toHaveLength(1);
		expect((await side.graph.getNodeById(side.scope, moved[0].nodeId))?.props.obsidian_path).toBe("Rendered.md");

		rmSync(join(side.vault, "Rendered.md"));
		await side.sync.syncPaths(["Rendered.md"]);
		expect(await hits("PlantUML")).toEqual([]);
	});

	it("a renamed node that takes a new id keeps its passages; a hard delete removes them", async () => {
		side = await openSide(backend);
		side.write("Rendering.md", NOTE);
		await side.sync.fullSync();
		const concept = await node(side, "Concept", "Rendering");
		const newId = "0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9";
		const ctx = { scope: side.scope, source: "sync" as const };
		await side.memory.pipeline.rekeyEntity(ctx, concept, { label: "Concept", key: "Rendered", id: newId });
		expect((await hits("MathJax")).map((p) => p.nodeId)).toEqual([newId]);
		expect(await side.graph.passagesOf?.(side.scope, concept.id)).toEqual([]);
		await side.memory.pipeline.hardDelete({ scope: side.scope, source: "cli" }, await node(side, "Concept", "Rendered"));
		expect(await hits("MathJax")).toEqual([]);
		expect(await side.graph.passagesOf?.(side.scope, newId)).toEqual([]);
		expect(await side.graph.hasPassages?.(side.scope)).toBe(false);
	});

	it("a rebuild from the vault restores them, and a memory from before passages gets them at its next full sync", async () => {
		side = await openSide(backend);
		side.write("Rendering.md", NOTE);
		await side.sync.fullSync();
		const fresh = await openSide(backend, { vault: side.vault });
		try {
			await fresh.sync.fullSync();
			expect(await fresh.graph.searchPassages?.(fresh.scope, { text: "MathJax", limit: 5 })).toHaveLength(1);
		} finally {
			await fresh.close();
		}
		const concept = await node(side, "Concept", "Rendering");
		await side.memory.pipeline.storeNotePassages({ scope: side.scope, source: "sync" }, concept, []);
		expect(await hits("MathJax")).toEqual([]);
		expect(await side.graph.hasPassages?.(side.scope)).toBe(false);
		await side.sync.fullSync();
		expect(await hits("MathJax")).toHaveLength(1);
	});

	it("forgetting a scope (GDPR) removes its passages and leaves another scope's", async () => {
		side = await openSide(backend);
		side.write("Rendering.md", NOTE);
		await side.sync.fullSync();
		const concept = await node(side, "Concept", "Rendering");
		const other: Scope = { orgId: side.scope.orgId, userId: `${side.scope.userId}-other` };
		const ctx = { scope: other, source: "sync" as const };
		const theirs = await side.memory.pipeline.mergeEntity({ scope: other, source: "cli" }, { label: "Concept", key: "Theirs", props: { description: "another person's note" } });
		await side.memory.pipeline.storeNotePassages(ctx, theirs.node, [{ heading: "", line: 1, text: "MathJax in their note", hash: "h1" }]);
		expect((await side.graph.searchPassages?.(other, { text: "MathJax", limit: 5 }))?.map((p) => p.nodeId)).toEqual([theirs.node.id]);
		expect((await hits("MathJax")).map((p) => p.nodeId)).toEqual([concept.id]);
		// The dry run counts them and the forget reports as many (both backends alike).
		const footprint = await side.graph.scopeFootprint(side.scope);
		expect(footprint.passages).toBeGreaterThan(0);
		expect((await side.graph.forgetScope(side.scope)).passages).toBe(footprint.passages);
		expect(await hits("MathJax")).toEqual([]);
		expect(await side.graph.hasPassages?.(side.scope)).toBe(false);
		expect(await side.graph.passagesOf?.(side.scope, concept.id)).toEqual([]);
		expect((await side.graph.searchPassages?.(other, { text: "MathJax", limit: 5 }))?.map((p) => p.nodeId)).toEqual([theirs.node.id]);
	});

	it("a passage hit counts once for its note's node, with path, sections and marked words", async () => {
		side = await openSide(backend);
		const sections = Array.from({ length: 12 }, (_, i) => `## Part ${i}\nThe cache is warmed in step ${i}.`).join("\n\n");
		side.write("Cache.md", `# Cache\n\n${sections}\n`);
		side.write("Add.md", "# Add\n\nAppends an item.\n");
		side.write("Other.md", "# Other\n\nNothing about that here.\n");
		await side.sync.fullSync();
		const view = await side.memory.search(side.scope, "cache warmed");
		expect(view.results.filter((r) => r.name === "Cache")).toHaveLength(1);
		const top = view.results[0];
		expect(top).toMatchObject({ name: "Cache", path: "Cache.md" });
		expect(top.passages?.length).toBe(2);
		expect(top.passages?.[0].snippet).toMatch(/\*\*cache\*\* is \*\*warmed\*\*/);
		expect(top.passages?.[0].heading).toMatch(/^Cache > Part \d+$/);
		await side.memory.remember({ scope: side.scope, source: "cli" }, { label: "Concept", key: "Warm cache", props: { description: "cache warmed at boot" } });
		const again = await side.memory.search(side.scope, "cache warmed");
		const entity = again.results.find((r) => r.name === "Warm cache");
		expect(entity?.path).toBeUndefined();
		expect(entity?.passages).toBeUndefined();
	});

	it.each([
		["数据库", "Migration log.md", "记录 > 经过", "**数据库**"],
		["PostgreSQL", "Migration log.md", "记录 > 经过", "**PostgreSQL**"],
		["タイムアウト", "Sync memo.md", "メモ > 問題", "**タイムアウト**"],
		["同期", "Sync memo.md", "メモ > 問題", "**同期**"],
		["회의", "Meeting.md", "기록 > 결정", "**회의**"],
		["ซอฟต์แวร์", "Release.md", "บันทึก > การตัดสินใจ", "**ซอฟต์แวร์**"],
	])("%s is found in a note's body", async (query, path, heading, marked) => {
		side = await openSide(backend);
		for (const [file, text] of Object.entries(CJK_NOTES)) side.write(file, text);
		await side.sync.fullSync();
		const found = await hits(query);
		expect(found.map((p) => p.passage.heading)).toEqual([heading]);
		const view = await side.memory.search(side.scope, query);
		expect(view.results[0]?.path).toBe(path);
		expect(view.results[0]?.passages?.[0]).toMatchObject({ heading, line: 6 });
		expect(view.results[0]?.passages?.[0].snippet).toContain(marked);
	});

	it("counts the passages holding each word, accents folded as the index folds them (related notes' term weights)", async () => {
		side = await openSide(backend);
		side.write("Cache.md", "# Cache\n\n## Warm\nThe cache is warmed at night.\n\n## Cold\nA cold cache is slow.\n\n## Other\nNothing here.\n");
		side.write("Apuntes.md", "# Apuntes\n\n## Tema 1\nLa programación funcional.\n");
		await side.sync.fullSync();
		const counts = await side.graph.passageTermCounts?.(side.scope, ["cache", "warmed", "programación", "programacion", "zzzunknown"]);
		const passages = [...(await side.graph.passagesOf?.(side.scope, (await node(side, "Note", "Cache")).id) ?? [])];
		const holding = (word: string) => passages.filter((p) => p.text.toLowerCase().includes(word)).length;
		expect(counts?.counts.get("cache")).toBe(holding("cache"));
		expect(counts?.counts.get("warmed")).toBe(1);
		expect(counts?.counts.get("programación")).toBe(1);
		expect(counts?.counts.get("programacion")).toBe(1);
		expect(counts?.counts.get("zzzunknown")).toBe(0);
		expect(counts?.documents).toBeGreaterThanOrEqual(passages.length + 1);
	});

	it("with an embedder, every passage gets a vector and is found by meaning", async () => {
		side = await openSide(backend, { vectors: true });
		side.write("Rendering.md", NOTE);
		side.write("Other.md", "# Other\n\n## Cooking\nBoil the pasta for nine minutes.\n");
		await side.sync.fullSync();
		expect(await side.graph.passagesWithoutVectors?.(side.scope, 10)).toEqual([]);
		const rendering = await node(side, "Concept", "Rendering");
		const own = (await side.graph.passageVectorsOf?.(side.scope, rendering.id)) ?? new Map<string, Float32Array>();
		expect([...own.keys()].sort()).toEqual(((await side.graph.passagesOf?.(side.scope, rendering.id)) ?? []).map((p) => p.id).sort());
		expect([...own.values()].every((v) => v.length === 32)).toBe(true);
		const embedder = new HashEmbeddingProvider(32);
		const [query] = await embedder.embedBatch(["Rendering > Diagrams\n## Diagrams\nFlowcharts come from mermaid code blocks."]);
		const near = (await side.graph.passageKnn?.(side.scope, query, 3)) ?? [];
		expect(near[0]?.passage.heading).toBe("Rendering > Diagrams");
		expect(near[0]?.score).toBeGreaterThan(0.9);
		expect(near[0]?.score).toBeLessThanOrEqual(1.0001);
		// An unchanged passage keeps its vector; an edited one gets a new one.
		side.write("Rendering.md", side.read("Rendering.md").replace("MathJax", "KaTeX"));
		await side.sync.syncPaths(["Rendering.md"]);
		expect(await side.graph.passagesWithoutVectors?.(side.scope, 10)).toEqual([]);
		const again = (await side.graph.passageKnn?.(side.scope, query, 3)) ?? [];
		expect(again[0]?.passage.id).toBe(near[0]?.passage.id);
		// A model change drops every vector: reindex fills them again.
		const vectors = side.opened.stores.vectors;
		if (!vectors?.reset) throw new Error(`${backend.name} has no vector reset`);
		await vectors.reset();
		const all = [];
		for (const n of await side.graph.listNodes(side.scope, {})) all.push(...((await side.graph.passagesOf?.(side.scope, n.id)) ?? []));
		expect(all.length).toBeGreaterThanOrEqual(4);
		expect((await side.graph.passagesWithoutVectors?.(side.scope, 10))?.map((p) => p.id).sort()).toEqual(all.map((p) => p.id).sort());
		expect(await side.graph.passageKnn?.(side.scope, query, 3)).toEqual([]);
	});
});

const RELATED = RELATED_VAULT;

describe.each(testBackends())("related notes on $name", (backend) => {
	let side: Side;
	afterEach(async () => side?.close());

	it("lists the notes close by their passages' vectors, their words and their relations, each with its section", async () => {
		side = await openSide(backend, { embedder: new BagOfWordsEmbedder() });
		for (const [path, text] of Object.entries(RELATED)) side.write(path, text);
		await side.sync.fullSync();
		const view = await createSkills(side.memory).related(side.scope, { name: "Rendering" });
		const names = view?.related.map((r) => r.name) ?? [];
		expect(names.slice(0, 2).sort()).toEqual(["Charts", "Typesetting"]);
		expect(names).not.toContain("Cooking");
		const charts = view?.related.find((r) => r.name === "Charts");
		expect(charts).toMatchObject({ path: "Charts.md", passage: { heading: "Charts > Diagrams" } });
		expect(charts?.reasons).toEqual(expect.arrayContaining(["meaning", "words"]));
		expect(view?.linked.find((r) => r.name === "Reading list")?.relation).toEqual({ type: "LINKS_TO", direction: "in" });
	});
});

// Every backend answers as SQLite does for the same vault: the same passages found, in the same
// order, with the same bm25 scores, and the same results (path, sections, marked snippets).
const others = testBackends().filter((b) => b.name !== "sqlite");
const compared = others.length > 0 ? others : [sqliteTestBackend];

const VAULT: Record<string, string> = {
	"Rendering.md": NOTE,
	"Cache.md": `# Cache\n\n${Array.from({ length: 6 }, (_, i) => `## Part ${i}\nThe cache is warmed in step ${i}${i % 2 ? " before the queue drains" : ""}.`).join("\n\n")}\n`,
	"Queues.md": "# Queues\n\n## Backpressure\nA queue that floods slows its producers.\n\n## Draining\nThe queue drains at night; the cache stays warm.\n",
	...CJK_NOTES,
};

const QUERIES = ["cache warmed", "queue", "mermaid diagrams", "MathJax", "数据库迁移", "タイムアウト", "회의", "ซอฟต์แวร์", "drains", "warm*"];

describe.each(compared)("passages on $name answer as on SQLite", (backend) => {
	it("finds the same passages with the same scores, and the same results", async () => {
		const sides = [await openSide(sqliteTestBackend), await openSide(backend)];
		try {
			for (const s of sides) {
				for (const [path, text] of Object.entries(VAULT)) s.write(path, text);
				await s.sync.fullSync();
			}
			for (const query of QUERIES) {
				const faces = [];
				for (const s of sides) {
					const hits = (await s.graph.searchPassages?.(s.scope, { text: query, limit: 10 })) ?? [];
					const view = await s.memory.search(s.scope, query, { limit: 5 });
					faces.push({
						hits: hits.map((h) => [h.passage.heading, h.passage.line, h.passage.text, h.score.toFixed(6)]),
						results: view.results.map((r) => [r.name, r.path, r.passages]),
					});
				}
				expect({ query, ...faces[1] }).toEqual({ query, ...faces[0] });
			}
		} finally {
			for (const s of sides) await s.close();
		}
	}, 120_000);
});
