import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ValidationError } from "../../src/engine/errors";
import { contentHash, type VaultEvent } from "../../src/engine/sync";
import { FolderVaultSource, obsidianTemplatesFolder } from "../../src/nodejs/folder-vault-source";
import { makeTempDir } from "../helpers/temp-dir";

const temps: { cleanup(): void }[] = [];
function vault(files: Record<string, string> = {}): { dir: string; source: FolderVaultSource } {
	const temp = makeTempDir("engrama-folder-");
	temps.push(temp);
	for (const [path, text] of Object.entries(files)) {
		mkdirSync(join(temp.path, path, ".."), { recursive: true });
		writeFileSync(join(temp.path, path), text);
	}
	return { dir: temp.path, source: new FolderVaultSource(temp.path) };
}
afterEach(() => {
	for (const t of temps.splice(0)) t.cleanup();
});

// Generous: file events arrive late on a busy machine (only a failure waits this long).
async function until(check: () => boolean, timeoutMs = 20_000): Promise<void> {
	const started = Date.now();
	while (!check()) {
		if (Date.now() - started > timeoutMs) throw new Error("timed out");
		await new Promise((r) => setTimeout(r, 25));
	}
}

describe("FolderVaultSource", () => {
	it("lists markdown notes with forward-slash paths, mtime and size, skipping dot-folders", async () => {
		const { source } = vault({ "a.md": "abc", "Sub/b.md": "x", "Sub/pic.png": "p", ".obsidian/c.md": "c", ".git/d.md": "d", "node_modules/e.md": "e" });
		const files = [...(await source.list())].sort((x, y) => x.path.localeCompare(y.path));
		expect(files.map((f) => [f.path, f.size])).toEqual([
			["a.md", 3],
			["Sub/b.md", 1],
		]);
		expect(files[0].mtime).toBeGreaterThan(Date.parse("2020-01-01"));
	});

	it("reads, stats, creates (with folders, never over an existing file) and writes whole files", async () => {
		const { dir, source } = vault({ "a.md": "old" });
		expect(await source.read("a.md")).toBe("old");
		expect(await source.stat("missing.md")).toBeNull();
		await source.create("New/Deep/n.md", "new");
		expect(readFileSync(join(dir, "New/Deep/n.md"), "utf8")).toBe("new");
		await expect(source.create("a.md", "clobber")).rejects.toThrow();
		await source.write("a.md", "replaced");
		expect(readFileSync(join(dir, "a.md"), "utf8")).toBe("replaced");
		// No temporary files left behind.
		expect(readdirSync(dir).sort()).toEqual(["New", "a.md"]);
	});

	it("refuses paths outside the vault", async () => {
		const { source } = vault();
		expect(() => source.absolute("../outside.md")).toThrow(ValidationError);
		await expect(source.read("../../etc/passwd")).rejects.toThrow(ValidationError);
	});

	// Every write into the vault (write-insight, sync's engrama_id, graph → vault notes) goes through here.
	it("refuses writes that a symbolic link would carry out of the vault, and leaves the outside alone", async () => {
		const { dir, source } = vault({ "Inside/real.md": "inside\n" });
		const outside = makeTempDir("engrama-outside-");
		temps.push(outside);
		writeFileSync(join(outside.path, "target.md"), "outside\n");
		symlinkSync(join(outside.path, "target.md"), join(dir, "Link.md"));
		symlinkSync(outside.path, join(dir, "OutDir"));
		symlinkSync(join(outside.path, "missing.md"), join(dir, "Dangling.md"));
		symlinkSync(join(dir, "Inside"), join(dir, "Alias"));

		await expect(source.write("Link.md", "agent text")).rejects.toThrow(/leads outside the vault through a symbolic link/);
		await expect(source.processFrontMatter("Link.md", (fm) => void (fm.engrama_id = "x"))).rejects.toThrow(ValidationError);
		await expect(source.create("OutDir/New.md", "agent text")).rejects.toThrow(/leads outside the vault/);
		await expect(source.create("OutDir/Deep/New.md", "agent text")).rejects.toThrow(/leads outside the vault/);
		await expect(source.write("OutDir/target.md", "agent text")).rejects.toThrow(/leads outside the vault/);
		await expect(source.write("Dangling.md", "agent text")).rejects.toThrow(/leads outside the vault/);
		expect(readFileSync(join(outside.path, "target.md"), "utf8")).toBe("outside\n");
		expect(readdirSync(outside.path)).toEqual(["target.md"]);
		expect(lstatSync(join(dir, "Link.md")).isSymbolicLink()).toBe(true);
		expect(existsSync(join(outside.path, "missing.md"))).toBe(false);

		// A symlink that stays inside the vault is an ordinary place to write.
		await source.create("Alias/new.md", "fine");
		expect(readFileSync(join(dir, "Inside", "new.md"), "utf8")).toBe("fine");
	});

	it("edits frontmatter keeping the body byte-for-byte", async () => {
		const body = "# T\r\n\r\nBody ---\r\n";
		const { dir, source } = vault({ "n.md": `---\r\ntags: [a]  # mine\r\n---\r\n${body}` });
		await source.processFrontMatter("n.md", (fm) => {
			fm.engrama_id = "id-1";
		});
		expect(readFileSync(join(dir, "n.md"), "utf8")).toBe(`---\r\ntags: [a]  # mine\r\nengrama_id: id-1\r\n---\r\n${body}`);
	});

	it("writes frontmatter only while the file is still the version the caller parsed (ifHash)", async () => {
		const { dir, source } = vault({ "n.md": "body" });
		expect(await source.processFrontMatter("n.md", (fm) => void (fm.a = 1), { ifHash: contentHash("other text") })).toBeNull();
		expect(readFileSync(join(dir, "n.md"), "utf8")).toBe("body");
		const written = await source.processFrontMatter("n.md", (fm) => void (fm.a = 1), { ifHash: contentHash("body") });
		expect(written).toBe("---\na: 1\n---\nbody");
		expect(readFileSync(join(dir, "n.md"), "utf8")).toBe(written);
	});

	it("maps NFC vault paths to NFD names on disk", async () => {
		const { dir, source } = vault({ "Re\u0301sume\u0301.md": "text" });
		const [file] = await source.list();
		expect(file.path).toBe("R\u00e9sum\u00e9.md");
		await source.processFrontMatter(file.path, (fm) => {
			fm.engrama_id = "id-1";
		});
		expect(readdirSync(dir)).toEqual(["Re\u0301sume\u0301.md"]);
		expect(readFileSync(join(dir, "Re\u0301sume\u0301.md"), "utf8")).toBe("---\nengrama_id: id-1\n---\ntext");
	});

	it("reads the templates folder from .obsidian/templates.json", async () => {
		const { dir } = vault({ ".obsidian/templates.json": '{"folder": "Meta/Templates"}' });
		expect(await obsidianTemplatesFolder(dir)).toBe("Meta/Templates");
		expect(await obsidianTemplatesFolder(join(dir, "nowhere"))).toBeUndefined();
	});

	for (const mode of ["fs", "poll"] as const) {
		it(`reports create, modify, delete and folder renames (${mode})`, async () => {
			const { dir } = vault({ "keep.md": "k", "Folder/inside.md": "i" });
			const source = new FolderVaultSource(dir, { watchMode: mode, pollIntervalMs: 50 });
			const events: VaultEvent[] = [];
			const stop = source.watch((e) => events.push(e));
			try {
				const has = (type: string, path: string) => events.some((e) => e.type === type && e.path === path);
				writeFileSync(join(dir, "new.md"), "n");
				await until(() => has("create", "new.md"));
				writeFileSync(join(dir, "keep.md"), "changed, and longer");
				await until(() => has("modify", "keep.md"));
				rmSync(join(dir, "new.md"));
				await until(() => has("delete", "new.md"));
				renameSync(join(dir, "Folder"), join(dir, "Moved"));
				await until(() => has("delete", "Folder/inside.md") && has("create", "Moved/inside.md"));
				writeFileSync(join(dir, "not-a-note.txt"), "t");
				await new Promise((r) => setTimeout(r, 150));
				expect(events.some((e) => e.path.endsWith(".txt"))).toBe(false);
			} finally {
				stop();
			}
			const count = events.length;
			writeFileSync(join(dir, "after.md"), "a");
			await new Promise((r) => setTimeout(r, 200));
			expect(events.length).toBe(count);
		});
	}
});

describe("FolderVaultSource.remove (an erase)", () => {
	it("deletes the note only while it still holds the text whose hash it was given, and never through a symbolic link out of the vault", async () => {
		const { contentHash } = await import("../../src/engine/host");
		const { dir, source } = vault({ "Engrama/Project/A.md": "# A\n" });
		expect(await source.remove("Engrama/Project/A.md", contentHash("# A, edited\n"))).toBe(false);
		expect(existsSync(join(dir, "Engrama/Project/A.md"))).toBe(true);
		expect(await source.remove("Engrama/Project/A.md", contentHash("# A\n"))).toBe(true);
		expect(existsSync(join(dir, "Engrama/Project/A.md"))).toBe(false);
		const outside = makeTempDir("engrama-outside-");
		temps.push(outside);
		writeFileSync(join(outside.path, "B.md"), "# B\n");
		symlinkSync(outside.path, join(dir, "Out"));
		await expect(source.remove("Out/B.md", contentHash("# B\n"))).rejects.toThrow(/leads outside the vault/);
		expect(existsSync(join(outside.path, "B.md"))).toBe(true);
	});
});
