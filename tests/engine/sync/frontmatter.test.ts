import { describe, expect, it } from "vitest";
import { ValidationError } from "../../../src/engine/errors";
import { editFrontmatter, parseFrontmatterYaml, splitFrontmatter } from "../../../src/engine/sync";

/** 101 alias expansions: one more than any frontmatter may use (a billion-laughs guard). */
const ALIAS_BOMB = `---\nd: &d x\nitems: [${Array(101).fill("*d").join(", ")}]\n---\nBody\n`;

const BODY = "# Title\n\nBody with [[links]], trailing spaces   \n\n---\nnot: frontmatter\n---\n";

describe("editFrontmatter", () => {
	it("appends a new key and keeps every other byte, comments and odd formatting included", () => {
		const yaml = "title: 'x: y'   # a comment\naliases:\n- a\n- b\nnested:\n    deep: 1\nempty:\n";
		const text = `---\n${yaml}---\n${BODY}`;
		const edited = editFrontmatter(text, (fm) => {
			fm.engrama_id = "7d0c2a4e-3b1f-4c55-9a8e-2f6d1b0e9c41";
		});
		expect(edited).toBe(`---\n${yaml}engrama_id: 7d0c2a4e-3b1f-4c55-9a8e-2f6d1b0e9c41\n---\n${BODY}`);
	});

	it("changes a nested relation list in place, keeping key order, flow style and neighbours", () => {
		const text = [
			"---",
			"engrama_label: Project",
			"relations:",
			'  FOR: ["[[Acme]]"]',
			"  USES: [TypeScript, \"[[PostgreSQL]]\"]",
			"tags: [billing]   # kept",
			"---",
			BODY,
		].join("\n");
		const edited = editFrontmatter(text, (fm) => {
			const relations = fm.relations as Record<string, string[]>;
			relations.USES.push("[[Neo4j]]");
		});
		expect(edited).toBe(
			[
				"---",
				"engrama_label: Project",
				"relations:",
				'  FOR: ["[[Acme]]"]',
				'  USES: [TypeScript, "[[PostgreSQL]]", "[[Neo4j]]"]',
				"tags: [billing]   # kept",
				"---",
				BODY,
			].join("\n"),
		);
	});

	it("removes a deleted key and nothing else", () => {
		const edited = editFrontmatter("---\na: 1\nb: 2\nc: 3\n---\nbody", (fm) => {
			delete fm.b;
		});
		expect(edited).toBe("---\na: 1\nc: 3\n---\nbody");
	});

	it("returns the very same text when the mutator changes nothing", () => {
		const text = "---\na:   1\n---\nbody";
		expect(editFrontmatter(text, (fm) => {
			fm.a = 1;
		})).toBe(text);
	});

	it("adds a frontmatter block to a note without one", () => {
		expect(editFrontmatter(BODY, (fm) => {
			fm.engrama_id = "id-1";
		})).toBe(`---\nengrama_id: id-1\n---\n${BODY}`);
	});

	it("keeps Windows line endings and a byte-order mark", () => {
		const text = "\uFEFF---\r\nname: X\r\n---\r\nBody\r\n";
		const edited = editFrontmatter(text, (fm) => {
			fm.engrama_id = "id-1";
		});
		expect(edited).toBe("\uFEFF---\r\nname: X\r\nengrama_id: id-1\r\n---\r\nBody\r\n");
	});

	it("keeps each untouched line's own ending in frontmatter with mixed line endings", () => {
		// Lines ending \n and \r\n side by side: an added key takes its neighbour's ending.
		const text = "---\r\ntitle: Mixed\nalias: a\r\ntags: [x]\n---\r\nBody\r\nmore\n";
		const edited = editFrontmatter(text, (fm) => {
			fm.engrama_id = "7d0c2a4e-3b1f-4c55-9a8e-2f6d1b0e9c41";
			fm.engrama_source = "mcp";
		});
		expect(edited).toBe(
			"---\r\ntitle: Mixed\nalias: a\r\ntags: [x]\nengrama_id: 7d0c2a4e-3b1f-4c55-9a8e-2f6d1b0e9c41\nengrama_source: mcp\n---\r\nBody\r\nmore\n",
		);
	});

	it("re-serialises a changed key with the ending its own line had, the other lines untouched", () => {
		const text = "---\ntitle: Old\r\nrelated: [\"[[A]]\"]\nnote: kept\r\n---\nBody\n";
		const edited = editFrontmatter(text, (fm) => {
			fm.title = "New";
			(fm.related as string[]).push("[[B]]");
		});
		expect(edited).toBe("---\ntitle: New\r\nrelated: [\"[[A]]\", \"[[B]]\"]\nnote: kept\r\n---\nBody\n");
	});

	it("gives a multi-line value added to a mixed block the ending of the line before it", () => {
		const text = "---\na: 1\r\n---\nBody\n";
		const edited = editFrontmatter(text, (fm) => {
			fm.nested = { deep: { to: "[[X]]" } };
		});
		expect(edited).toBe("---\na: 1\r\nnested:\r\n  deep:\r\n    to: \"[[X]]\"\r\n---\nBody\n");
	});

	it("gives a new block the note's dominant line ending", () => {
		expect(editFrontmatter("a\r\nb\r\nc\n", (fm) => (fm.engrama_id = "id-1"))).toBe("---\r\nengrama_id: id-1\r\n---\r\na\r\nb\r\nc\n");
		expect(editFrontmatter("a\nb\nc\r\n", (fm) => (fm.engrama_id = "id-1"))).toBe("---\nengrama_id: id-1\n---\na\nb\nc\r\n");
	});

	it("refuses to edit broken YAML, a non-map, or an unclosed block", () => {
		expect(() => editFrontmatter("---\ntags: [a\n---\n", () => undefined)).toThrow(ValidationError);
		expect(() => editFrontmatter("---\n- a\n- b\n---\n", () => undefined)).toThrow(ValidationError);
		expect(() => editFrontmatter("---\na: 1\n", () => undefined)).toThrow(ValidationError);
	});

	it("refuses frontmatter with too many alias expansions as bad input (a ValidationError, not a crash)", () => {
		expect(() => editFrontmatter(ALIAS_BOMB, (fm) => (fm.engrama_id = "x"))).toThrow(ValidationError);
		expect(() => editFrontmatter(ALIAS_BOMB, (fm) => (fm.engrama_id = "x"))).toThrow(/aliases \(\*name\) too often/);
	});

	it("writes an id as a plain scalar that reads back as the same string, digits-only UUIDs included", () => {
		for (const id of ["7d0c2a4e-3b1f-4c55-9a8e-2f6d1b0e9c41", "12345678-1234-1234-1234-123456789012", "00000000-0000-0000-0000-000000000000"]) {
			const edited = editFrontmatter(`---\ntitle: x\n---\nbody`, (fm) => {
				fm.engrama_id = id;
			});
			expect(edited).toBe(`---\ntitle: x\nengrama_id: ${id}\n---\nbody`);
			const split = splitFrontmatter(edited);
			const parsed = split.kind === "block" ? parseFrontmatterYaml(split.yaml, 1) : null;
			expect(parsed?.ok && parsed.data.engrama_id).toBe(id);
		}
	});

	it("gives the same text when the caller passes the frontmatter it already parsed (sync's id write)", () => {
		const texts = [
			`---\ntitle: 'x: y'   # a comment\naliases:\n- a\n- b\nnested:\n    deep: 1\nempty:\n---\n${BODY}`,
			`\uFEFF---\r\nname: Windows\r\ntags: [a, b]\r\n---\r\nbody\r\n`,
			`---\nlast: no newline at end\n---\n${BODY}`,
			`---\n---\n${BODY}`,
			BODY,
		];
		const addId = (fm: Record<string, unknown>) => {
			fm.engrama_id = "7d0c2a4e-3b1f-4c55-9a8e-2f6d1b0e9c41";
		};
		const renameTitle = (fm: Record<string, unknown>) => {
			fm.title = "Renamed";
			fm.engrama_id = "7d0c2a4e-3b1f-4c55-9a8e-2f6d1b0e9c41";
		};
		for (const text of texts) {
			const split = splitFrontmatter(text.replace(/^\uFEFF/, ""));
			const parsed = split.kind === "block" ? parseFrontmatterYaml(split.yaml, 1) : { ok: true as const, data: {} };
			if (!parsed.ok) throw new Error(parsed.error.message);
			const known = parsed.data;
			expect(editFrontmatter(text, addId, known), JSON.stringify(text)).toBe(editFrontmatter(text, addId));
			// An edit of an existing key falls back to the full parse and still matches.
			expect(editFrontmatter(text, renameTitle, known), JSON.stringify(text)).toBe(editFrontmatter(text, renameTitle));
			expect(known.engrama_id).toBeUndefined();
		}
	});
});

/** The frontmatter as data, or the parse error's message. */
function dataOf(text: string): Record<string, unknown> | string {
	const split = splitFrontmatter(text);
	if (split.kind !== "block") return "no block";
	const parsed = parseFrontmatterYaml(split.yaml, 1);
	return parsed.ok ? parsed.data : parsed.error.message;
}

// Frontmatter written as one JSON object (a flow map), the way publishing plugins such as Digital
// Garden write it: a key appended as a new line after it was YAML no reader accepts.
describe("editFrontmatter on a flow map ({...}) frontmatter", () => {
	const ID = "7d0c2a4e-3b1f-4c55-9a8e-2f6d1b0e9c41";
	const JSON_FM = '{"dg-publish":true,"tags":["тема/заметки","状态/完成"],"permalink":"/notes/x/"}';
	const text = `---\n${JSON_FM}\n---\n\nТекст заметки.\n`;

	it("adds engrama_id inside the braces, keeping every other byte and JSON syntax", () => {
		const known = dataOf(text) as Record<string, unknown>;
		for (const edited of [editFrontmatter(text, (fm) => (fm.engrama_id = ID)), editFrontmatter(text, (fm) => (fm.engrama_id = ID), known)]) {
			expect(edited).toBe(`---\n${JSON_FM.slice(0, -1)},"engrama_id":"${ID}"}\n---\n\nТекст заметки.\n`);
			expect(dataOf(edited)).toEqual({ ...known, engrama_id: ID });
			expect(JSON.parse(edited.split("\n")[1]) as unknown).toEqual({ ...known, engrama_id: ID });
		}
	});

	it("adds a key to a flow map spread over lines and to an empty one", () => {
		const multi = '---\n{\n  title: Заметка,\n  tags: [a, b]\n}\n---\nbody\n';
		const edited = editFrontmatter(multi, (fm) => (fm.engrama_id = ID));
		expect(dataOf(edited)).toEqual({ title: "Заметка", tags: ["a", "b"], engrama_id: ID });
		expect(edited.startsWith("---\n{\n  title: Заметка,\n  tags: [a, b]")).toBe(true);
		expect(dataOf(editFrontmatter("---\n{}\n---\nbody\n", (fm) => (fm.engrama_id = ID)))).toEqual({ engrama_id: ID });
	});

	it("changes and removes keys of a flow map and the result still reads back", () => {
		const edited = editFrontmatter(text, (fm) => {
			fm.relations = { USES: ["[[Обсидиан]]"] };
			fm.tags = ["новый"];
			delete fm.permalink;
		});
		expect(dataOf(edited)).toEqual({ "dg-publish": true, tags: ["новый"], relations: { USES: ["[[Обсидиан]]"] } });
		expect(edited.endsWith("\n---\n\nТекст заметки.\n")).toBe(true);
		const last = editFrontmatter(text, (fm) => void delete fm.permalink);
		expect(dataOf(last)).toEqual({ "dg-publish": true, tags: ["тема/заметки", "状态/完成"] });
	});
});

describe("parseFrontmatterYaml", () => {
	it("returns an alias bomb as an error with a line instead of throwing", () => {
		const split = splitFrontmatter(ALIAS_BOMB);
		if (split.kind !== "block") throw new Error("no block");
		const parsed = parseFrontmatterYaml(split.yaml, 1);
		expect(parsed).toEqual({ ok: false, error: { line: 2, message: expect.stringMatching(/aliases \(\*name\) too often/) as unknown } });
		// Fewer aliases are still fine.
		const hundred = parseFrontmatterYaml(`d: &d x\nitems: [${Array(50).fill("*d").join(", ")}]\n`, 1);
		expect(hundred.ok).toBe(true);
	});
});

describe("splitFrontmatter", () => {
	it("finds the block only at the very start and the next --- line", () => {
		const split = splitFrontmatter("---\na: 1\n---\nbody\n---\n");
		expect(split.kind).toBe("block");
		if (split.kind === "block") expect(split.yaml).toBe("a: 1\n");
		expect(splitFrontmatter("text\n---\na: 1\n---\n").kind).toBe("none");
		expect(splitFrontmatter("---\na: 1\n").kind).toBe("unclosed");
	});
});
