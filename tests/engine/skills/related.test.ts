import { afterEach, describe, expect, it } from "vitest";
import { createSkills } from "../../../src/engine/skills";
import { openHarness, SCOPE, type SyncHarness } from "../sync/sync-fixture";
import { BagOfWordsEmbedder } from "./skill-fixture";

const NOTES: Record<string, string> = {
	"Rendering.md": "# Rendering\n\n## Math\nFormulas are typed in LaTeX between dollar signs and rendered with MathJax.\n\n## Diagrams\nFlowcharts come from mermaid code blocks.\n",
	"Charts.md": "# Charts\n\nSome intro.\n\n## Flowcharts\nA mermaid code block draws flowcharts and sequence diagrams; PlantUML needs a plugin.\n",
	"Typesetting.md": "# Typesetting\n\n## Formulas\nLaTeX formulas between dollar signs: MathJax renders inline and block formulas.\n",
	"Cooking.md": "# Cooking\n\n## Pasta\nBoil water, add salt, cook the pasta for nine minutes.\n",
	"Reading list.md": "Books to read this winter: see [[Rendering]] for the notes on tools.\n",
};

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
		expect(names.slice(0, 3).sort()).toEqual(["Charts", "Reading list", "Typesetting"]);
		expect(names).not.toContain("Rendering");
		expect(names).not.toContain("Cooking");
		const charts = view?.related.find((r) => r.name === "Charts");
		expect(charts).toMatchObject({ path: "Charts.md", passage: { heading: "Charts > Flowcharts" } });
		expect(charts?.reasons).toEqual(expect.arrayContaining(["meaning", "words"]));
		expect(charts?.passage?.line).toBe(h.read("Charts.md").split("\n").indexOf("## Flowcharts") + 1);
		// The note that links to it is related through the relation (the direction seen from Rendering).
		const reading = view?.related.find((r) => r.name === "Reading list");
		expect(reading?.reasons).toContain("linked");
		expect(reading?.relation).toEqual({ type: "LINKS_TO", direction: "in" });
	});

	it("works without a model, by words and relations; words found are marked in the snippet", async () => {
		const skills = await open(false);
		const view = await skills.related(SCOPE, { name: "Typesetting" });
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
});
