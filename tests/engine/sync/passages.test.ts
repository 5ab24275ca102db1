import { renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { mergeNodeAndPassageRanks, passageSnippet } from "../../../src/engine/search/passage-hits";
import { MAX_PASSAGE_CHARS, noteSection, splitPassages } from "../../../src/engine/sync/passages";
import { node, openHarness, SCOPE, type SyncHarness } from "./sync-fixture";

describe("splitPassages", () => {
	it("cuts a body into sections by heading, with heading path and the file line each starts on", () => {
		const body = ["Intro line.", "", "# Setup", "Install it.", "## Linux", "apt install foo", "", "```", "# not a heading", "```", "## Mac", "brew install foo"].join("\n");
		const passages = splitPassages(body, 5);
		expect(passages.map((p) => [p.heading, p.line])).toEqual([
			["", 5],
			["Setup", 7],
			["Setup > Linux", 9],
			["Setup > Mac", 15],
		]);
		expect(passages[2].text).toContain("# not a heading");
		expect(passages[0].text).toBe("Intro line.");
	});

	it("cuts a long section at paragraph ends, every piece under the size the encoders read", () => {
		const paragraph = (i: number) => `Paragraph ${i} ${"word ".repeat(60)}`.trim();
		const body = `# Long\n${Array.from({ length: 12 }, (_, i) => paragraph(i)).join("\n\n")}\n${"x".repeat(2500)}`;
		const passages = splitPassages(body);
		expect(passages.length).toBeGreaterThan(3);
		for (const p of passages) expect(p.text.length).toBeLessThanOrEqual(MAX_PASSAGE_CHARS);
		expect(passages.every((p) => p.heading === "Long")).toBe(true);
		// A cut between paragraphs, not inside one.
		expect(passages[0].text.endsWith(paragraph(passages[0].text.split("\n\n").length - 1))).toBe(true);
	});

	it("hashes heading and text, so only the edited section changes", () => {
		const before = splitPassages("# A\none\n# B\ntwo\n# C\nthree");
		const after = splitPassages("# A\none\n# B\ntwo, edited\n# C\nthree");
		expect(after.map((p) => p.hash === before.find((b) => b.heading === p.heading)?.hash)).toEqual([true, false, true]);
	});
});

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

describe("passages through vault sync (SQLite)", () => {
	let h: SyncHarness;
	afterEach(async () => h.close());

	const hits = async (query: string) => (await h.memory.graph.searchPassages?.(SCOPE, { text: query, limit: 10 })) ?? [];

	it("a note's body is searchable section by section, frontmatter left out", async () => {
		h = await openHarness();
		h.write("Rendering.md", NOTE);
		await h.sync.fullSync();
		const concept = await node(h.memory, "Concept", "Rendering");
		const found = await hits("mermaid");
		// The line in the file as it is now (sync wrote engrama_id into the frontmatter first).
		const line = h.read("Rendering.md").split("\n").indexOf("## Diagrams") + 1;
		expect(line).toBe(11);
		expect(found.map((p) => [p.nodeId, p.passage.heading, p.passage.line])).toEqual([[concept.id, "Rendering > Diagrams", line]]);
		expect((await hits("MathJax"))[0]?.passage.heading).toBe("Rendering > Math");
		// Frontmatter is not body text.
		expect(await hits("type")).toEqual([]);
	});

	it("an edit rewrites only the sections it changed; rename carries the passages; delete removes them", async () => {
		h = await openHarness();
		h.write("Rendering.md", NOTE);
		await h.sync.fullSync();
		const concept = await node(h.memory, "Concept", "Rendering");
		const before = await h.memory.graph.passagesOf?.(SCOPE, concept.id);
		h.write("Rendering.md", `${h.read("Rendering.md")}\n## Tables\nPipes make tables.\n`.replace("mermaid", "Mermaid or PlantUML"));
		await h.sync.syncPaths(["Rendering.md"]);
		const after = (await h.memory.graph.passagesOf?.(SCOPE, concept.id)) ?? [];
		const id = (heading: string, list: typeof after | undefined) => list?.find((p) => p.heading === heading)?.id;
		expect(id("Rendering > Math", after)).toBe(id("Rendering > Math", before));
		expect(id("Rendering > Diagrams", after)).not.toBe(id("Rendering > Diagrams", before));
		expect(after.map((p) => p.heading)).toEqual(["Rendering", "Rendering > Math", "Rendering > Diagrams", "Rendering > Tables"]);
		expect(await hits("mermaid plantuml")).toHaveLength(1);

		renameSync(join(h.vaultDir, "Rendering.md"), join(h.vaultDir, "Rendered.md"));
		await h.sync.syncPaths(["Rendering.md", "Rendered.md"]);
		const moved = await hits("PlantUML");
		expect(moved).toHaveLength(1);
		expect((await h.memory.graph.getNodeById(SCOPE, moved[0].nodeId))?.props.obsidian_path).toBe("Rendered.md");

		rmSync(join(h.vaultDir, "Rendered.md"));
		await h.sync.syncPaths(["Rendered.md"]);
		expect(await hits("PlantUML")).toEqual([]);
	});

	it("a rebuild from the vault restores them, and a memory from before passages gets them at its next full sync", async () => {
		h = await openHarness();
		h.write("Rendering.md", NOTE);
		await h.sync.fullSync();
		const fresh = await h.reopen({ dbPath: join(h.vaultDir, "..", "rebuilt.db") });
		try {
			await fresh.sync.fullSync();
			expect(await fresh.memory.graph.searchPassages?.(SCOPE, { text: "MathJax", limit: 5 })).toHaveLength(1);
		} finally {
			await fresh.close();
		}
		// Passages gone (what a schema 10 memory has): the next full sync reads the unchanged note again.
		const concept = await node(h.memory, "Concept", "Rendering");
		await h.memory.pipeline.storeNotePassages({ scope: SCOPE, source: "sync" }, concept, []);
		expect(await hits("MathJax")).toEqual([]);
		await h.sync.fullSync();
		expect(await hits("MathJax")).toHaveLength(1);
	});
});

describe("search over entities and notes", () => {
	let h: SyncHarness;
	afterEach(async () => h.close());

	it("a passage hit counts once for its note's node, with path, sections and marked words", async () => {
		h = await openHarness();
		const sections = Array.from({ length: 12 }, (_, i) => `## Part ${i}\nThe cache is warmed in step ${i}.`).join("\n\n");
		h.write("Cache.md", `# Cache\n\n${sections}\n`);
		h.write("Add.md", "# Add\n\nAppends an item.\n");
		h.write("Other.md", "# Other\n\nNothing about that here.\n");
		await h.sync.fullSync();
		const view = await h.memory.search(SCOPE, "cache warmed");
		expect(view.results.filter((r) => r.name === "Cache")).toHaveLength(1);
		const top = view.results[0];
		expect(top).toMatchObject({ name: "Cache", path: "Cache.md" });
		expect(top.passages?.length).toBe(2);
		expect(top.passages?.[0].snippet).toMatch(/\*\*cache\*\* is \*\*warmed\*\*/);
		// A node without a note has no path and no passages.
		await h.memory.remember({ scope: SCOPE, source: "cli" }, { label: "Concept", key: "Warm cache", props: { description: "cache warmed at boot" } });
		const again = await h.memory.search(SCOPE, "cache warmed");
		const entity = again.results.find((r) => r.name === "Warm cache");
		expect(entity?.path).toBeUndefined();
		expect(entity?.passages).toBeUndefined();
	});

	it("a note whose title is a common word of the question never outranks the note that answers it", async () => {
		h = await openHarness();
		// API reference pages titled by one ordinary word, beside a guide that answers the question.
		h.write("API/open.md", "# open\n\nOpens a file. Signature: open(path, options).\n");
		h.write("API/close.md", "# close\n\nCloses the file you open with open().\n");
		h.write("API/read.md", "# read\n\nReads from a file you open first.\n");
		h.write("Guides/Views.md", "# Views\n\n## Pop-out windows\n\nTo keep the same view in a separate window, drag its tab out of the app or choose Move to new window.\n");
		for (let i = 0; i < 4; i++) h.write(`Notes/Note ${i}.md`, `# Note ${i}\n\nOpen the menu and open item ${i}; the window shows it.\n`);
		await h.sync.fullSync();
		const results = (await h.memory.search(SCOPE, "open the same view in a separate window", { limit: 10 })).results;
		const rank = (name: string) => results.findIndex((r) => r.name === name);
		expect(rank("Views")).toBeGreaterThanOrEqual(0);
		expect(rank("open") === -1 || rank("open") > rank("Views")).toBe(true);
		// A rare name the query names still lifts its node: the anchor term is kept for names that say something.
		h.write("Projects/Zephyrine.md", "# Zephyrine\n\nThe telescope project.\n");
		h.write("Daily/2026-01-05.md", "Talked about the schedule of [[Zephyrine]] and the mirror grinding.\n");
		await h.sync.fullSync();
		const named = (await h.memory.search(SCOPE, "what is the schedule for Zephyrine", { limit: 5 })).results;
		expect(named.find((r) => r.name === "Zephyrine")?.scores.anchor).toBeGreaterThan(0.5);
	});

	it("a search for a node's name finds that node first, not a note whose section mentions it, whatever its trust", async () => {
		h = await openHarness();
		h.write("Projects/Billing Portal.md", "---\nengrama_label: Project\n---\n# Billing Portal\n\nInvoices for clients, refunds and the yearly statements, built by the payments team.\n");
		h.write("Daily/2026-01-05.md", "Met with Ana about the [[Billing Portal]] rollout.\n");
		await h.sync.fullSync();
		const names = async (query: string, options = {}) => (await h.memory.search(SCOPE, query, options)).results.map((r) => r.name);
		// The daily note's one short section outscores the portal's own row by bm25: it still comes second.
		expect((await names("Billing Portal")).slice(0, 2)).toEqual(["Billing Portal", "2026-01-05"]);
		expect((await names("billing portal", { channels: { vector: false }, graph: false })).slice(0, 2)).toEqual(["Billing Portal", "2026-01-05"]);
		// An agent's edit lowers the portal's trust: still the node the search names.
		await h.memory.remember({ scope: SCOPE, source: "mcp" }, { label: "Project", key: "Billing Portal", props: { status: "active" } });
		const view = await h.memory.search(SCOPE, "Billing Portal");
		expect(view.results[0].name).toBe("Billing Portal");
		expect(view.results[0].scores.trust).toBeLessThan(view.results[1].scores.trust);
		expect(view.results[0].scores.name).toBe(1);
		// The words channel itself ranks the named node first (passage-hits.ts).
		expect(view.results[0].scores.fulltext_rank).toBe(1);
		expect(view.results[1].scores.name).toBeUndefined();
		// A query that is more than the name is not a search for it: the note about the rollout wins.
		expect((await names("Billing Portal rollout"))[0]).toBe("2026-01-05");
	});

	it("merging a channel's node and passage hits puts the nodes the query names first, then best score", () => {
		const passage = (nodeId: string, score: number) => ({ nodeId, score, passage: { id: nodeId, heading: "", line: 1, text: "", hash: "" } });
		const nodes = [{ id: "portal", score: 2.1 }, { id: "python", score: 1 }];
		const passages = [passage("daily", 3.4), passage("portal", 1.5)];
		expect(mergeNodeAndPassageRanks(nodes, passages).map((e) => e.id)).toEqual(["daily", "portal", "python"]);
		expect(mergeNodeAndPassageRanks(nodes, passages, new Set(["portal"])).map((e) => e.id)).toEqual(["portal", "daily", "python"]);
	});

	it("snippets mark words of every script and cut around the first one", () => {
		expect(passageSnippet("我们把旧的数据库迁移到PostgreSQL的时候遇到了问题。", "数据库迁移")).toContain("**数据库迁移**");
		expect(passageSnippet("我们把旧的数据库迁移到PostgreSQL的时候遇到了问题。", "postgresql")).toContain("到**PostgreSQL**的");
		expect(passageSnippet("the unrendered page", "render")).toBe("the unrendered page");
		const long = `${"filler ".repeat(60)}the needle is here ${"tail ".repeat(60)}`;
		const snippet = passageSnippet(long, "needle");
		expect(snippet.startsWith("…")).toBe(true);
		expect(snippet).toContain("**needle**");
		expect(snippet.length).toBeLessThan(200);
		expect(passageSnippet("Rendered with MathJax", "render")).toBe("**Rendered** with MathJax");
	});

	it("snippets mark a Latin word only at a word start, a Latin letter or digit before it (or one outside the BMP) is not one", () => {
		expect(passageSnippet("prerender 2render 𝟎render (render) café-render", "render")).toBe("prerender 2render 𝟎render (**render**) café-**render**");
		// Many words at once (up to 32, as the query's words): each marked where it stands.
		const words = Array.from({ length: 40 }, (_, i) => `word${String.fromCharCode(97 + (i % 26))}${i}`);
		const snippet = passageSnippet(`${words.slice(0, 10).join(" ")} toolsmith`, ["tool", ...words.slice(0, 30)].join(" "));
		expect(snippet).toBe(`${words.slice(0, 10).map((w) => `**${w}**`).join(" ")} **toolsmith**`);
	});

	it("noteSection reads a section by heading path, by last heading or by line, within a bound", () => {
		const text = "---\na: 1\n---\n# T\nintro\n## A\none\n### A1\ndeep\n## B\ntwo\n";
		expect(noteSection(text, 4, { heading: "T > A" }, 1000)).toMatchObject({ heading: "T > A", line: 6, endLine: 9, text: "## A\none\n### A1\ndeep" });
		expect(noteSection(text, 4, { heading: "b" }, 1000)?.text).toBe("## B\ntwo");
		expect(noteSection(text, 4, { line: 9 }, 1000)?.heading).toBe("T > A > A1");
		expect(noteSection(text, 4, {}, 6)).toMatchObject({ text: "# T\nin", truncated: true });
		expect(noteSection(text, 4, { heading: "missing" }, 1000)).toBeNull();
	});
});

describe("passage snippets", () => {
	it("snippets mark only the query's content words: no function words, nothing inside a link, no doubled markers", () => {
		const text = "To pin a note, open the menu of the tab and choose **Pin**. See https://help.obsidian.md/pin-tab or [the guide](https://example.com/open/pin).";
		const snippet = passageSnippet(text, "how do I pin the tab open");
		expect(snippet).toContain("**pin** a note");
		expect(snippet).toContain("**open** the menu");
		expect(snippet).toContain("choose **Pin**.");
		expect(snippet).not.toContain("****");
		expect(snippet).not.toMatch(/\*\*(the|to|of|and|a)\*\*/i);
		expect(snippet).toContain("https://help.obsidian.md/pin-tab");
		expect(snippet).toContain("(https://example.com/open/pin)");
		// A query of function words only still marks them: nothing else would show why it matched.
		expect(passageSnippet("what it is about", "what is it")).toBe("**what** **it** **is** about");
	});
});
