import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { loadProfile, parseProfile, type ProfileSource } from "../../src/engine/profile";
import { profileFileSchema } from "../../src/engine/profile/profile-schema";
import { withPreparsed } from "../../src/nodejs/profile-files";
import { preparseProfiles, profileTextKey } from "../../src/nodejs/preparse-profiles.mjs";

const ROOT = join(__dirname, "..", "..");
const PROFILES = join(ROOT, "profiles");
const SHIPPED = ["base.yaml", "developer.yaml", ...readdirSync(join(PROFILES, "modules")).filter((f) => f.endsWith(".yaml")).map((f) => `modules/${f}`)];
const source = (file: string): ProfileSource => ({ file, text: readFileSync(join(PROFILES, file), "utf8") });

// The command line carries the shipped profiles parsed at build time (esbuild.config.mjs) and
// skips the YAML parser for them; everything else must behave as if the text had been parsed.
const preparsed = await preparseProfiles(PROFILES);

describe("profiles parsed at build time", () => {
	it("carry what the YAML and the schema give for each shipped file, and the loader takes it unchecked", () => {
		for (const file of SHIPPED) {
			const { text } = source(file);
			expect(preparsed[profileTextKey(text)], file).toEqual(profileFileSchema().parse(parseDocument(text).toJS()));
			expect(withPreparsed([source(file)], preparsed)[0].checked, file).toBe(true);
		}
	});

	it("cover every shipped file, and give the profile parsing the text gives", () => {
		const sources = SHIPPED.map(source);
		const attached = withPreparsed(sources, preparsed);
		expect(attached.every((s) => s.data !== undefined)).toBe(true);
		const modules = SHIPPED.filter((f) => f.startsWith("modules/")).map(source);
		for (const files of [[source("base.yaml"), ...modules], [source("developer.yaml")]]) {
			const fromText = loadProfile(files);
			const fromData = loadProfile(withPreparsed(files, preparsed));
			expect(fromData.name).toBe(fromText.name);
			expect(fromData.labels()).toEqual(fromText.labels());
			expect(fromData.relationDefs()).toEqual(fromText.relationDefs());
		}
	});

	it("uses the data, not the text, when they are given together", () => {
		const base = source("base.yaml");
		const profile = loadProfile([{ file: "base.yaml", text: "not: [yaml", data: preparsed[profileTextKey(base.text)] }]);
		expect(profile.name).toBe(loadProfile([base]).name);
	});

	it("an edited shipped file has no data and is parsed from its text", () => {
		const edited = { file: "base.yaml", text: `${source("base.yaml").text}\n# edited\n` };
		expect(withPreparsed([edited], preparsed)[0].data).toBeUndefined();
	});

	it("reports issues as the text has them (with their line), whatever the data says", () => {
		const broken = { file: "m.yaml", text: "name: m\nrelations:\n  - {type: USES, from: Project, to: Nowhere}\n" };
		const bad = { ...broken, data: { name: "m", relations: [{ type: "USES", from: "Project", to: "Nowhere" }] } };
		const invalid = { ...broken, data: { name: 5 } };
		const expected = parseProfile([source("base.yaml"), broken]);
		expect(expected.ok).toBe(false);
		expect(parseProfile([source("base.yaml"), bad])).toEqual(expected);
		expect(parseProfile([source("base.yaml"), invalid])).toEqual(expected);
		expect(JSON.stringify(expected)).toContain('"line":3');
	});

	it("are in the built command line", () => {
		const { bundle } = JSON.parse(readFileSync(join(ROOT, "dist", "cli.json"), "utf8")) as { bundle: string };
		// The key is the text: its first lines, inside a string literal of the bundle.
		const firstLines = source("base.yaml").text.split("\n").slice(0, 3).join("\n");
		expect(readFileSync(join(ROOT, "dist", bundle), "utf8")).toContain(JSON.stringify(firstLines).slice(1, -1));
	});
});
