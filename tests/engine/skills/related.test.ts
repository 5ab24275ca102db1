import { afterEach, describe, expect, it } from "vitest";
import { createSkills } from "../../../src/engine/skills";
import { openHarness, SCOPE, type SyncHarness } from "../sync/sync-fixture";
import { BagOfWordsEmbedder } from "./skill-fixture";
import { FIELD_VAULT, RELATED_VAULT } from "../../fixtures/related-vault";

const NOTES = RELATED_VAULT;

describe("related notes (skills.related)", () => {
	let h: SyncHarness;
	afterEach(async () => h.close());

	async function open(embedder: boolean) {
		h = await openHarness({ embedder: embedder ? new BagOfWordsEmbedder() : undefined });
		for (const [path, text] of Object.entries(NOTES)) h.write(path, text);
		await h.sync.fullSync();
		return createSkills(h.memory);
	}

	it("lists the notes close in meaning and words, each with the section that makes it related, never itself or an unrelated note", async () => {
		const skills = await open(true);
		const view = await skills.related(SCOPE, { name: "Rendering" });
		const rendering = (await h.memory.graph.findByKey(SCOPE, "Rendering"))[0];
		expect(view?.node_id).toBe(rendering.id);
		const names = view?.related.map((r) => r.name) ?? [];
		expect(names.slice(0, 2).sort()).toEqual(["Charts", "Typesetting"]);
		expect(names).not.toContain("Rendering");
		expect(names).not.toContain("Cooking");
		const charts = view?.related.find((r) => r.name === "Charts");
		expect(charts).toMatchObject({ path: "Charts.md", passage: { heading: "Charts > Diagrams" } });
		expect(charts?.reasons).toEqual(expect.arrayContaining(["meaning", "words"]));
		// Found both ways, it shows the passage the words found, those words marked.
		expect(charts?.passage?.snippet).toMatch(/\*\*\w+\*\*/);
		expect(charts?.passage?.line).toBe(h.read("Charts.md").split("\n").indexOf("## Diagrams") + 1);
		// The note that links to it is listed apart, with the relation (the direction seen from Rendering).
		expect(names).not.toContain("Reading list");
		const reading = view?.linked.find((r) => r.name === "Reading list");
		expect(reading?.reasons).toContain("linked");
		expect(reading?.relation).toEqual({ type: "LINKS_TO", direction: "in" });
	});

	it("keeps the list's places for notes not yet linked: linked notes, however close, are listed apart", async () => {
		h = await openHarness({});
		for (const [path, text] of Object.entries(NOTES)) h.write(path, text);
		h.write("Maths tools.md", "# Maths tools\n\nLaTeX formulas between dollar signs, MathJax renders formulas. See [[Typesetting]].\n");
		await h.sync.fullSync();
		const view = await createSkills(h.memory).related(SCOPE, { name: "Typesetting" }, { limit: 1 });
		expect(view?.linked.map((r) => r.name)).toEqual(["Maths tools"]);
		expect(view?.related.map((r) => r.name)).toEqual(["Rendering"]);
	});

	it("shows why in plain text: no Markdown marks, never the note's own title, only content words both notes hold marked", async () => {
		h = await openHarness({});
		h.write("Snippets.md", "# Snippets\n\n> [!note] Callouts\n> The **callout** syntax quotes a [[Blocks|block]] of text with a type.\n");
		h.write("Callout types.md", "# Callout types\n\nA callout block has a type: note, tip, warning. The syntax of the callout is a quote.\n");
		await h.sync.fullSync();
		const view = await createSkills(h.memory).related(SCOPE, { name: "Callout types" });
		const snippet = view?.related.find((r) => r.name === "Snippets")?.passage?.snippet ?? "";
		expect(snippet).toContain("**callout**");
		expect(snippet).not.toMatch(/^#|\[\[|\]\]|(^|\s)>|\[!note\]|\*\*\*\*/);
		expect(snippet).not.toMatch(/^Snippets\b/);
		// "the", "of" and "a" are shared too, but say nothing: never marked.
		expect(snippet).not.toMatch(/\*\*(the|of|a|with)\*\*/i);
	});

	it("finds the note by its vault path as well as by its name", async () => {
		const skills = await open(false);
		const byPath = await skills.relatedToNote(SCOPE, "Typesetting.md");
		const byName = await skills.relatedToNote(SCOPE, "Typesetting");
		expect(byPath?.related[0]?.name).toBe("Rendering");
		expect(byName).toEqual(byPath);
		expect(await skills.relatedToNote(SCOPE, "Nowhere.md")).toBeNull();
	});

	it("works without a model, by words and relations; words found are marked in the snippet", async () => {
		const skills = await open(false);
		let pauses = 0;
		const view = await skills.related(SCOPE, { name: "Typesetting" }, { pause: async () => void pauses++ });
		// The caller's pause runs between the channels (the plugin yields to typing there).
		expect(pauses).toBe(2);
		const first = view?.related[0];
		expect(first?.name).toBe("Rendering");
		expect(first?.reasons).toEqual(["words"]);
		expect(first?.passage?.heading).toBe("Rendering > Math");
		expect(first?.passage?.snippet).toMatch(/\*\*latex\*\*|\*\*LaTeX\*\*/);
		expect(view?.related.map((r) => r.name)).not.toContain("Cooking");
	});

	it("leaves out archived notes; an unknown name answers null", async () => {
		const skills = await open(true);
		h.write("Charts.md", `---\nstatus: archived\n---\n${NOTES["Charts.md"]}`);
		await h.sync.fullSync();
		const names = (await skills.related(SCOPE, { name: "Rendering" }))?.related.map((r) => r.name) ?? [];
		expect(names).toContain("Typesetting");
		expect(names).not.toContain("Charts");
		expect(await skills.related(SCOPE, { name: "No such note" })).toBeNull();
	});

	it("finds a note the text names without linking it, and one sharing a rare word, over notes that only share common words", async () => {
		h = await openHarness({});
		for (const [path, text] of Object.entries(FIELD_VAULT)) h.write(path, text);
		await h.sync.fullSync();
		const view = await createSkills(h.memory).related(SCOPE, { name: "Monday" });
		const names = view?.related.map((r) => r.name) ?? [];
		expect(names.slice(0, 2).sort()).toEqual(["Fish ear stones", "Kestrel"]);
		const kestrel = view?.related.find((r) => r.name === "Kestrel");
		expect(kestrel?.reasons).toContain("mentioned");
		// Why: its own passage, the shared word marked, not its title.
		expect(kestrel?.passage?.snippet).toMatch(/^A small falcon/);
		const stones = view?.related.find((r) => r.name === "Fish ear stones");
		expect(stones?.passage?.snippet).toMatch(/\*\*otoliths\*\*/i);
		expect(stones?.passage?.snippet).not.toMatch(/^Fish ear stones/);
		// Words every note holds are not what makes a note related: never marked.
		expect(stones?.passage?.snippet).not.toMatch(/\*\*(the|year)\*\*/i);
	});

	it("finds a note named in the text that was added since the last question", async () => {
		h = await openHarness({});
		for (const [path, text] of Object.entries(FIELD_VAULT)) h.write(path, text);
		await h.sync.fullSync();
		const skills = createSkills(h.memory);
		expect((await skills.related(SCOPE, { name: "Monday" }))?.related.map((r) => r.name)).not.toContain("Heron");
		h.write("Heron.md", "# Heron\n\nA wading bird that swallows fish whole and brings up pellets.\n");
		await h.sync.fullSync();
		const heron = (await skills.related(SCOPE, { name: "Monday" }))?.related.find((r) => r.name === "Heron");
		expect(heron?.reasons).toContain("mentioned");
	});

	it("asks the store for no count of the graph while nothing was written since the names were read", async () => {
		h = await openHarness({});
		for (const [path, text] of Object.entries(FIELD_VAULT)) h.write(path, text);
		await h.sync.fullSync();
		const skills = createSkills(h.memory);
		const graph = h.memory.graph;
		const counts = graph.counts.bind(graph);
		let counted = 0;
		Object.assign(graph, { counts: (...args: Parameters<typeof counts>) => (counted++, counts(...args)) });
		const first = await skills.related(SCOPE, { name: "Monday" });
		const before = counted;
		expect(await skills.related(SCOPE, { name: "Monday" })).toEqual(first);
		expect(counted).toBe(before);
	});

	it("answers a note asked again from the list it kept, until this memory writes: an edit is seen at the next question", async () => {
		const skills = await open(false);
		const graph = h.memory.graph;
		const searchPassages = graph.searchPassages?.bind(graph);
		let searched = 0;
		Object.assign(graph, { searchPassages: (...args: Parameters<NonNullable<typeof searchPassages>>) => (searched++, searchPassages?.(...args)) });
		const first = await skills.related(SCOPE, { name: "Typesetting" });
		expect(first?.related.map((r) => r.name)).not.toContain("Cooking");
		const asked = searched;
		expect(await skills.related(SCOPE, { name: "Typesetting" })).toEqual(first);
		expect(searched).toBe(asked);
		// Another limit is another list.
		expect((await skills.related(SCOPE, { name: "Typesetting" }, { limit: 1 }))?.related).toHaveLength(1);
		h.write("Cooking.md", "# Cooking\n\n## Menus\nMenus typeset with LaTeX formulas between dollar signs, MathJax renders them.\n");
		await h.sync.fullSync();
		const after = await skills.related(SCOPE, { name: "Typesetting" });
		expect(after?.related.map((r) => r.name)).toContain("Cooking");
		expect(searched).toBeGreaterThan(asked);
	});
});
