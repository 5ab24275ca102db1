import { describe, expect, it } from "vitest";
import { parseNote, syncSettings, type NoteParseResult, type ParsedNote, type SyncSettings } from "../../../src/engine/sync";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { labelsOfOtherModules, loadProfile } from "../../../src/engine/profile";
import { exampleProfile, ROOT } from "./sync-fixture";

const profile = exampleProfile();

function parse(text: string, path = "Notes/Some note.md", settings: Partial<SyncSettings> = {}): NoteParseResult {
	return parseNote({ path, text, settings: syncSettings(settings), profile });
}

function note(text: string, path?: string, settings?: Partial<SyncSettings>): ParsedNote {
	const result = parse(text, path, settings);
	if (result.kind !== "note") throw new Error(`expected a note, got ${JSON.stringify(result)}`);
	return result.note;
}

function problems(text: string, path?: string, settings?: Partial<SyncSettings>): string[] {
	const result = parse(text, path, settings);
	if (result.kind !== "invalid") throw new Error(`expected problems, got ${result.kind}`);
	return result.problems.map((p) => `${p.path}|${p.severity}|${p.problem}|${p.action}`);
}

describe("label", () => {
	it("comes from engrama_label, in any case", () => {
		expect(note("---\nengrama_label: technology\n---\n").label).toBe("Technology");
	});

	it("comes from `type` when it names a label, and `type` is then not a property", () => {
		const n = note("---\ntype: Concept\n---\n");
		expect(n.label).toBe("Concept");
		expect(n.props.type).toBeUndefined();
	});

	it("keeps `type` as a property when engrama_label is set and the label knows `type`", () => {
		const n = note("---\nengrama_label: Technology\ntype: framework\n---\n");
		expect(n.label).toBe("Technology");
		expect(n.props.type).toBe("framework");
	});

	it("warns when `type` names no label or is a list, and still indexes the note as Note", () => {
		const unknown = note("---\ntype: meeting\n---\n");
		expect(unknown.label).toBe("Note");
		expect(unknown.warnings).toEqual([
			expect.objectContaining({
				path: "Notes/Some note.md",
				severity: "warning",
				problem: 'type: "meeting" is not a label of profile base+teaching, so the note is indexed as Note.',
				action: expect.stringContaining("set engrama_label (or type) to it; otherwise nothing to do") as unknown,
			}),
		]);
		const list = note("---\ntype: [Project, meeting]\n---\n");
		expect(list.label).toBe("Note");
		expect(list.warnings.map((w) => w.problem)).toEqual(['type: ["Project","meeting"] is a list, not one label, so the note is indexed as Note.']);
		// engrama_label decides: `type` is then just a property, never a warning.
		expect(note("---\nengrama_label: Concept\ntype: meeting\n---\n").warnings).toEqual([]);
	});

	it("names the module to turn on when `type` is a label of a module that is off", () => {
		const baseOnly = loadProfile([{ file: "base.yaml", text: readFileSync(join(ROOT, "profiles/base.yaml"), "utf8") }]);
		const teaching = { file: "teaching.yaml", text: readFileSync(join(ROOT, "profiles/modules/teaching.yaml"), "utf8") };
		const moduleLabels = labelsOfOtherModules([teaching], baseOnly);
		expect(moduleLabels).toMatchObject({ Course: "teaching" });
		const result = parseNote({ path: "Courses/Intro.md", text: "---\ntype: course\n---\n", settings: syncSettings({ moduleLabels }), profile: baseOnly });
		if (result.kind !== "note") throw new Error(result.kind);
		expect(result.note.label).toBe("Note");
		expect(result.note.warnings[0]).toMatchObject({
			problem: 'type: "course" is a label of module teaching, which is off, so the note is indexed as Note.',
			action: expect.stringMatching(/^Turn on module teaching .* to index it as Course/) as unknown,
			module: "teaching",
		});
	});

	it("names the module to turn on when engrama_label is a label of a module that is off", () => {
		const baseOnly = loadProfile([{ file: "base.yaml", text: readFileSync(join(ROOT, "profiles/base.yaml"), "utf8") }]);
		const teaching = { file: "teaching.yaml", text: readFileSync(join(ROOT, "profiles/modules/teaching.yaml"), "utf8") };
		const moduleLabels = labelsOfOtherModules([teaching], baseOnly);
		const result = parseNote({ path: "Courses/Intro.md", text: "---\nengrama_label: Lesson\n---\n", settings: syncSettings({ moduleLabels }), profile: baseOnly });
		if (result.kind !== "invalid") throw new Error(result.kind);
		expect(result.problems[0]).toMatchObject({
			severity: "error",
			problem: 'engrama_label "Lesson" is a label of module teaching, which is off, so the note is not synced.',
			action: expect.stringMatching(/^Turn on module teaching .* to sync it as Lesson/) as unknown,
			module: "teaching",
		});
	});

	it("falls back to the longest matching folder mapping, then to Note", () => {
		const settings = { folderLabels: { Work: "Project", "Work/Bugs": "Problem" } };
		expect(note("plain", "Work/Bugs/Crash.md", settings).label).toBe("Problem");
		expect(note("plain", "Work/Alpha.md", settings).label).toBe("Project");
		expect(note("plain", "Elsewhere/Alpha.md", settings).label).toBe("Note");
	});

	it("skips untyped notes when untyped indexing is off", () => {
		expect(parse("just text", "a.md", { indexUntypedNotes: false }).kind).toBe("skipped");
	});

	it("refuses an unknown engrama_label and says which labels exist", () => {
		const [problem] = problems("---\nengrama_label: Spaceship\n---\n", "x.md");
		expect(problem).toContain("x.md|error|engrama_label \"Spaceship\" is not a label");
		expect(problem).toContain("Project, Concept");
	});
});

describe("name", () => {
	it("prefers the key field, then the other key field, then the first H1, then the file name", () => {
		expect(note("---\nengrama_label: Decision\ntitle: T\nname: N\n---\n# H\n").key).toBe("T");
		expect(note("---\nengrama_label: Project\ntitle: T\n---\n# H\n").key).toBe("T");
		expect(note("---\nengrama_label: Project\n---\n# The **big** [[Plan|plan]]\n").key).toBe("The big plan");
		const fromFile = note("no heading", "Folder/File name.md");
		expect(fromFile.key).toBe("File name");
		expect(fromFile.keyFromFileName).toBe(true);
	});

	it("turns a numeric title into text", () => {
		expect(note("---\nengrama_label: Problem\ntitle: 2026\n---\n").key).toBe("2026");
	});

	it("reports a name without letters or digits", () => {
		const [problem] = problems("---\nname: '---'\n---\n", "x.md");
		expect(problem).toContain("x.md|error|The note's name cannot be used");
	});
});

describe("description and tags", () => {
	it("takes the first blockquote or paragraph, skipping headings, lists and code", () => {
		expect(note("# Title\n\n- a list\n\n```\ncode\n```\n\nFirst *real* paragraph\ncontinues here.\n\nSecond.").props.description).toBe(
			"First real paragraph continues here.",
		);
		expect(note("# T\n\n> [!note] Callout\n> The quoted text.\n").props.description).toBe("Callout The quoted text.");
	});

	it("keeps a frontmatter description and derives none when the note states a summary", () => {
		expect(note("---\ndescription: Stated.\n---\nBody text.").props.description).toBe("Stated.");
		expect(note("---\nengrama_label: Project\nsummary: S\n---\nBody text.").props.description).toBeUndefined();
	});

	it("merges frontmatter and inline tags, case-insensitively, ignoring code and headings", () => {
		const n = note("---\ntags: [Auth, backend]\n---\n# Heading\nText #auth and #new-tag/sub `#code` #123\n```\n#fenced\n```\n");
		expect(n.props.tags).toEqual(["Auth", "backend", "new-tag/sub"]);
	});

	it("splits tags written as one string", () => {
		expect(note("---\ntags: \"reading, auth\"\n---\n").props.tags).toEqual(["reading", "auth"]);
	});
});

describe("properties", () => {
	it("keeps only properties the profile knows for the label", () => {
		const n = note("---\nengrama_label: Project\nrepo: r\nstack: [a, b]\ncssclasses: wide\nengrama_id: nope\n---\n");
		expect(n.props).toMatchObject({ repo: "r", stack: ["a", "b"] });
		expect(n.props.cssclasses).toBeUndefined();
		expect(n.props.engrama_id).toBeUndefined();
	});

	it("keeps a numeric status as text so the vocabulary can normalise it", () => {
		expect(note("---\nengrama_label: Problem\nstatus: 42\n---\n").props.status).toBe("42");
	});

	it("warns about a property value it cannot store and keeps the rest", () => {
		const n = note("---\nengrama_label: Project\nrepo: {url: x}\nstack: s\n---\n");
		expect(n.props.stack).toBe("s");
		expect(n.props.repo).toBeUndefined();
		expect(n.warnings.map((w) => w.problem).join()).toContain('Property "repo"');
	});
});

describe("engrama_id", () => {
	it("reads a UUID, lower-cased", () => {
		expect(note("---\nengrama_id: 7D0C2A4E-3B1F-4C55-9A8E-2F6D1B0E9C41\n---\n").id).toBe("7d0c2a4e-3b1f-4c55-9a8e-2f6d1b0e9c41");
	});

	it("warns about an id that is not a UUID and leaves it out", () => {
		const n = note("---\nengrama_id: not-a-uuid\n---\n");
		expect(n.id).toBeUndefined();
		expect(n.hasIdKey).toBe(true);
		expect(n.warnings[0].problem).toContain("not a UUID");
	});
});

describe("relations", () => {
	it("reads names and wikilinks (alias, heading, block, folder), scalar or list, unquoted [[x]]", () => {
		const n = note(
			[
				"---",
				"engrama_label: Project",
				"relations:",
				"  uses: [Python, \"[[Neo4j|graph db]]\", \"[[Tools/Node.js#Setup]]\"]",
				"  FOR: Acme",
				"  APPLIES:",
				"    - [[Idempotency]]",
				"  in domain: \"[[Payments^block]]\"",
				"  INVOLVES: []",
				"---",
			].join("\n"),
		);
		expect(n.relations).toEqual([
			{ type: "USES", target: "Python" },
			{ type: "USES", target: "Neo4j" },
			{ type: "USES", target: "Tools/Node.js" },
			{ type: "FOR", target: "Acme" },
			{ type: "APPLIES", target: "Idempotency" },
			{ type: "IN_DOMAIN", target: "Payments" },
		]);
		expect(n.frozenTypes).toEqual([]);
		expect(n.relationsFrozen).toBe(false);
	});

	it("freezes the whole map when `relations` is not a map", () => {
		const n = note("---\nengrama_label: Project\nrelations: [USES, Python]\n---\n");
		expect(n.relationsFrozen).toBe(true);
		expect(n.warnings[0].problem).toContain('"relations" must be a map');
	});

	it("freezes one type whose list holds something that is not a name, keeping the good targets", () => {
		const n = note('---\nengrama_label: Project\nrelations:\n  APPLIES: [42, null, {name: X}, "", "[[]]", "[[Idempotency]]"]\n---\n');
		expect(n.relations).toEqual([{ type: "APPLIES", target: "Idempotency" }]);
		expect(n.frozenTypes).toEqual(["APPLIES"]);
	});

	it("warns about unknown types and types that cannot start from the label", () => {
		const n = note("---\nengrama_label: Concept\nrelations:\n  FRIENDS_WITH: [A]\n  USES: [B]\n  SIMILAR_TO: [C]\n---\n");
		expect(n.relations).toEqual([{ type: "SIMILAR_TO", target: "C" }]);
		const text = n.warnings.map((w) => `${w.problem} ${w.action}`).join("\n");
		expect(text).toContain('Unknown relation type "FRIENDS_WITH"');
		expect(text).toContain("SIMILAR_TO");
		expect(text).toContain("USES cannot start from a Concept");
	});
});

describe("body wikilinks", () => {
	it("collects note links and embeds, not attachments, code or same-note headings", () => {
		const n = note("See [[A]], [[B|alias]], [[C#h]], ![[D]], ![[pic.png]], [[E.pdf]], [[#Local]], [[A]].\n`[[F]]`\n```\n[[G]]\n```\n%% [[H]] %%");
		expect(n.links).toEqual(["A", "B", "C", "D"]);
	});
});

describe("bad input", () => {
	it("reports broken YAML with its line and what to do, and reads the note as its body alone", () => {
		const n = note("---\nengrama_label: Problem\ntags: [auth, backend\nrelations:\n  USES: [TypeScript]\n---\n# Login fails\n\nbody [[Link]]", "b.md");
		expect(n.warnings.map((w) => `${w.severity}|${w.problem}|${w.action}`)).toEqual([expect.stringMatching(/^error\|The frontmatter YAML is broken \(line \d+\).*Fix the YAML/)]);
		// Nothing from the frontmatter: no label, tags or relations (never half-parsed), no id to write.
		expect(n).toMatchObject({ frontmatterBroken: true, label: "Note", key: "Login fails", relations: [], relationsFrozen: true, hasIdKey: false, bodyLine: 7 });
		expect(n.props.tags).toBeUndefined();
		expect(n.links).toEqual(["Link"]);
		expect(n.passages.map((p) => [p.heading, p.line])).toEqual([["Login fails", 7]]);
		// Untyped notes not indexed: its type is unknown, so it is reported and not synced, as before.
		expect(problems("---\na: [b\n---\nbody", "c.md", { indexUntypedNotes: false })[0]).toMatch(/^c\.md\|error\|The frontmatter YAML is broken/);
	});

	it("reports an unclosed frontmatter block", () => {
		expect(problems("---\nengrama_label: Concept\n\n# T\n")[0]).toContain("never closed");
	});

	it("reports binary content and oversize notes", () => {
		expect(problems("\u0089PNG\r\n\u001a\n\u0000\u0000\u0000", "binary.md")[0]).toContain("binary");
		const big = parse("x".repeat(2000), "big.md", { maxNoteBytes: 1000 });
		expect(big.kind).toBe("invalid");
		if (big.kind === "invalid") expect(big.problems[0].action).toContain("Split it");
	});

	it("reads a byte-order mark and Windows line endings like any note", () => {
		const n = note("\uFEFF---\r\nengrama_label: Concept\r\nname: CRLF and BOM\r\n---\r\n# CRLF and BOM\r\n\r\nWindows text.\r\n");
		expect(n.label).toBe("Concept");
		expect(n.key).toBe("CRLF and BOM");
		expect(n.props.description).toBe("Windows text.");
	});

	it("treats an empty file as an untyped note named after the file", () => {
		const n = note("", "empty.md");
		expect(n.label).toBe("Note");
		expect(n.key).toBe("empty");
	});
});
