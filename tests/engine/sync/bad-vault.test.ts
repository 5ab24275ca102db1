import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isUuid } from "../../../src/engine/write/write-pipeline";
import { allNodes, BAD_VAULT, graphSnapshot, node, openHarness, outEdges, SCOPE, type SyncHarness } from "./sync-fixture";

const open: SyncHarness[] = [];
async function harness(...args: Parameters<typeof openHarness>): Promise<SyncHarness> {
	const h = await openHarness(...args);
	open.push(h);
	return h;
}
afterEach(async () => {
	for (const h of open.splice(0)) await h.close();
});

describe("the bad-vault fixture (tests/fixtures/bad-vault/README.md)", () => {
	it("reports every bad file with what is wrong and what to do, and syncs the rest", async () => {
		const h = await harness({ from: BAD_VAULT });
		const report = await h.sync.fullSync();
		const byFile = new Map<string, string[]>();
		for (const p of report.problems) {
			expect(p.problem.length, JSON.stringify(p)).toBeGreaterThan(10);
			expect(p.action.length, JSON.stringify(p)).toBeGreaterThan(10);
			byFile.set(p.path, [...(byFile.get(p.path) ?? []), `${p.severity}: ${p.problem}`]);
		}
		const errors = report.problems.filter((p) => p.severity === "error").map((p) => p.path).sort();
		expect(errors).toEqual(["binary.md", "broken-frontmatter.md", "unclosed-frontmatter.md", "unknown-label.md"]);
		expect(byFile.get("broken-frontmatter.md")?.[0]).toMatch(/YAML is broken \(line \d+\)/);
		expect(byFile.get("relations-is-a-list.md")?.join()).toContain('"relations" must be a map');
		expect(byFile.get("relations-bad-targets.md")?.join()).toContain("relations.APPLIES has a value that is not a name");
		expect(byFile.get("unknown-relation-type.md")?.join("\n")).toMatch(/FRIENDS_WITH[\s\S]*SOLVED_BY cannot start from a Concept[\s\S]*USES cannot start from a Concept/);
		expect(byFile.get("type-is-not-a-label.md")?.join("\n")).toMatch(/not a UUID[\s\S]*status "42"/);
		expect(byFile.get("duplicate-id-b.md")?.join()).toContain("duplicate-id-a.md");

		const labelled = (await allNodes(h.memory)).map((n) => `${n.label}:${n.key}${n.props.status === "stub" ? " (stub)" : ""}`).sort();
		expect(labelled).toEqual(
			[
				"Concept:CRLF and BOM",
				"Concept:Duplicate id A",
				"Concept:Duplicate id B",
				"Concept:Idempotency (stub)",
				"Concept:Self reference",
				"Concept:Unknown relation type",
				"Note:C (stub)",
				"Note:C# tips",
				"Note:Café ☕ notes",
				"Note:bad-vault: malformed input for sync",
				"Note:Résumé",
				// Its YAML is broken: found by its text as an untyped note, nothing written into it.
				"Note:Broken frontmatter",
				"Note:empty",
				"Person:Zoë Ñúñez (stub)",
				"Problem:2026",
				"Project:Relations is a list",
				"Project:Relations with bad targets",
				"Project:🚀 Launch plan",
				"Technology:TypeScript (stub)",
			].sort(),
		);
	});

	it("reads the unusual notes the way the fixture README expects", async () => {
		const h = await harness({ from: BAD_VAULT });
		await h.sync.fullSync();
		const problem = await node(h.memory, "Problem", "2026");
		expect(problem.props).toMatchObject({ status: "open", status_note: "42", tags: ["reading", "auth"] });
		expect(isUuid(problem.id)).toBe(true);
		expect(h.read("type-is-not-a-label.md")).toContain(`engrama_id: ${problem.id}`);

		const a = await node(h.memory, "Concept", "Duplicate id A");
		const b = await node(h.memory, "Concept", "Duplicate id B");
		expect(a.id).toBe("3f8e1c2a-9b7d-4e6f-8a1b-2c3d4e5f6a7b");
		expect(b.id).not.toBe(a.id);
		expect(h.read("duplicate-id-b.md")).toContain(`engrama_id: ${b.id}`);

		const bad = await node(h.memory, "Project", "Relations with bad targets");
		expect((await outEdges(h.memory, bad)).map((e) => `${e.type}>${e.to.key}`).sort()).toEqual(["APPLIES>Idempotency", "USES>TypeScript"]);
		expect(await outEdges(h.memory, await node(h.memory, "Project", "Relations is a list"))).toEqual([]);
		expect(await outEdges(h.memory, await node(h.memory, "Concept", "Self reference"))).toEqual([]);

		const cafe = await node(h.memory, "Note", "Café ☕ notes");
		expect(cafe.props.tags).toEqual(["café"]);
		expect((await outEdges(h.memory, cafe, "LINKS_TO")).map((e) => `${e.to.label}:${e.to.key}`)).toEqual(["Project:🚀 Launch plan"]);
		const launch = await node(h.memory, "Project", "🚀 Launch plan");
		expect((await outEdges(h.memory, launch, "INVOLVES")).map((e) => e.to.key)).toEqual(["Zoë Ñúñez"]);
		const tips = await node(h.memory, "Note", "C# tips");
		expect(tips.props.tags).toBeUndefined();
		expect((await outEdges(h.memory, tips)).map((e) => e.to.key)).toEqual(["C"]);
		// The NFD file name is read as NFC (like Obsidian's normalizePath), so a typed [[Résumé]] finds it
		// and a second sync recognises the file.
		expect((await node(h.memory, "Note", "R\u00e9sum\u00e9")).props.obsidian_path).toBe("R\u00e9sum\u00e9.md");
		const again = await h.sync.fullSync();
		expect(again.counts).toMatchObject({ nodesMoved: 0, nodesArchived: 0, nodesUpdated: 0 });
	});

	it("a note whose frontmatter YAML is broken is found by its text, reported at every sync, and nothing is written into it", async () => {
		const h = await harness();
		const broken = "---\ntitle: Field notes\nauthor: @name\n---\n# Field guide\n\nThe quartzite ridge is mapped in section two.\n\n## Camp\n\nWater is drawn from the tarn.\n";
		h.write("Broken.md", broken);
		h.write("Good.md", "# Good\n\nNothing wrong here.\n");
		const found = async (query: string) => (await h.memory.search(SCOPE, query)).results.find((r) => r.path === "Broken.md");
		const reported = (report: { problems: readonly { path: string; severity: string; problem: string }[] }) =>
			report.problems.filter((p) => p.path === "Broken.md" && p.severity === "error").map((p) => p.problem);

		expect(reported(await h.sync.fullSync())).toEqual([expect.stringMatching(/YAML is broken \(line 3\)/)]);
		expect(h.read("Broken.md")).toBe(broken);
		expect(await found("quartzite")).toMatchObject({ label: "Note", name: "Field guide", passages: [{ heading: "Field guide", line: 5 }] });
		expect((await found("tarn"))?.passages?.[0]).toMatchObject({ heading: "Field guide > Camp", line: 9 });
		const first = await found("quartzite");
		// Every sync reads it again and reports it again (a full sync and an edit's path sync alike).
		expect(reported(await h.sync.fullSync())).toHaveLength(1);
		h.write("Broken.md", broken.replace("tarn", "spring"));
		expect(reported(await h.sync.syncPaths(["Broken.md"]))).toHaveLength(1);
		expect(await found("tarn")).toBeUndefined();
		expect(await found("spring")).toMatchObject({ node_id: first?.node_id, name: "Field guide" });
		expect(h.read("Broken.md")).toBe(broken.replace("tarn", "spring"));
		expect(h.read("Good.md")).toContain("engrama_id");
		expect((await h.sync.writeMissingIds(["Broken.md"])).written).toEqual([]);
		expect(h.read("Broken.md")).not.toContain("engrama_id");

		// Fixed: synced in full (its title names it now), the same node, and only now given its id.
		h.write("Broken.md", broken.replace("@name", '"@name"'));
		expect(reported(await h.sync.syncPaths(["Broken.md"]))).toEqual([]);
		const fixed = await found("quartzite");
		expect(fixed).toMatchObject({ node_id: first?.node_id, name: "Field notes" });
		expect(h.read("Broken.md")).toContain(`engrama_id: ${fixed?.node_id}`);

		// Broken again: the node keeps its name and props, its sections follow the text.
		h.write("Broken.md", h.read("Broken.md").replace('"@name"', "@name").replace("quartzite", "granite"));
		expect(reported(await h.sync.fullSync())).toHaveLength(1);
		expect(await found("granite")).toMatchObject({ node_id: first?.node_id, name: "Field notes" });
		// (The kept node's own description still says quartzite; no section does any more.)
		expect((await found("quartzite"))?.passages).toBeUndefined();
	});

	it("never damages what is stored when a good note turns bad", async () => {
		const h = await harness();
		const good = {
			"yaml.md": "---\nengrama_label: Project\nname: Yaml\nrelations:\n  USES: [Python]\n---\nBody [[Other]].",
			"label.md": "---\nengrama_label: Project\nname: Label\nrelations:\n  USES: [Python]\n---\n",
			"unclosed.md": "---\nengrama_label: Concept\nname: Unclosed\n---\n[[Other]]",
			"relations.md": "---\nengrama_label: Project\nname: Relations\nrelations:\n  USES: [Python]\n  APPLIES: [Retries]\n---\n",
			"binary.md": "---\nengrama_label: Concept\nname: Binary\n---\n",
			"big.md": "---\nengrama_label: Concept\nname: Big\nrelations:\n  SIMILAR_TO: [Retries]\n---\n",
		};
		for (const [path, text] of Object.entries(good)) h.write(path, text);
		await h.sync.fullSync();
		const stored = await graphSnapshot(h.memory);
		const withId = (path: string, text: string) => text.replace("---\n", `---\nengrama_id: ${/engrama_id: (.+)/.exec(h.read(path))?.[1] ?? ""}\n`);
		h.write("yaml.md", withId("yaml.md", "---\nengrama_label: Project\nname: Yaml\ntags: [a\n---\nBody"));
		h.write("label.md", withId("label.md", "---\nengrama_label: Spaceship\nname: Label\n---\n"));
		h.write("unclosed.md", "---\nengrama_label: Concept\nname: Unclosed\n\nno close");
		h.write("relations.md", withId("relations.md", "---\nengrama_label: Project\nname: Relations\nrelations: [USES, Python]\n---\n"));
		h.write("binary.md", "\u0089PNG\r\n\u001a\n\u0000\u0000\u0000\rIHDR");
		writeFileSync(join(h.vaultDir, "big.md"), `${withId("big.md", good["big.md"])}${"x".repeat(21 * 1024 * 1024)}`);
		const report = await h.sync.fullSync();
		expect(report.problems.filter((p) => p.severity === "error").map((p) => p.path).sort()).toEqual([
			"big.md",
			"binary.md",
			"label.md",
			"unclosed.md",
			"yaml.md",
		]);
		expect(report.problems.find((p) => p.path === "big.md")?.problem).toMatch(/21\.0 MB, over the 5\.0 MB/);
		expect(report.counts.nodesArchived).toBe(0);
		const after = await graphSnapshot(h.memory);
		// Only relations.md was synced (its relations frozen), so only its bookkeeping changed.
		const strip = (lines: string[]) => lines.map((l) => l.replace(/"(content_hash|obsidian_size)":[^,]+,/g, ""));
		expect(strip(after.nodes)).toEqual(strip(stored.nodes));
		expect(after.edges).toEqual(stored.edges);
	});

	it("syncs names with unicode, emoji, #, |, [[, leading dots in folders, and very long paths", async () => {
		const h = await harness();
		const deep = `${"deep folder name ".repeat(6).trim()}/${"nested ".repeat(10).trim()}`;
		const long = `${"A very long note name ".repeat(9).trim()}`;
		const names = ["a | b.md", "x [[y.md", "日本語のノート.md", "🎉.md", `${deep}/${long}.md`];
		for (const path of names) {
			mkdirSync(join(h.vaultDir, path, ".."), { recursive: true });
			writeFileSync(join(h.vaultDir, path), "text");
		}
		const report = await h.sync.fullSync();
		expect(report.problems.map((p) => `${p.path}: ${p.problem}`)).toEqual([
			expect.stringContaining('a | b.md: Its path contains "|", which Windows and Obsidian do not allow'),
			expect.stringContaining("🎉.md: The note's name cannot be used"),
		]);
		const keys = (await allNodes(h.memory)).map((n) => n.key).sort();
		expect(keys).toEqual(["a | b", "x [[y", "日本語のノート", long].sort());
		expect((await h.memory.graph.getNode(SCOPE, "Note", long))?.props.obsidian_path).toBe(`${deep}/${long}.md`);
	});
});
