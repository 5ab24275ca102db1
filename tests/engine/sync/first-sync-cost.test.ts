import { afterEach, describe, expect, it, vi } from "vitest";
import { splitFrontmatter } from "../../../src/engine/sync";
import { normaliseVaultPath } from "../../../src/engine/sync/vault-source";
import { openHarness, type SyncHarness } from "./sync-fixture";

// Counts the YAML documents parsed, through the real library.
const yamlCalls = vi.hoisted(() => ({ parseDocument: 0 }));
vi.mock("yaml", async (importOriginal) => {
	const real = await importOriginal<typeof import("yaml")>();
	return {
		...real,
		parseDocument: (...args: Parameters<typeof real.parseDocument>) => {
			yamlCalls.parseDocument++;
			return real.parseDocument(...args);
		},
	};
});

const ID_LINE = /engrama_id: [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(\r?\n)/;

// Notes whose frontmatter has what a careless rewrite would lose: comments, odd quoting and
// indentation, CRLF and mixed line endings, a byte-order mark, no frontmatter at all.
const NOTES: Record<string, string> = {
	"Projects/Lf.md": "---\nengrama_label: Project\nname: Lf   # trailing comment\nstatus: 'active'\n---\n# Lf\nBody [[Crlf]].\n",
	"Projects/Crlf.md": "---\r\nengrama_label: Project\r\nname: Crlf\r\ntags:\r\n    - a   # indented\r\n---\r\nBody\r\nmore\r\n",
	"Projects/Mixed.md": "---\r\nengrama_label: Project\nname: Mixed\r\n# a comment line\n---\nBody\r\n",
	"Projects/Bom.md": "\uFEFF---\nengrama_label: Project\nname: Bom\n---\nBody\n",
	"Notes/Plain.md": "Just a body, no frontmatter.\r\nSecond line.\r\n",
};

describe("a first sync's reads and id writes", () => {
	let h: SyncHarness | undefined;
	afterEach(async () => {
		await h?.close();
		h = undefined;
	});

	it("parses each note's YAML once and leaves every byte but the engrama_id line as it was", async () => {
		h = await openHarness();
		for (const [path, text] of Object.entries(NOTES)) h.write(path, text);
		yamlCalls.parseDocument = 0;
		const report = await h.sync.fullSync();
		expect(report.problems.filter((p) => p.severity === "error")).toEqual([]);
		expect(report.idsWritten.length).toBe(Object.keys(NOTES).length);
		// Four notes have frontmatter: one parse each, none for the id write.
		expect(yamlCalls.parseDocument).toBe(4);
		for (const [path, before] of Object.entries(NOTES)) {
			const after = h.read(path);
			const line = ID_LINE.exec(after);
			expect(line, path).not.toBeNull();
			// Without the id line (and, for a note that had no frontmatter, the fences around it): the text as it was.
			const without = after.slice(0, line!.index) + after.slice(line!.index + line![0].length);
			const expected = before.startsWith("---") || before.startsWith("\uFEFF---") ? before : `---${line![1]}---${line![1]}${before}`;
			expect(without, path).toBe(expected);
		}
		// The id line takes the ending of the line before it (the opening fence for an empty block).
		expect(ID_LINE.exec(h.read("Projects/Crlf.md"))![1]).toBe("\r\n");
		expect(ID_LINE.exec(h.read("Projects/Mixed.md"))![1]).toBe("\n");
		expect(ID_LINE.exec(h.read("Notes/Plain.md"))![1]).toBe("\r\n");
		// An unchanged re-sync reads the notes' state from the graph and parses nothing.
		yamlCalls.parseDocument = 0;
		const again = await h.sync.fullSync();
		expect(again.idsWritten).toEqual([]);
		expect(yamlCalls.parseDocument).toBe(0);
	});
});

describe("the text helpers every note goes through", () => {
	it("normaliseVaultPath gives what the general rule gives, for random paths", () => {
		const general = (path: string) =>
			path
				.normalize("NFC")
				.replace(/\\/g, "/")
				.split("/")
				.filter((part) => part !== "" && part !== ".")
				.join("/");
		const pieces = ["a", "B", ".", "..", "/", "\\", " ", "-", "é", "e\u0301", "~", "\t", ".md", "#", "[", "]"];
		let seed = 7;
		const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
		for (let i = 0; i < 20000; i++) {
			let path = "";
			for (let n = Math.floor(next() * 9); n > 0; n--) path += pieces[Math.floor(next() * pieces.length)];
			expect(normaliseVaultPath(path), JSON.stringify(path)).toBe(general(path));
		}
	});

	it("splitFrontmatter's dominant ending counts CRLF against bare LF, a tie LF", () => {
		const eol = (text: string) => splitFrontmatter(text).eol;
		expect(eol("")).toBe("\n");
		expect(eol("a\r\nb\r\nc\n")).toBe("\r\n");
		expect(eol("a\r\nb\nc")).toBe("\n");
		expect(eol("\r\r\n\n\r\n")).toBe("\r\n");
		expect(eol("\n\r\n")).toBe("\n");
		expect(eol("x\r")).toBe("\n");
	});
});
