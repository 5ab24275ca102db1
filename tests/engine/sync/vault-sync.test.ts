import { appendFileSync, copyFileSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync } from "node:fs";
import { join, relative } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EngramaError } from "../../../src/engine/errors";
import { Memory } from "../../../src/engine/memory";
import { loadProfile } from "../../../src/engine/profile";
import { isNoop, NOTE_ORIGIN } from "../../../src/engine/sync";
import { VaultSync } from "../../../src/engine/sync/vault-sync";
import { FolderVaultSource } from "../../../src/nodejs/folder-vault-source";
import { allNodes, EXAMPLE_VAULT, eventually, exampleProfile, graphSnapshot, node, openHarness, outEdges, ROOT, SCOPE, type SyncHarness } from "./sync-fixture";

const open: SyncHarness[] = [];
async function harness(...args: Parameters<typeof openHarness>): Promise<SyncHarness> {
	const h = await openHarness(...args);
	open.push(h);
	return h;
}
afterEach(async () => {
	for (const h of open.splice(0)) await h.close();
});

function vaultFiles(dir: string): Map<string, string> {
	const out = new Map<string, string>();
	const walk = (d: string) => {
		for (const name of readdirSync(d)) {
			const path = join(d, name);
			if (statSync(path).isDirectory()) walk(path);
			else out.set(relative(dir, path), readFileSync(path, "utf8"));
		}
	};
	walk(dir);
	return out;
}

const idOf = (text: string) => /^engrama_id: (.+)$/m.exec(text)?.[1];

describe("a full sync of the example vault", () => {
	it("builds the graph examples/README.md describes and writes the missing engrama_ids", async () => {
		const h = await harness({ from: EXAMPLE_VAULT, settings: { excludedFolders: ["Templates"] } });
		const report = await h.sync.fullSync();
		const nodes = await allNodes(h.memory);
		const stubs = nodes.filter((n) => n.props.status === "stub").map((n) => `${n.label}:${n.key}`).sort();
		expect(stubs).toEqual(["Concept:Outbox Pattern", "Domain:Healthcare", "Person:Elena Vidal"]);
		expect(nodes.filter((n) => n.label === "Note")).toHaveLength(12);
		expect(nodes).toHaveLength(63);
		expect(nodes.some((n) => n.key === "{{title}}")).toBe(false);
		expect(report.counts).toMatchObject({ filesScanned: 60, nodesCreated: 60, stubsCreated: 3, relationsAdded: 139, relationsRemoved: 0 });
		// Billing Portal already had an id: it keeps it; the other 59 notes get theirs written.
		expect((await node(h.memory, "Project", "Billing Portal")).id).toBe("7d0c2a4e-3b1f-4c55-9a8e-2f6d1b0e9c41");
		expect(report.idsWritten).toHaveLength(59);
		for (const path of report.idsWritten) {
			const written = idOf(h.read(path));
			expect(written, path).toBeDefined();
			const stored = await h.memory.graph.getNodeById(SCOPE, written ?? "");
			expect(stored?.props.obsidian_path).toBe(path);
		}
		// Names: first H1 (Warehouse Sync), file name (PostgreSQL), title (Decision).
		expect((await node(h.memory, "Project", "Warehouse Sync")).props.obsidian_path).toBe("Projects/Warehouse Sync.md");
		expect((await node(h.memory, "Technology", "PostgreSQL")).props.version).toBe("16");
		const billing = await node(h.memory, "Project", "Billing Portal");
		const uses = (await outEdges(h.memory, billing, "USES")).map((e) => e.to.key).sort();
		expect(uses).toEqual(["Moment.js", "PostgreSQL", "TypeScript"]);
		for (const e of await outEdges(h.memory, billing)) {
			expect(e.edge.props).toMatchObject({ origin: NOTE_ORIGIN, note_path: "Projects/Billing Portal.md", source: "sync" });
		}
	});

	it("re-syncs an unchanged vault to nothing and leaves every stored byte as it was", async () => {
		const h = await harness({ from: EXAMPLE_VAULT });
		await h.sync.fullSync();
		const before = JSON.stringify(await allNodes(h.memory));
		const files = vaultFiles(h.vaultDir);
		const again = await h.sync.fullSync();
		expect(isNoop(again)).toBe(true);
		expect(again.counts.filesRead).toBe(0);
		expect(again.counts.filesUnchanged).toBe(60);
		expect(JSON.stringify(await allNodes(h.memory))).toBe(before);
		expect(vaultFiles(h.vaultDir)).toEqual(files);
	});

	it("dry run: reports exactly what the real sync then does, and writes nothing", async () => {
		const h = await harness({ from: EXAMPLE_VAULT });
		const files = vaultFiles(h.vaultDir);
		const dry = await h.sync.fullSync({ dryRun: true });
		expect(dry.dryRun).toBe(true);
		expect(vaultFiles(h.vaultDir)).toEqual(files);
		expect(await h.memory.graph.counts(SCOPE)).toEqual({ nodes: 0, edges: 0 });
		const real = await h.sync.fullSync();
		expect(real.counts).toEqual(dry.counts);
		expect(real.idsWritten).toEqual(dry.idsWritten);
	});

	it("rebuilds the same graph in a fresh database pointed at the synced vault", async () => {
		const h = await harness({ from: EXAMPLE_VAULT });
		await h.sync.fullSync();
		const original = await graphSnapshot(h.memory);
		const fresh = await h.reopen({ dbPath: join(h.vaultDir, "..", "fresh.db") });
		open.push(fresh);
		const rebuild = await fresh.sync.fullSync();
		expect(rebuild.idsWritten).toEqual([]);
		const rebuilt = await graphSnapshot(fresh.memory);
		expect(rebuilt.nodes).toEqual(original.nodes);
		expect(rebuilt.edges).toEqual(original.edges);
	});

	it("leaves the id out of a note edited while the ids are written, and gives it one on the next sync", async () => {
		const h = await harness({ from: EXAMPLE_VAULT });
		const edited = "Technologies/PostgreSQL.md";
		// The user types into one note between sync's read and its id write.
		class TypingSource extends FolderVaultSource {
			override async processFrontMatter(...args: Parameters<FolderVaultSource["processFrontMatter"]>) {
				if (args[0] === edited) appendFileSync(join(h.vaultDir, edited), "\nA line typed during the sync.\n");
				return super.processFrontMatter(...args);
			}
		}
		const sync = new VaultSync({ memory: h.memory, source: new TypingSource(h.vaultDir), scope: SCOPE });
		const first = await sync.fullSync();
		expect(first.idsWritten).toHaveLength(59 - 1);
		expect(first.idsWritten).not.toContain(edited);
		expect(idOf(h.read(edited))).toBeUndefined();
		const postgres = await node(h.memory, "Technology", "PostgreSQL");
		expect(postgres.props.obsidian_path).toBe(edited);
		for (const path of first.idsWritten) expect((await h.memory.graph.getNodeById(SCOPE, idOf(h.read(path)) ?? ""))?.props.obsidian_path).toBe(path);

		// The next sync reads only the edited note and writes the id of the node it already has.
		const second = await h.sync.fullSync();
		expect(second.counts).toMatchObject({ filesRead: 1, nodesCreated: 0, nodesUpdated: 1 });
		expect(second.idsWritten).toEqual([edited]);
		expect(idOf(h.read(edited))).toBe(postgres.id);
		expect(h.read(edited)).toContain("A line typed during the sync.");
		expect(isNoop(await h.sync.fullSync())).toBe(true);
	});
});

describe("identity", () => {
	it("keeps the node when a note is renamed: same id, new path, name from the new file name", async () => {
		const h = await harness({ from: EXAMPLE_VAULT });
		await h.sync.fullSync();
		const before = await node(h.memory, "Technology", "PostgreSQL");
		const count = (await allNodes(h.memory)).length;
		renameSync(join(h.vaultDir, "Technologies/PostgreSQL.md"), join(h.vaultDir, "Technologies/Postgres.md"));
		const report = await h.sync.fullSync();
		expect(report.counts).toMatchObject({ nodesMoved: 1, nodesCreated: 0, nodesArchived: 0 });
		const after = await node(h.memory, "Technology", "Postgres");
		expect(after.id).toBe(before.id);
		expect(after.props.obsidian_path).toBe("Technologies/Postgres.md");
		expect(after.createdAt).toBe(before.createdAt);
		expect(await h.memory.graph.getNode(SCOPE, "Technology", "PostgreSQL")).toBeNull();
		expect((await allNodes(h.memory)).length).toBe(count);
		const billing = await node(h.memory, "Project", "Billing Portal");
		expect((await outEdges(h.memory, billing, "USES")).map((e) => e.to.id)).toContain(before.id);
	});

	it("follows a rename event (old and new path) and a title edit without a duplicate", async () => {
		const h = await harness({ from: EXAMPLE_VAULT });
		await h.sync.fullSync();
		const concept = await node(h.memory, "Concept", "Idempotency");
		mkdirSync(join(h.vaultDir, "Archive"));
		renameSync(join(h.vaultDir, "Concepts/Idempotency.md"), join(h.vaultDir, "Archive/Idempotency.md"));
		h.sync.handleEvent({ type: "rename", oldPath: "Concepts/Idempotency.md", path: "Archive/Idempotency.md" });
		const moved = await h.sync.flush();
		expect(moved?.counts).toMatchObject({ nodesMoved: 1, nodesCreated: 0, nodesArchived: 0 });
		expect((await h.memory.graph.getNodeById(SCOPE, concept.id))?.props.obsidian_path).toBe("Archive/Idempotency.md");

		h.write("Archive/Idempotency.md", h.read("Archive/Idempotency.md").replace("# Idempotency", "# Idempotence"));
		await h.sync.syncPaths(["Archive/Idempotency.md"]);
		const renamed = await h.memory.graph.getNodeById(SCOPE, concept.id);
		expect(renamed?.key).toBe("Idempotence");
		expect(await h.memory.graph.getNode(SCOPE, "Concept", "Idempotency")).toBeNull();
	});

	it("joins renames within one batch (A → B → C is A → C)", async () => {
		const h = await harness({ from: EXAMPLE_VAULT, settings: { writeEngramaIds: false } });
		await h.sync.fullSync();
		const concept = await node(h.memory, "Concept", "CRDTs");
		renameSync(join(h.vaultDir, "Concepts/CRDTs.md"), join(h.vaultDir, "Concepts/Merge types.md"));
		h.sync.handleEvent({ type: "rename", oldPath: "Concepts/CRDTs.md", path: "Concepts/B.md" });
		h.sync.handleEvent({ type: "rename", oldPath: "Concepts/B.md", path: "Concepts/Merge types.md" });
		const report = await h.sync.flush();
		expect(report?.counts).toMatchObject({ nodesMoved: 1, nodesCreated: 0, nodesArchived: 0 });
		expect((await h.memory.graph.getNodeById(SCOPE, concept.id))?.props.obsidian_path).toBe("Concepts/Merge types.md");
	});

	it("recognises a move by its content when ids are not written (delete + create in one batch)", async () => {
		const h = await harness({ from: EXAMPLE_VAULT, settings: { writeEngramaIds: false } });
		await h.sync.fullSync();
		const daily = await node(h.memory, "Note", "2026-03-03");
		renameSync(join(h.vaultDir, "Daily/2026-03-03.md"), join(h.vaultDir, "Daily/2026-03-03 planning.md"));
		h.sync.handleEvent({ type: "delete", path: "Daily/2026-03-03.md" });
		h.sync.handleEvent({ type: "create", path: "Daily/2026-03-03 planning.md" });
		const report = await h.sync.flush();
		expect(report?.counts).toMatchObject({ nodesMoved: 1, nodesCreated: 0, nodesArchived: 0 });
		expect((await h.memory.graph.getNodeById(SCOPE, daily.id))?.key).toBe("2026-03-03 planning");
		expect(idOf(h.read("Daily/2026-03-03 planning.md"))).toBeUndefined();
	});

	it("gives a copied note a new id and its own node; the original keeps its node", async () => {
		const h = await harness({ from: EXAMPLE_VAULT });
		await h.sync.fullSync();
		// PostgreSQL takes its name from the file name, so the copy is a different entity.
		const original = await node(h.memory, "Technology", "PostgreSQL");
		const originalText = h.read("Technologies/PostgreSQL.md");
		copyFileSync(join(h.vaultDir, "Technologies/PostgreSQL.md"), join(h.vaultDir, "Technologies/PostgreSQL 2.md"));
		const report = await h.sync.fullSync();
		expect(report.counts.nodesCreated).toBe(1);
		expect(report.problems).toEqual([
			expect.objectContaining({ path: "Technologies/PostgreSQL 2.md", severity: "warning" }),
		]);
		expect(report.problems[0].problem).toContain("Technologies/PostgreSQL.md");
		const copy = await node(h.memory, "Technology", "PostgreSQL 2");
		expect(copy.id).not.toBe(original.id);
		expect(idOf(h.read("Technologies/PostgreSQL 2.md"))).toBe(copy.id);
		expect(h.read("Technologies/PostgreSQL.md")).toBe(originalText);
		const still = await h.memory.graph.getNodeById(SCOPE, original.id);
		expect(still?.key).toBe("PostgreSQL");
		expect(still?.props.obsidian_path).toBe("Technologies/PostgreSQL.md");
	});

	it("on a first sync, two notes with one engrama_id: the older file keeps it, whatever the paths and later edits", async () => {
		const id = "0b7e8a52-3c1d-4f6e-9a2b-7c8d9e0f1a2b";
		// [original, copy]: each order of names, so the path order never decides.
		for (const [originalPath, copyPath] of [
			["z original.md", "a copy.md"],
			["a original.md", "z copy.md"],
		]) {
			const h = await harness();
			h.write(originalPath, `---\nengrama_id: ${id}\nengrama_label: Concept\nname: Original ${originalPath[0]}\n---\n`);
			// Created later (creation times are coarse: wait until the clock has visibly moved on).
			const created = Date.now();
			while (Date.now() - created < 30) await new Promise((done) => setTimeout(done, 10));
			h.write(copyPath, `---\nengrama_id: ${id}\nengrama_label: Concept\nname: Copy ${copyPath[0]}\n---\n`);
			// The original edited after the copy was made: its last change is now the newest.
			const later = new Date(Date.now() + 60_000);
			utimesSync(join(h.vaultDir, originalPath), later, later);
			const report = await h.sync.fullSync();
			expect((await h.memory.graph.getNodeById(SCOPE, id))?.props.obsidian_path, originalPath).toBe(originalPath);
			expect(report.problems).toEqual([expect.objectContaining({ path: copyPath, severity: "warning" })]);
			expect(report.problems[0].problem).toContain(originalPath);
			expect(idOf(h.read(copyPath))).not.toBe(id);
			expect(idOf(h.read(originalPath))).toBe(id);
			expect((await h.sync.fullSync()).problems).toEqual([]);
		}
	});

	it("refuses a copy that also keeps the original's name, and never lets it steal the node", async () => {
		const h = await harness({ from: EXAMPLE_VAULT });
		await h.sync.fullSync();
		const before = JSON.stringify(await node(h.memory, "Technology", "TypeScript"));
		copyFileSync(join(h.vaultDir, "Technologies/TypeScript.md"), join(h.vaultDir, "Inbox/TypeScript.md"));
		const report = await h.sync.fullSync();
		expect(report.problems.map((p) => `${p.path}|${p.severity}`)).toEqual(["Inbox/TypeScript.md|warning", "Inbox/TypeScript.md|error"]);
		expect(JSON.stringify(await node(h.memory, "Technology", "TypeScript"))).toBe(before);
		expect(report.counts.nodesCreated + report.counts.nodesUpdated + report.counts.nodesMoved).toBe(0);
	});

	it("reports two notes that claim the same label and name, and leaves the first one alone", async () => {
		const h = await harness({ from: EXAMPLE_VAULT });
		await h.sync.fullSync();
		const before = JSON.stringify(await node(h.memory, "Concept", "CRDTs"));
		h.write("Inbox/CRDT copy.md", "---\nengrama_label: Concept\nname: CRDTs\n---\nAnother take.\n");
		const report = await h.sync.fullSync();
		expect(report.problems.map((p) => `${p.path}|${p.severity}`)).toEqual(["Inbox/CRDT copy.md|error"]);
		expect(report.problems[0].problem).toContain("Concepts/CRDTs.md");
		expect(JSON.stringify(await node(h.memory, "Concept", "CRDTs"))).toBe(before);
		expect(report.counts.nodesCreated).toBe(0);
	});

	it("keeps two untyped notes with one file name apart (the second is keyed by its path)", async () => {
		const h = await harness();
		h.write("A/README.md", "first");
		h.write("B/README.md", "second");
		await h.sync.fullSync();
		expect((await node(h.memory, "Note", "README")).props.obsidian_path).toBe("A/README.md");
		expect((await node(h.memory, "Note", "B/README")).props.obsidian_path).toBe("B/README.md");
	});
});

describe("a profile module turned on", () => {
	it("syncing an unchanged note again gives it the label the module adds (same node, same id)", async () => {
		const baseOnly = loadProfile([{ file: "base.yaml", text: readFileSync(join(ROOT, "profiles/base.yaml"), "utf8") }]);
		const before = await harness({ profile: baseOnly });
		before.write("Courses/Intro.md", "---\ntype: course\nname: Intro\n---\n# Intro\n");
		await before.sync.fullSync();
		const asNote = await node(before.memory, "Note", "Intro");
		await before.close();
		open.splice(open.indexOf(before), 1);

		const after = await harness({ vaultDir: before.vaultDir, dbPath: before.dbPath, profile: exampleProfile() });
		const report = await after.sync.syncPaths(["Courses/Intro.md"]);
		expect(report.counts.nodesUpdated + report.counts.nodesCreated).toBe(1);
		const course = await node(after.memory, "Course", "Intro");
		expect(course.id).toBe(asNote.id);
	});
});

describe("relations", () => {
	it("removes only the edges a note stopped declaring; edges made elsewhere stay", async () => {
		const h = await harness({ from: EXAMPLE_VAULT });
		await h.sync.fullSync();
		await h.memory.relate({ scope: SCOPE, source: "cli" }, { label: "Project", key: "Billing Portal" }, "USES", { label: "Technology", key: "Deno" });
		const path = "Projects/Billing Portal.md";
		h.write(path, h.read(path).replace("USES: [TypeScript, \"[[PostgreSQL]]\", Moment.js]", "USES: [TypeScript]"));
		const report = await h.sync.syncPaths([path]);
		expect(report.counts).toMatchObject({ relationsRemoved: 2, relationsAdded: 0 });
		const billing = await node(h.memory, "Project", "Billing Portal");
		const uses = await outEdges(h.memory, billing, "USES");
		expect(uses.map((e) => e.to.key).sort()).toEqual(["Deno", "TypeScript"]);
		expect(uses.find((e) => e.to.key === "Deno")?.edge.props.origin).toBeUndefined();
		// The removed targets still exist: only the edges went.
		expect(await h.memory.graph.getNode(SCOPE, "Technology", "PostgreSQL")).not.toBeNull();
	});

	it("labels a stub by the relation's target, preferring a label that already has that name", async () => {
		const h = await harness();
		h.write("Clients/Acme.md", "---\nengrama_label: Client\nname: Acme\n---\n");
		h.write("Problems/P.md", "---\nengrama_label: Problem\ntitle: P\nrelations:\n  BELONGS_TO: [Acme, Orion]\n---\n");
		const report = await h.sync.fullSync();
		expect(report.counts.stubsCreated).toBe(1);
		const belongs = await outEdges(h.memory, await node(h.memory, "Problem", "P"), "BELONGS_TO");
		expect(belongs.map((e) => `${e.to.label}:${e.to.key}:${e.to.props.status as string}`).sort()).toEqual([
			"Client:Acme:active",
			"Project:Orion:stub",
		]);
	});

	it("lets a new note take over the stub named like it (same node, no longer a stub)", async () => {
		const h = await harness({ from: EXAMPLE_VAULT });
		await h.sync.fullSync();
		const stub = await node(h.memory, "Person", "Elena Vidal");
		h.write("People/Elena Vidal.md", "---\nengrama_label: Person\nrole: Designer\n---\n# Elena Vidal\n");
		await h.sync.syncPaths(["People/Elena Vidal.md"]);
		const person = await node(h.memory, "Person", "Elena Vidal");
		expect(person.id).toBe(stub.id);
		expect(person.props).toMatchObject({ status: "active", role: "Designer", obsidian_path: "People/Elena Vidal.md" });
		expect(idOf(h.read("People/Elena Vidal.md"))).toBe(stub.id);
		expect((await h.memory.graph.edgesOf(SCOPE, person.id, "in", ["INVOLVES"])).length).toBe(3);
	});

	it("turns an unresolved body link into a Note stub that the linked note absorbs once written", async () => {
		const h = await harness();
		h.write("Daily/Monday.md", "Read about [[Vector clocks]] today.");
		await h.sync.fullSync();
		expect((await node(h.memory, "Note", "Vector clocks")).props.status).toBe("stub");
		h.write("Concepts/Vector clocks.md", "---\nengrama_label: Concept\n---\nLogical clocks per replica.");
		await h.sync.syncPaths(["Concepts/Vector clocks.md"]);
		expect(await h.memory.graph.getNode(SCOPE, "Note", "Vector clocks")).toBeNull();
		const links = await outEdges(h.memory, await node(h.memory, "Note", "Monday"), "LINKS_TO");
		expect(links.map((e) => `${e.to.label}:${e.to.key}`)).toEqual(["Concept:Vector clocks"]);
	});

	it("keeps an untyped note's aliases, so search finds the note by the names in its aliases list", async () => {
		const h = await harness();
		h.write("插件/反向链接.md", "---\naliases:\n  - Backlinks\n  - 核心插件/反向链接\n---\n显示链接到当前笔记的所有笔记。\n");
		h.write("插件/出链.md", "显示当前笔记中的所有链接。\n");
		await h.sync.fullSync();
		expect((await node(h.memory, "Note", "反向链接")).props.aliases).toEqual(["Backlinks", "核心插件/反向链接"]);
		expect((await h.memory.searchFulltext(SCOPE, "Backlinks")).map((hit) => hit.name)).toEqual(["反向链接"]);
	});

	it("resolves links written relative to the note's folder ([[./x]], [[../x]]), as Obsidian's relative link format writes them", async () => {
		const h = await harness();
		// Titles differ from the file names, so only the path can find these notes.
		h.write("forge/20260225175652.md", "---\ntitle: мой сетап obsidian\n---\nПлагины и настройки.");
		h.write("meta/движок.md", "---\ntitle: кастомизация движка\n---\nКак устроен сайт.");
		h.write("forge/tools/obsidian.md", "Переехало в [[../20260225175652|мой сетап]], см. [[../../meta/движок]].");
		h.write("meta/index.md", "Смотри [[./движок|движок]] и [[./../forge/20260225175652]]; [[../../outside/нет]] нет.");
		const report = await h.sync.fullSync();
		const linked = async (name: string) =>
			(await outEdges(h.memory, await node(h.memory, "Note", name), "LINKS_TO")).map((e) => `${e.to.key}|${e.to.props.status === "stub" ? "stub" : "note"}`).sort();
		expect(await linked("obsidian")).toEqual(["кастомизация движка|note", "мой сетап obsidian|note"]);
		// A link climbing out of the vault names no note: a stub by its file name, as before.
		expect(await linked("index")).toEqual(["кастомизация движка|note", "мой сетап obsidian|note", "нет|stub"]);
		expect(report.counts.stubsCreated).toBe(1);
	});
});

describe("deleting notes", () => {
	it("archives the node (never deletes it) and revives it when the note comes back", async () => {
		const h = await harness({ from: EXAMPLE_VAULT });
		await h.sync.fullSync();
		const path = "Problems/Flaky OAuth token refresh.md";
		const text = h.read(path);
		const problem = await node(h.memory, "Problem", "Flaky OAuth token refresh");
		const edges = (await outEdges(h.memory, problem)).length;
		rmSync(join(h.vaultDir, path));
		const report = await h.sync.fullSync();
		expect(report.counts.nodesArchived).toBe(1);
		const archived = await h.memory.graph.getNodeById(SCOPE, problem.id);
		expect(archived?.props).toMatchObject({ status: "archived", previous_status: "resolved" });
		expect((await outEdges(h.memory, problem)).length).toBe(edges);
		h.write(path, text);
		await h.sync.fullSync();
		const revived = await h.memory.graph.getNodeById(SCOPE, problem.id);
		expect(revived?.props.status).toBe("resolved");
		expect(revived?.props.archived_at).toBeUndefined();
	});
});

describe("folders", () => {
	it("never syncs the config folder, templates, the trash, dotfiles or excluded folders", async () => {
		const h = await harness({ settings: { excludedFolders: ["Templates", ".trash", "Private"] } });
		h.write(".obsidian/snippet.md", "x");
		h.write(".trash/old.md", "x");
		h.write("Templates/T.md", "x");
		h.write("Private/secret.md", "x");
		h.write(".hidden-note.md", "x");
		h.write("Kept.md", "x");
		const report = await h.sync.fullSync();
		expect(report.counts.filesScanned).toBe(1);
		expect((await allNodes(h.memory)).map((n) => n.key)).toEqual(["Kept"]);
	});

	it("archives a note moved into an excluded folder", async () => {
		const h = await harness({ settings: { excludedFolders: ["Archive"] } });
		h.write("Idea.md", "x");
		await h.sync.fullSync();
		mkdirSync(join(h.vaultDir, "Archive"));
		renameSync(join(h.vaultDir, "Idea.md"), join(h.vaultDir, "Archive/Idea.md"));
		expect((await h.sync.fullSync()).counts.nodesArchived).toBe(1);
	});
});

describe("watching the vault", () => {
	it("syncs a new note from file events, writes its id once, and does not loop on that write", async () => {
		const h = await harness();
		h.sync.start();
		h.write("Ideas/New idea.md", "---\nengrama_label: Concept\n---\nSomething worth keeping. #idea");
		await eventually(async () => {
			expect(idOf(h.read("Ideas/New idea.md"))).toBeDefined();
			expect((await node(h.memory, "Concept", "New idea")).props.obsidian_path).toBe("Ideas/New idea.md");
		});
		// Settles: no batch for 500 ms. A loop never does; a late file event on a busy machine only
		// delays it (a fixed window would count that late, harmless batch as a loop).
		const text = h.read("Ideas/New idea.md");
		for (let settledAfter = 0, seen = -1; h.batches.length !== seen; settledAfter += 500) {
			if (settledAfter > 20_000) throw new Error(`sync kept running batches for 20 s (${h.batches.length}): it loops on its own write`);
			seen = h.batches.length;
			await new Promise((r) => setTimeout(r, 500));
			await h.sync.idle();
		}
		expect(h.read("Ideas/New idea.md")).toBe(text);
		// Whatever batches the id write caused changed nothing.
		const changing = h.batches.filter((b) => !isNoop(b));
		expect(changing).toHaveLength(1);
		expect(changing[0].counts.nodesCreated).toBe(1);
	});

	it("debounces a burst of edits into one batch", async () => {
		const h = await harness({ settings: { debounceMs: 300 } });
		h.write("Log.md", "v0");
		await h.sync.fullSync();
		h.sync.start();
		for (let i = 1; i <= 5; i++) {
			h.write("Log.md", `v${i} #v${i}`);
			await new Promise((r) => setTimeout(r, 20));
		}
		await eventually(async () => expect((await node(h.memory, "Note", "Log")).props.tags).toEqual(["v5"]));
		await h.sync.idle();
		expect(h.batches.filter((b) => b.counts.nodesUpdated > 0)).toHaveLength(1);
	});
});

describe("a batch cancelled with other work", () => {
	it("keeps its events for the next flush (stop runs them); any other failure is reported and dropped as before", async () => {
		const h = await harness();
		// The plugin's work gate cancels every call while a cancelled task unwinds, not only the task's own.
		let failWith: Error | null = new EngramaError("cancelled", "Syncing the vault was cancelled.");
		const source = new Proxy(h.source, {
			get(target, prop) {
				if (prop === "stat") {
					return (path: string) => {
						const error = failWith;
						failWith = null;
						return error ? Promise.reject(error) : target.stat(path);
					};
				}
				const value: unknown = Reflect.get(target, prop);
				return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
			},
		});
		const errors: unknown[] = [];
		const sync = new VaultSync({ memory: h.memory, source, scope: SCOPE, onError: (error) => errors.push(error) });
		h.write("Ideas/Kept.md", "Written before the plugin closed.");
		sync.handleEvent({ type: "create", path: "Ideas/Kept.md" });
		expect(await sync.flush()).toBeNull();
		expect(errors).toEqual([]);
		await sync.stop();
		expect((await node(h.memory, "Note", "Kept")).props.obsidian_path).toBe("Ideas/Kept.md");

		const other = new Error("disk gone");
		failWith = other;
		h.write("Ideas/Dropped.md", "Its batch fails for another reason.");
		sync.handleEvent({ type: "create", path: "Ideas/Dropped.md" });
		expect(await sync.flush()).toBeNull();
		expect(errors).toEqual([other]);
		// Nothing left pending: the next full sync picks the note up, as before.
		expect(await sync.flush()).toBeNull();
	});
});

describe("pausing", () => {
	it("stops watching and holds the pending events without a timer; stop syncs them", async () => {
		const h = await harness();
		const armed = new Set<object>();
		const timers = {
			setTimeout: () => {
				const handle = {};
				armed.add(handle);
				return handle;
			},
			clearTimeout: (handle: unknown) => void armed.delete(handle as object),
		};
		const sync = new VaultSync({ memory: h.memory, source: h.source, scope: SCOPE, timers });
		sync.start();
		h.write("Ideas/Held.md", "Waiting for its batch.");
		sync.handleEvent({ type: "create", path: "Ideas/Held.md" });
		expect(armed.size).toBe(1);
		sync.pause();
		expect(armed.size).toBe(0);
		await sync.stop();
		expect((await node(h.memory, "Note", "Held")).props.obsidian_path).toBe("Ideas/Held.md");
	});
});

describe("backends without the optional bulk methods", () => {
	it("sync gives the same graph through mergeEdge and listNodes", async () => {
		const plain = await harness({ from: EXAMPLE_VAULT });
		await plain.sync.fullSync();
		const expected = await graphSnapshot(plain.memory);

		const h = await harness({ from: EXAMPLE_VAULT });
		const hidden = new Set(["mergeEdges", "listNodeFields"]);
		const graph = new Proxy(h.graph, {
			get: (target, prop, receiver): unknown => (typeof prop === "string" && hidden.has(prop) ? undefined : (Reflect.get(target, prop, receiver) as unknown)),
		});
		const memory = new Memory({ graph, profile: h.memory.profile });
		const sync = new VaultSync({ memory, source: h.source, scope: SCOPE });
		const report = await sync.fullSync();
		expect(report.counts.relationsAdded).toBe(139);
		const got = await graphSnapshot(memory);
		const withoutIds = (lines: string[]) => lines.map((l) => l.replace(/"(engrama_id|content_hash|obsidian_size)":"?[^,"]*"?,/g, ""));
		expect(withoutIds(got.nodes)).toEqual(withoutIds(expected.nodes));
		expect(got.edges).toEqual(expected.edges);
		expect(isNoop(await sync.fullSync())).toBe(true);
	});
});
