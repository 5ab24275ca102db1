import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadProfile, type ProfileSource } from "../../../src/engine/profile";

const PROFILES = fileURLToPath(new URL("../../../profiles/", import.meta.url));

function source(file: string): ProfileSource {
	return { file, text: readFileSync(join(PROFILES, file), "utf8") };
}

const MODULES = readdirSync(join(PROFILES, "modules"))
	.filter((f) => f.endsWith(".yaml"))
	.sort()
	.map((f) => `modules/${f}`);

describe("shipped profiles", () => {
	it("ship the four documented modules", () => {
		expect(MODULES).toEqual(["modules/ai.yaml", "modules/hacking.yaml", "modules/photography.yaml", "modules/teaching.yaml"]);
	});

	it.each(["base.yaml", "developer.yaml"])("%s loads on its own", (file) => {
		const profile = loadProfile([source(file)]);
		expect(profile.resolveLabel("Project")?.anchor).toBe(true);
		expect(profile.keyFieldOf("Problem")).toBe("title");
		expect(profile.isRelationAllowed("SOLVED_BY", "Problem", "Decision")).toBe(true);
	});

	it.each(MODULES)("base + %s loads", (file) => {
		expect(() => loadProfile([source("base.yaml"), source(file)])).not.toThrow();
	});

	it("base + every module loads together, named after its parts", () => {
		const profile = loadProfile([source("base.yaml"), ...MODULES.map(source)]);
		expect(profile.name).toBe("base+ai+hacking+photography+teaching");
		// Technique is defined by both hacking and photography: one merged label.
		expect(profile.labels().filter((l) => l.label === "Technique")).toHaveLength(1);
		expect(profile.resolveLabel("Technique")?.properties).toEqual(expect.arrayContaining(["mitre_id", "tactic", "aliases"]));
	});

	it("every label carries a one-line description", () => {
		const profile = loadProfile([source("base.yaml"), ...MODULES.map(source)]);
		const developer = loadProfile([source("developer.yaml")]);
		for (const def of [...profile.labels(), ...developer.labels()]) {
			expect(def.description, def.label).toMatch(/^[^\n]{10,120}$/);
		}
	});

	it("base has the relations reflect needs", () => {
		const profile = loadProfile([source("base.yaml"), source("modules/teaching.yaml")]);
		expect(profile.isRelationAllowed("HAS", "Project", "Problem")).toBe(true);
		expect(profile.isRelationAllowed("APPLIES", "Problem", "Concept")).toBe(true);
		expect(profile.isRelationAllowed("INSTANCE_OF", "Problem", "Concept")).toBe(true);
		expect(profile.isRelationAllowed("USES", "Project", "Technology")).toBe(true);
		expect(profile.isRelationAllowed("TEACHES", "Course", "Technology")).toBe(true);
		expect(profile.isRelationAllowed("COVERS", "Course", "Concept")).toBe(true);
		expect(profile.isRelationAllowed("FOR", "Course", "Client")).toBe(true);
		expect(profile.isRelationAllowed("ABOUT", "Insight", "Course")).toBe(true);
		expect(profile.anchorLabels()).toEqual(["Project", "Domain", "Client", "Course"]);
		expect(profile.normaliseStatus("Problem", "fixed").status).toBe("resolved");
	});
});
