// The sync engine's VaultSource over the Obsidian API (through the fake over a real folder).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { createFakeApp, type App } from "../fakes/obsidian";
import { makeTempDir } from "../helpers/temp-dir";
import type { VaultEvent } from "../../src/engine/sync/vault-source";
import { ObsidianVaultSource } from "../../src/plugin/obsidian-vault-source";
import { CancelledError, WorkGate } from "../../src/plugin/work-gate";

let dir: ReturnType<typeof makeTempDir>;
let app: App;

function write(path: string, text: string): void {
	mkdirSync(join(dir.path, path, ".."), { recursive: true });
	writeFileSync(join(dir.path, path), text);
}

beforeEach(() => {
	dir = makeTempDir("engrama-source-");
	write("Projects/Alpha.md", "---\nengrama_label: Project\nstatus: active\n---\n# Alpha\n\nBody stays.\n");
	write("Notes/Loose.md", "# Loose\n");
	write("Notes/picture.png", "not a note");
	app = createFakeApp(dir.path);
});

afterEach(() => dir.cleanup());

// The fake's App is structurally Obsidian's; the plugin code is typed against the real API.
const source = (options: ConstructorParameters<typeof ObsidianVaultSource>[1] = {}) => new ObsidianVaultSource(app as never, options);

describe("reading", () => {
	test("lists markdown notes with mtime and size, and stats one", async () => {
		const files = await source().list();
		expect(files.map((f) => f.path).sort()).toEqual(["Notes/Loose.md", "Projects/Alpha.md"]);
		const alpha = files.find((f) => f.path === "Projects/Alpha.md")!;
		expect(alpha.size).toBe(readFileSync(join(dir.path, "Projects/Alpha.md")).length);
		expect(alpha.mtime).toBeGreaterThan(0);
		expect(await source().stat("Projects/Alpha.md")).toEqual(alpha);
		expect(await source().stat("Projects/Missing.md")).toBeNull();
		// stat answers for any file; sync itself only looks at notes.
		expect(await source().stat("Notes/picture.png")).toMatchObject({ path: "Notes/picture.png", size: 10 });
		expect(await source().read("Notes/Loose.md")).toBe("# Loose\n");
		await expect(source().read("Nope.md")).rejects.toThrow('The note "Nope.md" does not exist in the vault.');
	});

	test("include folders limit what sync sees; the agent-memory folder always stays visible", async () => {
		write("Engrama/Concept/Zed.md", "# Zed\n");
		app = createFakeApp(dir.path);
		const limited = source({ includeFolders: () => ["projects"], alwaysInclude: () => ["Engrama"] });
		expect((await limited.list()).map((f) => f.path).sort()).toEqual(["Engrama/Concept/Zed.md", "Projects/Alpha.md"]);
		expect(await limited.stat("Notes/Loose.md")).toBeNull();
		expect(limited.isVisible("Projects/Sub/Deep.md")).toBe(true);
	});
});

describe("writing", () => {
	test("create makes missing folders and refuses an existing file; process edits the text as it is at write time", async () => {
		const s = source();
		await s.create("Engrama/Person/Ana Ruiz.md", "# Ana Ruiz\n");
		expect(readFileSync(join(dir.path, "Engrama/Person/Ana Ruiz.md"), "utf8")).toBe("# Ana Ruiz\n");
		await expect(s.create("Engrama/Person/Ana Ruiz.md", "again")).rejects.toThrow("File already exists.");
		expect(await s.process("Notes/Loose.md", (text) => `${text}\nMore.\n`)).toBe("# Loose\n\nMore.\n");
		expect(readFileSync(join(dir.path, "Notes/Loose.md"), "utf8")).toBe("# Loose\n\nMore.\n");
	});

	test("processFrontMatter goes through FileManager: keys keep their order and the body its bytes", async () => {
		await source().processFrontMatter("Projects/Alpha.md", (fm) => {
			fm.engrama_id = "1234";
		});
		expect(readFileSync(join(dir.path, "Projects/Alpha.md"), "utf8")).toBe("---\nengrama_label: Project\nstatus: active\nengrama_id: \"1234\"\n---\n# Alpha\n\nBody stays.\n");
		await source().processFrontMatter("Notes/Loose.md", (fm) => {
			fm.engrama_id = "x";
		});
		expect(readFileSync(join(dir.path, "Notes/Loose.md"), "utf8")).toBe("---\nengrama_id: x\n---\n# Loose\n");
	});
});

describe("notes that are not UTF-8 (issue 25)", () => {
	test("are refused by read, process and processFrontMatter, and their bytes stay as they were", async () => {
		const latin1 = Buffer.from("---\nengrama_label: Concept\n---\n# Caf\xe9\n", "latin1");
		writeFileSync(join(dir.path, "Notes/Latin.md"), latin1);
		// A UTF-8 note may hold U+FFFD itself: that one is read and written as usual.
		write("Notes/Replacement.md", "# Odd \uFFFD sign\n");
		app = createFakeApp(dir.path);
		const s = source();
		await expect(s.read("Notes/Latin.md")).rejects.toThrow("Notes/Latin.md is not valid UTF-8 (byte 0xe9 at offset 36)");
		await expect(s.processFrontMatter("Notes/Latin.md", (fm) => void (fm.engrama_id = "x"))).rejects.toThrow("not valid UTF-8");
		await expect(s.process("Notes/Latin.md", (text) => `${text}more`)).rejects.toThrow("not valid UTF-8");
		expect(readFileSync(join(dir.path, "Notes/Latin.md")).equals(latin1)).toBe(true);
		expect(await s.read("Notes/Replacement.md")).toBe("# Odd \uFFFD sign\n");
		await s.processFrontMatter("Notes/Replacement.md", (fm) => void (fm.engrama_id = "y"));
		expect(readFileSync(join(dir.path, "Notes/Replacement.md"), "utf8")).toBe("---\nengrama_id: y\n---\n# Odd \uFFFD sign\n");
	});
});

describe("events", () => {
	test("vault events become create/modify/rename/delete for visible notes only; unsubscribe stops them", async () => {
		const events: VaultEvent[] = [];
		const s = source({ includeFolders: () => ["Projects", "Notes"] });
		const stop = s.watch((e) => events.push(e));
		const vault = app.vault;
		const created = await vault.create("Projects/Beta.md", "# Beta\n");
		await vault.create("Projects/image.png", "png");
		await vault.modify(created, "# Beta\n\nEdited.\n");
		await vault.rename(created, "Projects/Gamma.md");
		await vault.createFolder("Archive");
		await vault.rename(vault.getFileByPath("Projects/Gamma.md")!, "Archive/Gamma.md");
		await vault.rename(vault.getFileByPath("Archive/Gamma.md")!, "Notes/Gamma.md");
		await vault.delete(vault.getFileByPath("Notes/Gamma.md")!);
		expect(events).toEqual([
			{ type: "create", path: "Projects/Beta.md" },
			{ type: "modify", path: "Projects/Beta.md" },
			{ type: "rename", path: "Projects/Gamma.md", oldPath: "Projects/Beta.md" },
			// Moving out of the synced folders is a delete for sync; moving back in is a create.
			{ type: "delete", path: "Projects/Gamma.md" },
			{ type: "create", path: "Notes/Gamma.md" },
			{ type: "delete", path: "Notes/Gamma.md" },
		]);
		stop();
		expect(vault.listenerCount()).toBe(0);
		await vault.create("Projects/Delta.md", "# Delta\n");
		expect(events).toHaveLength(6);
	});

	test("renaming a folder reports every note inside it as renamed", async () => {
		const events: VaultEvent[] = [];
		source().watch((e) => events.push(e));
		await app.vault.rename(app.vault.getFolderByPath("Projects")!, "Work");
		expect(events).toEqual([{ type: "rename", path: "Work/Alpha.md", oldPath: "Projects/Alpha.md" }]);
	});
});

describe("cancelling", () => {
	test("a cancelled task stops at the next vault call", async () => {
		const gate = new WorkGate(1000);
		const s = source({ gate });
		const controller = new AbortController();
		await expect(
			gate.run("Syncing the vault", controller.signal, async () => {
				await s.read("Notes/Loose.md");
				controller.abort();
				await s.read("Projects/Alpha.md");
			}),
		).rejects.toBeInstanceOf(CancelledError);
		expect(gate.busyWith).toBeNull();
		expect(gate.count("vault.read")).toBe(2);
	});
});

describe("removing a note (an erase)", () => {
	test("removes the note only while it still holds the text whose hash it was given", async () => {
		const { contentHash } = await import("../../src/engine/host");
		const text = readFileSync(join(dir.path, "Projects/Alpha.md"), "utf8");
		expect(await source().remove("Projects/Alpha.md", contentHash(`${text}edited`))).toBe(false);
		expect(await source().stat("Projects/Alpha.md")).not.toBeNull();
		expect(await source().remove("Projects/Alpha.md", contentHash(text))).toBe(true);
		expect(await source().stat("Projects/Alpha.md")).toBeNull();
	});
});
