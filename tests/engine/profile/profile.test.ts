import { describe, expect, it } from "vitest";
import { loadProfile, type Profile } from "../../../src/engine/profile";

const profile: Profile = loadProfile([
	{
		file: "test.yaml",
		text: `
name: test
nodes:
  - {label: Project, anchor: true, status: {values: [active, paused, completed], default: active, synonyms: {done: completed, on-hold: paused}}}
  - label: Problem
    status:
      values: [open, in-progress, resolved, wontfix]
      default: open
      synonyms: {solved: resolved, fixed: resolved, "won't fix": wontfix, resuelto: resolved}
  - {label: Concept}
  - {label: Technology}
  - {label: Course, anchor: true}
  - {label: Task, status: {values: [todo, doing]}}
  - {label: Phase, status: {values: [active, later]}}
relations:
  - {type: SOLVED_BY, from: Problem, to: Problem}
  - {type: APPLIES, from: [Project, Problem], to: Concept}
  - {type: TEACHES, from: Course, to: [Technology, Concept]}
  - {type: RELATED_TO, from: Concept, to: "*"}
`,
	},
]);

describe("Profile.resolveLabel", () => {
	it("matches labels case-insensitively", () => {
		expect(profile.resolveLabel("project")?.label).toBe("Project");
		expect(profile.resolveLabel(" PROBLEM ")?.label).toBe("Problem");
		expect(profile.resolveLabel("Projects")).toBeUndefined();
	});
});

describe("Profile.resolveRelationType", () => {
	it.each(["SOLVED_BY", "solved_by", "solved by", "Solved-By", "  solved  by "])("reads %j as SOLVED_BY", (input) => {
		expect(profile.resolveRelationType(input)).toBe("SOLVED_BY");
	});

	it("returns undefined for unknown types", () => {
		expect(profile.resolveRelationType("SOLVES")).toBeUndefined();
	});
});

describe("Profile.isRelationAllowed", () => {
	it("checks type and endpoints, case-insensitively", () => {
		expect(profile.isRelationAllowed("applies", "problem", "concept")).toBe(true);
		expect(profile.isRelationAllowed("APPLIES", "Concept", "Problem")).toBe(false);
		expect(profile.isRelationAllowed("TEACHES", "Course", "Technology")).toBe(true);
	});

	it('lets "*" match any known label but no unknown one', () => {
		expect(profile.isRelationAllowed("RELATED_TO", "Concept", "Course")).toBe(true);
		expect(profile.isRelationAllowed("LINKS_TO", "Task", "Phase")).toBe(true);
		expect(profile.isRelationAllowed("ABOUT", "Insight", "Note")).toBe(true);
		expect(profile.isRelationAllowed("LINKS_TO", "Task", "Unicorn")).toBe(false);
	});
});

describe("Profile.allowedTargets", () => {
	it("lists targets in label order", () => {
		expect(profile.allowedTargets("TEACHES", "Course")).toEqual(["Concept", "Technology"]);
		expect(profile.allowedTargets("applies", "project")).toEqual(["Concept"]);
		expect(profile.allowedTargets("APPLIES", "Course")).toEqual([]);
		expect(profile.allowedTargets("NOPE", "Course")).toEqual([]);
	});

	it('expands "*" to every label', () => {
		const all = profile.labels().map((l) => l.label);
		expect(profile.allowedTargets("RELATED_TO", "Concept")).toEqual(all);
		expect(profile.allowedTargets("LINKS_TO", "Task")).toEqual(all);
		expect(all).toEqual(["Project", "Problem", "Concept", "Technology", "Course", "Task", "Phase", "Insight", "Note"]);
	});
});

describe("Profile.keyFieldOf and anchorLabels", () => {
	it("gives title for Problem and Insight, name otherwise and for unknown labels", () => {
		expect(profile.keyFieldOf("problem")).toBe("title");
		expect(profile.keyFieldOf("Insight")).toBe("title");
		expect(profile.keyFieldOf("Project")).toBe("name");
		expect(profile.keyFieldOf("Unicorn")).toBe("name");
	});

	it("lists anchor labels in order", () => {
		expect(profile.anchorLabels()).toEqual(["Project", "Course"]);
	});
});

describe("Profile.normaliseStatus", () => {
	it("keeps canonical values, in any case or spacing", () => {
		expect(profile.normaliseStatus("Problem", "resolved")).toEqual({ status: "resolved" });
		expect(profile.normaliseStatus("Problem", "RESOLVED")).toEqual({ status: "resolved" });
		expect(profile.normaliseStatus("problem", "In Progress")).toEqual({ status: "in-progress" });
		expect(profile.normaliseStatus("Problem", "in_progress")).toEqual({ status: "in-progress" });
	});

	it("maps synonyms to their canonical value, case- and accent-insensitively", () => {
		expect(profile.normaliseStatus("Problem", "Fixed")).toEqual({ status: "resolved" });
		expect(profile.normaliseStatus("Problem", "won't fix")).toEqual({ status: "wontfix" });
		expect(profile.normaliseStatus("Problem", "Resuélto")).toEqual({ status: "resolved" });
		expect(profile.normaliseStatus("Project", "On Hold")).toEqual({ status: "paused" });
	});

	it("falls back to the default for an unknown value, keeping the original in note with a warning", () => {
		const result = profile.normaliseStatus("Problem", " Blocked by vendor ");
		expect(result.status).toBe("open");
		expect(result.note).toBe("Blocked by vendor");
		expect(result.warning).toContain('Unknown Problem status "Blocked by vendor"');
		expect(result.warning).toContain("open, in-progress, resolved, wontfix");
	});

	it('falls back to "active", else the first value, when there is no default', () => {
		expect(profile.normaliseStatus("Phase", "someday")).toMatchObject({ status: "active", note: "someday" });
		expect(profile.normaliseStatus("Task", "someday")).toMatchObject({ status: "todo", note: "someday" });
	});

	it("uses the default for an empty value without a warning", () => {
		expect(profile.normaliseStatus("Project", "  ")).toEqual({ status: "active" });
	});

	it("passes values through for labels without a vocabulary and keeps system statuses", () => {
		expect(profile.normaliseStatus("Concept", "Evergreen")).toEqual({ status: "Evergreen" });
		expect(profile.normaliseStatus("Unicorn", "x")).toEqual({ status: "x" });
		expect(profile.normaliseStatus("Problem", "stub")).toEqual({ status: "stub" });
		expect(profile.normaliseStatus("Project", "Archived")).toEqual({ status: "archived" });
	});
});
