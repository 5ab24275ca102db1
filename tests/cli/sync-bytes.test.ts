// Issue 25, item 2, with the real command line: a note Engrama rewrites comes back byte for byte
// but for what it meant to change; a note that is not UTF-8, or a .md that is no regular file, is
// reported and left alone, and never blocks the sync.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/run-cli";
import { makeTempDir } from "../helpers/temp-dir";

const temps: { cleanup(): void }[] = [];
afterEach(() => {
	for (const t of temps.splice(0)) t.cleanup();
});

function workspace(): { vault: string; db: string } {
	const temp = makeTempDir("engrama-cli-bytes-");
	temps.push(temp);
	const vault = join(temp.path, "vault");
	mkdirSync(vault);
	return { vault, db: join(temp.path, "memory.db") };
}

interface SyncJson {
	counts: Record<string, number>;
	ids_written: string[];
	problems: { path: string; severity: string; problem: string; action: string }[];
}

describe("engrama sync and the bytes of notes", () => {
	it("leaves a Latin-1 note byte for byte and reports it; the UTF-8 notes beside it are synced", () => {
		const { vault, db } = workspace();
		const latin1 = Buffer.from("---\nengrama_label: Concept\n---\n# Caf\xe9\n", "latin1");
		writeFileSync(join(vault, "L.md"), latin1);
		writeFileSync(join(vault, "Fine.md"), "---\nengrama_label: Concept\n---\n# Fine\n");
		const result = runCli(["--vault", vault, "--db", db, "sync", "--json"]);
		expect(result.status, result.stderr).toBe(0);
		const data = result.json<SyncJson>();
		expect(readFileSync(join(vault, "L.md")).equals(latin1)).toBe(true);
		expect(data.ids_written).toEqual(["Fine.md"]);
		const problem = data.problems.find((p) => p.path === "L.md");
		expect(problem?.problem).toMatch(/not valid UTF-8 \(byte 0xe9 at offset 36\)/);
		expect(problem?.action).toMatch(/Save the note as UTF-8/);
		// A second sync neither rewrites it nor stops reporting it.
		const again = runCli(["--vault", vault, "--db", db, "sync", "--json"]).json<SyncJson>();
		expect(again.problems.some((p) => p.path === "L.md")).toBe(true);
		expect(readFileSync(join(vault, "L.md")).equals(latin1)).toBe(true);
		const one = runCli(["--vault", vault, "--db", db, "sync-note", "L.md", "--json"]).json<SyncJson>();
		expect(one.problems.map((p) => p.path)).toEqual(["L.md"]);
		expect(readFileSync(join(vault, "L.md")).equals(latin1)).toBe(true);
	});

	it("writes engrama_id into a note with a BOM, CRLF line ends and accents, changing nothing else", () => {
		const { vault, db } = workspace();
		const original = Buffer.from("\ufeff---\r\nengrama_label: Concept\r\ntags: [café, naïve]\r\n---\r\n# Crème brûlée\r\n\r\nAn émoji 🍮 and a tab\there.\r\n", "utf8");
		writeFileSync(join(vault, "Dessert.md"), original);
		const result = runCli(["--vault", vault, "--db", db, "sync", "--json"]);
		expect(result.status, result.stderr).toBe(0);
		expect(result.json<SyncJson>().ids_written).toEqual(["Dessert.md"]);
		const after = readFileSync(join(vault, "Dessert.md"));
		const id = /engrama_id: ([0-9a-f-]{36})/.exec(after.toString("utf8"))?.[1];
		expect(id).toBeDefined();
		// The one change meant: the id line; every other byte as it was.
		const withoutId = after.toString("utf8").replace(`engrama_id: ${id}\r\n`, "");
		expect(Buffer.from(withoutId, "utf8").equals(original)).toBe(true);
	});

	it("reports a named pipe called .md and syncs the rest without blocking on it", () => {
		const { vault, db } = workspace();
		execFileSync("mkfifo", [join(vault, "Pipe.md")]);
		writeFileSync(join(vault, "Fine.md"), "---\nengrama_label: Concept\n---\n# Fine\n");
		const result = runCli(["--vault", vault, "--db", db, "sync", "--json"]);
		expect(result.status, result.stderr).toBe(0);
		const data = result.json<SyncJson>();
		expect(data.ids_written).toEqual(["Fine.md"]);
		expect(data.problems.find((p) => p.path === "Pipe.md")?.problem).toMatch(/named pipe \(FIFO\), not a regular file/);
		expect(statSync(join(vault, "Pipe.md")).isFIFO()).toBe(true);
		// Named on its own, it is refused at once rather than read.
		const one = runCli(["--vault", vault, "--db", db, "sync-note", "Pipe.md", "--json"]).json<SyncJson>();
		expect(one.problems.find((p) => p.path === "Pipe.md")?.problem).toMatch(/named pipe \(FIFO\)/);
	});
});

describe("engrama sync names what a note really is", () => {
	it("calls a UTF-16 note UTF-16 (with or without a byte-order mark) and says how to convert it, leaving it byte for byte", () => {
		const { vault, db } = workspace();
		const text = "---\nengrama_label: Concept\n---\n# Wide\n";
		const withBom = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]);
		const bigEndian = Buffer.from(text, "utf16le").swap16();
		writeFileSync(join(vault, "Le.md"), withBom);
		writeFileSync(join(vault, "Be.md"), bigEndian);
		const data = runCli(["--vault", vault, "--db", db, "sync", "--json"]).json<SyncJson>();
		for (const path of ["Le.md", "Be.md"]) {
			const problem = data.problems.find((p) => p.path === path);
			expect(problem?.problem, path).toMatch(/is UTF-16 text/);
			expect(problem?.problem, path).not.toMatch(/binary/);
			expect(problem?.action, path).toMatch(/Save the note as UTF-8.*iconv -f UTF-16 -t UTF-8/);
			expect(problem?.action, path).not.toMatch(/real extension/);
		}
		expect(readFileSync(join(vault, "Le.md")).equals(withBom)).toBe(true);
		expect(readFileSync(join(vault, "Be.md")).equals(bigEndian)).toBe(true);
	});

	it("calls a symbolic link loop given to sync-note a loop, not a way out of the vault", () => {
		const { vault, db } = workspace();
		symlinkSync(join(vault, "B.md"), join(vault, "A.md"));
		symlinkSync(join(vault, "A.md"), join(vault, "B.md"));
		const result = runCli(["--vault", vault, "--db", db, "sync-note", "A.md", "--json"]);
		expect(result.status, result.stdout).toBe(2);
		expect(result.stderr).toMatch(/A\.md is a symbolic link loop/);
		expect(result.stderr).not.toMatch(/outside the vault/);
	});
	it("says in the remember and relate answers that a Latin-1 note did not take the write, and a sync of the fixed note writes it in", () => {
		const { vault, db } = workspace();
		const cli = (...args: string[]) => runCli(["--vault", vault, "--db", db, ...args]);
		writeFileSync(join(vault, "Idea.md"), "---\nengrama_label: Concept\n---\n# Idea\n\nCafé notes.\n");
		writeFileSync(join(vault, "Fine.md"), "---\nengrama_label: Concept\n---\n# Fine\n");
		expect(cli("sync").status).toBe(0);
		const latin1 = Buffer.from(readFileSync(join(vault, "Idea.md"), "utf8"), "latin1");
		writeFileSync(join(vault, "Idea.md"), latin1);

		const remembered = cli("remember", "--label", "Concept", "--name", "Idea", "--props", '{"description":"An idea worth keeping."}');
		expect(remembered.status, remembered.stderr).toBe(0);
		expect(remembered.stderr).toMatch(/warning: Not written into the note Idea\.md: Idea\.md is not valid UTF-8.*iconv -f latin1 -t utf-8/s);
		const related = cli("relate", "Concept", "Idea", "SIMILAR_TO", "Concept", "Fine", "--json");
		expect(related.status, related.stderr).toBe(0);
		expect(related.json<{ warnings: string[] }>().warnings[0]).toMatch(/Idea\.md is not valid UTF-8/);
		expect(readFileSync(join(vault, "Idea.md")).equals(latin1)).toBe(true);

		// Saved as UTF-8 again: the next sync writes the owed description and relation into it.
		writeFileSync(join(vault, "Idea.md"), latin1.toString("latin1"), "utf8");
		expect(cli("sync").status).toBe(0);
		const text = readFileSync(join(vault, "Idea.md"), "utf8");
		expect(text).toMatch(/^description: An idea worth keeping\.$/m);
		expect(text).toMatch(/SIMILAR_TO:[\s\S]*Fine/);
		expect(text).toContain("Café notes.");
	});
});
