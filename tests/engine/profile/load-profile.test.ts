import { describe, expect, it } from "vitest";
import { loadProfile, parseProfile, ProfileError, type ProfileIssue, type ProfileSource } from "../../../src/engine/profile";

const BASE: ProfileSource = {
	file: "base.yaml",
	text: `
name: base
nodes:
  - label: Project
    anchor: true
    properties: [name, status, repo]
    required: [name]
    status:
      values: [active, paused, completed]
      default: active
      synonyms: {done: completed}
  - label: Problem
    properties: [title, status]
  - label: Concept
    properties: [name]
  - label: Technology
    properties: [name]
relations:
  - {type: HAS, from: Project, to: Problem}
  - {type: APPLIES, from: [Project, Problem], to: Concept}
  - {type: USES, from: Project, to: Technology}
`,
};

function mod(file: string, text: string): ProfileSource {
	return { file, text };
}

/** The issues of a profile that must fail to load. */
function issuesOf(sources: readonly ProfileSource[]): readonly ProfileIssue[] {
	const result = parseProfile(sources);
	if (result.ok) throw new Error("expected the profile to be rejected");
	return result.issues;
}

function messageOf(sources: readonly ProfileSource[]): string {
	try {
		loadProfile(sources);
	} catch (error) {
		expect(error).toBeInstanceOf(ProfileError);
		return (error as ProfileError).message;
	}
	throw new Error("expected loadProfile to throw");
}

describe("loadProfile: merging", () => {
	it("unions properties and required fields in order, without duplicates", () => {
		const profile = loadProfile([
			BASE,
			mod("modules/extra.yaml", `
name: extra
nodes:
  - label: Project
    properties: [repo, budget, status, deadline]
    required: [budget]
`),
		]);
		const project = profile.resolveLabel("Project");
		expect(project?.properties).toEqual(["name", "status", "repo", "budget", "deadline"]);
		expect(project?.required).toEqual(["name", "budget"]);
		expect(project?.anchor).toBe(true);
	});

	it("unions status vocabularies and synonyms", () => {
		const profile = loadProfile([
			BASE,
			mod("modules/es.yaml", `
name: es
nodes:
  - label: Project
    status:
      values: [archived-by-client]
      synonyms: {terminado: completed, "en pausa": paused}
`),
		]);
		expect(profile.resolveLabel("Project")?.status).toEqual({
			values: ["active", "paused", "completed", "archived-by-client"],
			default: "active",
			synonyms: { done: "completed", terminado: "completed", "en-pausa": "paused" },
		});
		expect(profile.normaliseStatus("Project", "En pausa").status).toBe("paused");
	});

	it("dedupes relations on (type, from, to), expanding endpoint lists", () => {
		const profile = loadProfile([
			BASE,
			mod("modules/extra.yaml", `
name: extra
relations:
  - {type: HAS, from: Project, to: Problem}
  - {type: APPLIES, from: Problem, to: Concept}
  - {type: USES, from: Problem, to: Technology}
`),
		]);
		expect(profile.relationDefs().filter((r) => r.type === "HAS")).toEqual([{ type: "HAS", from: "Project", to: "Problem" }]);
		expect(profile.relationDefs().filter((r) => r.type === "APPLIES")).toEqual([
			{ type: "APPLIES", from: "Project", to: "Concept" },
			{ type: "APPLIES", from: "Problem", to: "Concept" },
		]);
		expect(profile.relationTypes()).toEqual(["HAS", "APPLIES", "USES", "ABOUT", "LINKS_TO"]);
	});

	it("names the profile after every file, in order", () => {
		const profile = loadProfile([BASE, mod("modules/a.yaml", "name: teaching"), mod("modules/b.yaml", "name: hacking")]);
		expect(profile.name).toBe("base+teaching+hacking");
	});

	it("lets a module repeat a key that agrees, and defaults Decision/Problem/Insight to title", () => {
		const profile = loadProfile([BASE, mod("modules/a.yaml", "name: a\nnodes:\n  - {label: Project, key: name}\n  - {label: Decision, properties: [title]}\n")]);
		expect(profile.keyFieldOf("Project")).toBe("name");
		expect(profile.keyFieldOf("Problem")).toBe("title");
		expect(profile.keyFieldOf("Decision")).toBe("title");
		expect(profile.keyFieldOf("Insight")).toBe("title");
	});

	it("always includes the key among properties and required", () => {
		const profile = loadProfile([mod("p.yaml", "name: p\nnodes:\n  - {label: Photo, key: title, properties: [date]}\n")]);
		expect(profile.resolveLabel("Photo")).toMatchObject({ keyField: "title", properties: ["title", "date"], required: ["title"] });
	});
});

describe("loadProfile: system labels and relations", () => {
	it("adds Insight, Note, ABOUT and LINKS_TO to a profile that lacks them", () => {
		const profile = loadProfile([mod("mini.yaml", "name: mini\nnodes:\n  - {label: Recipe}\n")]);
		expect(profile.labels().map((l) => l.label)).toEqual(["Recipe", "Insight", "Note"]);
		expect(profile.resolveLabel("Insight")?.status?.values).toEqual(["pending", "approved", "dismissed"]);
		expect(profile.relationDefs()).toEqual([
			{ type: "ABOUT", from: "Insight", to: "*" },
			{ type: "LINKS_TO", from: "*", to: "*" },
		]);
	});

	it("merges a profile's own Insight with the system one", () => {
		const profile = loadProfile([mod("p.yaml", "name: p\nnodes:\n  - {label: Insight, properties: [title, severity], description: Mine.}\n")]);
		const insight = profile.resolveLabel("Insight");
		expect(insight?.properties).toEqual(["title", "body", "confidence", "status", "source_query", "reason", "severity"]);
		expect(insight?.description).toBe("Mine.");
		expect(insight?.status?.default).toBe("pending");
	});

	it("refuses to re-key a system label", () => {
		expect(messageOf([mod("p.yaml", "name: p\nnodes:\n  - {label: Insight, key: name}\n")])).toContain(
			'p.yaml: nodes[0].key: Insight is keyed by "title" as a system label; a later definition cannot change it to "name"',
		);
	});
});

describe("loadProfile: errors", () => {
	it("names the file and path of a relation endpoint that is not a label", () => {
		const hacking = mod("modules/hacking.yaml", `
name: hacking
nodes:
  - {label: Machine}
  - {label: Vulnerability, key: title}
relations:
  - {type: HAS, from: Machine, to: Vulnerability}
  - {type: USES, from: Project, to: Technology}
  - {type: AFFECTS, from: Vulnerability, to: Technology}
  - {type: TARGETS, from: Project, to: Machin}
`);
		const message = messageOf([BASE, hacking]);
		expect(message).toContain('modules/hacking.yaml: relations[3].to: unknown label "Machin" (did you mean "Machine"?)');
		expect(message).toContain("(line 10)");
		expect(issuesOf([BASE, hacking])).toHaveLength(1);
	});

	it("points into endpoint lists", () => {
		expect(messageOf([BASE, mod("m.yaml", "name: m\nrelations:\n  - {type: USES, from: [Project, Probelm], to: Technology}\n")])).toContain(
			'm.yaml: relations[0].from[1]: unknown label "Probelm" (did you mean "Problem"?)',
		);
	});

	it("accepts an endpoint defined by a later module", () => {
		const early = mod("modules/a.yaml", "name: a\nrelations:\n  - {type: COVERS, from: Course, to: Concept}\n");
		const late = mod("modules/b.yaml", "name: b\nnodes:\n  - {label: Course, anchor: true}\n");
		expect(loadProfile([BASE, early, late]).isRelationAllowed("COVERS", "Course", "Concept")).toBe(true);
	});

	it("reports YAML syntax errors with the file and line", () => {
		const issues = issuesOf([BASE, mod("modules/broken.yaml", "name: broken\nnodes:\n  - label: A\n    properties: [a, b\n  - label: B\n")]);
		expect(issues[0].file).toBe("modules/broken.yaml");
		expect(issues[0].path).toMatch(/^line \d+, column \d+$/);
		expect(issues[0].message).toMatch(/^YAML syntax error: /);
	});

	it("reports a file with too many alias (*name) expansions as an issue instead of throwing", () => {
		const bomb = mod("modules/bomb.yaml", `name: bomb\nx: &d a\ny: [${Array(101).fill("*d").join(", ")}]\nnodes: []\n`);
		const issues = issuesOf([BASE, bomb]);
		expect(issues).toEqual([{ file: "modules/bomb.yaml", path: "", message: expect.stringMatching(/Excessive alias count[\s\S]*write the values out/) as unknown }]);
	});

	it("reports duplicate mapping keys as YAML errors", () => {
		expect(messageOf([mod("dup.yaml", "name: a\nname: b\n")])).toMatch(/dup\.yaml: line 2, column 1: YAML syntax error: .*unique/);
	});

	it("rejects bad label names and relation types", () => {
		const issues = issuesOf([
			mod("bad.yaml", "name: bad\nnodes:\n  - {label: project}\n  - {label: My-Label}\n  - {label: Ok}\nrelations:\n  - {type: solved_by, from: Ok, to: Ok}\n  - {type: LINKS, from: ok, to: '*'}\n"),
		]);
		expect(issues.map((i) => i.path)).toEqual(["nodes[0].label", "nodes[1].label", "relations[0].type", "relations[1].from"]);
		expect(issues[0].message).toContain('invalid label name "project"');
		expect(issues[2].message).toContain('invalid relation type "solved_by"');
	});

	it("rejects a label defined twice in one file", () => {
		expect(messageOf([mod("twice.yaml", "name: t\nnodes:\n  - {label: Project}\n  - {label: Concept}\n  - {label: Project}\n")])).toContain(
			'twice.yaml: nodes[2].label: duplicate label "Project" (first defined at nodes[0])',
		);
	});

	it("rejects a label that differs from an earlier one only in case", () => {
		expect(messageOf([BASE, mod("m.yaml", "name: m\nnodes:\n  - {label: PROJECT}\n")])).toContain('m.yaml: nodes[0].label: label "PROJECT" differs only in case from "Project"');
	});

	it("rejects a module that changes a label's key", () => {
		expect(messageOf([BASE, mod("modules/m.yaml", "name: m\nnodes:\n  - {label: Project, key: title}\n")])).toContain(
			'modules/m.yaml: nodes[0].key: Project is keyed by "name" by default; a later definition cannot change it to "title"',
		);
	});

	it("rejects unknown keys, suggesting the intended one", () => {
		expect(messageOf([mod("t.yaml", "name: t\nnodes:\n  - {label: A, requried: [name]}\n")])).toContain('t.yaml: nodes[0].requried: unknown key "requried" (did you mean "required"?)');
	});

	it("rejects required properties that are not properties", () => {
		expect(messageOf([mod("t.yaml", "name: t\nnodes:\n  - {label: A, properties: [name, colour], required: [color]}\n")])).toContain(
			't.yaml: nodes[0].required[0]: required property "color" is not among A\'s properties',
		);
	});

	it("rejects status defaults and synonyms outside the vocabulary", () => {
		const message = messageOf([
			mod("s.yaml", "name: s\nnodes:\n  - label: Task\n    status:\n      values: [todo, done]\n      default: doing\n      synonyms: {finished: complete, todo: done}\n"),
		]);
		expect(message).toContain('s.yaml: nodes[0].status.default: default status "doing" is not one of Task\'s values (todo, done)');
		expect(message).toContain('s.yaml: nodes[0].status.synonyms.finished: synonym maps to "complete"');
		expect(message).toContain('s.yaml: nodes[0].status.synonyms.todo: "todo" is already a Task status value');
	});

	it("rejects a module that changes a default status or a synonym", () => {
		const message = messageOf([BASE, mod("m.yaml", "name: m\nnodes:\n  - label: Project\n    status: {default: paused, synonyms: {done: paused}}\n")]);
		expect(message).toContain('m.yaml: nodes[0].status.default: Project already has default status "active" (base.yaml: nodes[0].status.default)');
		expect(message).toContain('m.yaml: nodes[0].status.synonyms.done: synonym "done" already maps to "completed"');
	});

	it("rejects an empty file, a missing name and the same profile twice", () => {
		expect(messageOf([mod("empty.yaml", "")])).toContain("empty.yaml: a profile must be a YAML mapping with name, nodes and relations");
		expect(messageOf([mod("anon.yaml", "nodes: []\n")])).toContain("anon.yaml: name: every profile needs a name");
		expect(messageOf([BASE, mod("again.yaml", "name: base\n")])).toContain('again.yaml: name: profile "base" is already loaded from base.yaml');
		expect(messageOf([])).toContain("no profile files given");
	});

	it("lists every issue of every file in one ProfileError", () => {
		const error = (() => {
			try {
				loadProfile([mod("a.yaml", "name: a\nnodes:\n  - {label: bad}\n"), mod("b.yaml", "name: b\nrelations: {}\n")]);
			} catch (e) {
				return e as ProfileError;
			}
			throw new Error("expected a ProfileError");
		})();
		expect(error.code).toBe("invalid_profile");
		expect(error.issues.map((i) => `${i.file}: ${i.path}`)).toEqual(["a.yaml: nodes[0].label", "b.yaml: relations"]);
		expect(error.message.split("\n")).toHaveLength(3);
	});
});
