import { afterEach, describe, expect, it } from "vitest";
import { createSkills } from "../../../src/engine/skills";
import { openHarness, SCOPE, type SyncHarness } from "../sync/sync-fixture";
import { BagOfWordsEmbedder } from "./skill-fixture";
import { RELATED_VAULT } from "../../fixtures/related-vault";

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
		expect(names.slice(0, 3).sort()).toEqual(["Charts", "Reading list", "Typesetting"]);
		expect(names).not.toContain("Rendering");
		expect(names).not.toContain("Cooking");
		const charts = view?.related.find((r) => r.name === "Charts");
		expect(charts).toMatchObject({ path: "Charts.md", passage: { heading: "Charts > Diagrams" } });
		expect(charts?.reasons).toEqual(expect.arrayContaining(["meaning", "words"]));
		// Found both ways, it shows the passage the words found, those words marked.
		expect(charts?.passage?.snippet).toMatch(/\*\*\w+\*\*/);
		expect(charts?.passage?.line).toBe(h.read("Charts.md").split("\n").indexOf("## Diagrams") + 1);
		// The note that links to it is related through the relation (the direction seen from Rendering).
		const reading = view?.related.find((r) => r.name === "Reading list");
		expect(reading?.reasons).toContain("linked");
		expect(reading?.relation).toEqual({ type: "LINKS_TO", direction: "in" });
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
});
