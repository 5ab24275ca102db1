// The fake `obsidian` module behaves like Obsidian where plugin code can observe it.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { createFakeApp, fakeActiveTimers, fakeNotices, fakeReset, memoryFileSystem, Notice, TFile, type App } from "../fakes/obsidian";
import { makeTempDir } from "../helpers/temp-dir";

let dir: ReturnType<typeof makeTempDir>;
let app: App;

beforeEach(() => {
	dir = makeTempDir("engrama-fake-");
	mkdirSync(join(dir.path, "Notes"));
	mkdirSync(join(dir.path, ".obsidian"));
	writeFileSync(join(dir.path, "Notes/A.md"), "---\ntitle: A\ntags: [x, y]\n---\n# A\n\nSee [[B|the B]] and ![[pic.png]] #inline\n\n```\n[[not a link]] #nottag\n```\n");
	writeFileSync(join(dir.path, "B.md"), "\uFEFFbody only\r\nsecond line\r\n");
	writeFileSync(join(dir.path, ".obsidian/app.json"), "{}");
	app = createFakeApp(dir.path);
});

afterEach(() => {
	fakeReset();
	dir.cleanup();
});

describe("vault", () => {
	test("indexes the folder like Obsidian: hidden folders are not files of the vault", () => {
		expect(app.vault.getFiles().map((f) => f.path).sort()).toEqual(["B.md", "Notes/A.md"]);
		const a = app.vault.getFileByPath("Notes/A.md")!;
		expect([a.name, a.basename, a.extension, a.parent?.path]).toEqual(["A.md", "A", "md", "Notes"]);
		expect(app.vault.getRoot().children.map((c) => c.name).sort()).toEqual(["B.md", "Notes"]);
	});

	test("create refuses existing files and missing folders; events carry the file and the old path", async () => {
		const seen: string[] = [];
		app.vault.on("create", (f) => seen.push(`create ${(f as TFile).path}`));
		app.vault.on("modify", (f) => seen.push(`modify ${(f as TFile).path}`));
		app.vault.on("rename", (f, old) => seen.push(`rename ${(f as TFile).path} ${String(old)}`));
		app.vault.on("delete", (f) => seen.push(`delete ${(f as TFile).path}`));
		await expect(app.vault.create("B.md", "x")).rejects.toThrow("File already exists.");
		await expect(app.vault.create("Missing/C.md", "x")).rejects.toThrow("Folder does not exist");
		const c = await app.vault.create("Notes/C.md", "# C\n");
		await app.vault.modify(c, "# C\nmore\n");
		await app.vault.rename(c, "D.md");
		await app.vault.delete(c);
		expect(seen).toEqual(["create Notes/C.md", "modify Notes/C.md", "rename D.md Notes/C.md", "delete D.md"]);
		expect(app.vault.getAbstractFileByPath("D.md")).toBeNull();
	});
});

describe("metadata cache", () => {
	test("holds each note's frontmatter, in step with writes, renames and deletes", async () => {
		const a = app.vault.getFileByPath("Notes/A.md")!;
		const b = app.vault.getFileByPath("B.md")!;
		expect(app.metadataCache.getFileCache(a)?.frontmatter).toEqual({ title: "A", tags: ["x", "y"] });
		expect(app.metadataCache.getFileCache(b)?.frontmatter).toBeUndefined();
		await app.fileManager.processFrontMatter(b, (fm) => {
			fm.engrama_id = "id-1";
		});
		expect(app.metadataCache.getFileCache(b)?.frontmatter).toEqual({ engrama_id: "id-1" });
		await app.vault.rename(b, "Notes/B.md");
		expect(app.metadataCache.getFileCache(app.vault.getFileByPath("Notes/B.md")!)?.frontmatter).toEqual({ engrama_id: "id-1" });
		await app.vault.modify(a, "---\nkey: [unclosed\n---\nbody\n");
		expect(app.metadataCache.getFileCache(a)?.frontmatter).toBeUndefined();
		await app.vault.delete(a);
		expect(app.metadataCache.getFileCache(a)).toBeNull();
	});
});

describe("processFrontMatter", () => {
	test("adds a block to a note without one, keeping the BOM and the CRLF body", async () => {
		await app.fileManager.processFrontMatter(app.vault.getFileByPath("B.md")!, (fm) => {
			fm.engrama_id = "id-1";
		});
		expect(readFileSync(join(dir.path, "B.md"), "utf8")).toBe("\uFEFF---\r\nengrama_id: id-1\r\n---\r\nbody only\r\nsecond line\r\n");
	});

	test("keeps key order, rewrites values, and refuses invalid YAML like Obsidian", async () => {
		await app.fileManager.processFrontMatter(app.vault.getFileByPath("Notes/A.md")!, (fm) => {
			fm.title = "A2";
			fm.relations = { USES: ["[[B]]"] };
		});
		const text = readFileSync(join(dir.path, "Notes/A.md"), "utf8");
		expect(text.startsWith("---\ntitle: A2\ntags:\n  - x\n  - y\nrelations:\n  USES:\n    - \"[[B]]\"\n---\n# A\n")).toBe(true);
		writeFileSync(join(dir.path, "Notes/A.md"), "---\nkey: [unclosed\n---\nbody\n");
		await expect(app.fileManager.processFrontMatter(app.vault.getFileByPath("Notes/A.md")!, () => undefined)).rejects.toThrow("Invalid YAML");
	});
});

describe("UI pieces", () => {
	test("notices are recorded and their own timers are not the plugin's", () => {
		const notice = new Notice("Hello", 5000);
		expect(fakeNotices.map((n) => n.text)).toEqual(["Hello"]);
		expect(fakeActiveTimers()).toEqual({ timeouts: 0, intervals: 0 });
		notice.hide();
		expect(notice.hidden).toBe(true);
	});

	test("createEl and friends build real DOM nodes", () => {
		const root = createDiv({ cls: "root" });
		root.createSpan({ text: "first" });
		const child = root.createEl("button", { cls: ["a", "b"], text: "Go", attr: { "data-x": 1 } });
		expect(root.outerHTML).toBe('<div class="root"><span>first</span><button class="a b" data-x="1">Go</button></div>');
		child.toggleClass("a", false);
		child.setText("Stop");
		expect(child.outerHTML).toBe('<button class="b" data-x="1">Stop</button>');
		root.empty();
		expect(root.childElementCount).toBe(0);
	});

	test("an in-memory vault works the same (browser tests)", async () => {
		const memApp = createFakeApp(memoryFileSystem({ "X/Y.md": "# Y\n" }), { mobile: true });
		expect(memApp.vault.getFileByPath("X/Y.md")?.basename).toBe("Y");
		await memApp.vault.adapter.writeBinary("db.bin", new Uint8Array([1, 2, 3]).buffer);
		expect(new Uint8Array(await memApp.vault.adapter.readBinary("db.bin"))).toEqual(new Uint8Array([1, 2, 3]));
		expect("getBasePath" in memApp.vault.adapter).toBe(false);
	});
});
