import { readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isNoop, NOTE_ORIGIN, renderEntityNote } from "../../../src/engine/sync";
import { allNodes, EXAMPLE_VAULT, exampleProfile, graphSnapshot, node, openHarness, outEdges, SCOPE, type SyncHarness } from "./sync-fixture";

const open: SyncHarness[] = [];
async function harness(...args: Parameters<typeof openHarness>): Promise<SyncHarness> {
	const h = await openHarness(...args);
	open.push(h);
	return h;
}
afterEach(async () => {
	for (const h of open.splice(0)) await h.close();
});

const cli = { scope: SCOPE, source: "cli" as const };

describe("graph → vault", () => {
	it("writes a relation added outside the vault into its source note, and a later sync changes nothing", async () => {
		const h = await harness({ from: EXAMPLE_VAULT });
		await h.sync.fullSync();
		h.sync.writer.attach();
		h.sync.start();
		await h.memory.relate(cli, { label: "Project", key: "Portfolio Site" }, "USES", { label: "Technology", key: "TypeScript" });
		await h.sync.idle();
		const text = h.read("Projects/Portfolio Site.md");
		expect(text).toMatch(/USES: \[.*"\[\[TypeScript\]\]"\]/);
		const portfolio = await node(h.memory, "Project", "Portfolio Site");
		const ts = (await outEdges(h.memory, portfolio, "USES")).find((e) => e.to.key === "TypeScript");
		expect(ts?.edge.props).toMatchObject({ origin: NOTE_ORIGIN, note_path: "Projects/Portfolio Site.md" });
		// The write's own modify event found nothing new, and neither does a full sync.
		await new Promise((r) => setTimeout(r, 300));
		await h.sync.idle();
		expect(h.batches.filter((b) => !isNoop(b)).length).toBeLessThanOrEqual(1);
		expect(isNoop(await h.sync.fullSync())).toBe(true);
		expect(h.read("Projects/Portfolio Site.md")).toBe(text);
	});

	it("writes an entity remembered outside the vault as a note under Engrama/<Label>/ and gives it its path", async () => {
		const h = await harness({ from: EXAMPLE_VAULT });
		await h.sync.fullSync();
		h.sync.writer.attach();
		const { node: neo } = await h.memory.remember(cli, {
			label: "Technology",
			key: "Neo4j",
			props: { description: "A graph database.", tags: ["database", "graph"], version: "5.26" },
		});
		await h.memory.relate(cli, { label: "Technology", key: "Neo4j" }, "IMPLEMENTS", { label: "Concept", key: "CRDTs" });
		await h.sync.idle();
		const path = "Engrama/Technology/Neo4j.md";
		const text = h.read(path);
		expect(text).toContain(`engrama_id: ${neo.id}`);
		expect(text).toContain("engrama_label: Technology");
		expect(text).toContain("version: \"5.26\"");
		expect(text).toContain("# Neo4j\n\n> A graph database.");
		expect(text).toMatch(/IMPLEMENTS:\n\s+- "\[\[CRDTs\]\]"/);
		const stored = await node(h.memory, "Technology", "Neo4j");
		expect(stored.id).toBe(neo.id);
		expect(stored.props).toMatchObject({ obsidian_path: path, description: "A graph database.", tags: ["database", "graph"] });
		expect(isNoop(await h.sync.fullSync())).toBe(true);
	});

	it("updates a note's frontmatter when an agent changes a property the profile knows", async () => {
		const h = await harness({ from: EXAMPLE_VAULT });
		await h.sync.fullSync();
		h.sync.writer.attach();
		await h.memory.remember(cli, { label: "Technology", key: "PostgreSQL", props: { version: "17", favourite_colour: "blue" } });
		await h.sync.idle();
		const text = h.read("Technologies/PostgreSQL.md");
		expect(text).toContain('version: "17"');
		expect(text).not.toContain("favourite_colour");
		expect((await node(h.memory, "Technology", "PostgreSQL")).props).toMatchObject({ version: "17", favourite_colour: "blue" });
	});

	it("never reverts an update committed while the note for the create was being written (issue 25)", async () => {
		const h = await harness();
		await h.sync.fullSync();
		h.sync.writer.attach();
		// The agent's update lands between the note's write and its sync back into the graph.
		const create = h.source.create.bind(h.source);
		let update: Promise<unknown> | undefined;
		h.source.create = async (path, text) => {
			await create(path, text);
			update ??= h.memory.remember(cli, { label: "Concept", key: "Race", props: { summary: "second value" } });
			await update;
		};
		await h.memory.remember(cli, { label: "Concept", key: "Race", props: { summary: "first value" } });
		await h.sync.idle();
		// The update's own replication was queued behind the create's, during it.
		await update;
		await h.sync.idle();
		expect(update).toBeDefined();
		expect((await node(h.memory, "Concept", "Race")).props.summary).toBe("second value");
		const text = h.read("Engrama/Concept/Race.md");
		expect(text).toContain("summary: second value");
		expect(isNoop(await h.sync.fullSync())).toBe(true);
		expect((await node(h.memory, "Concept", "Race")).props).toMatchObject({ summary: "second value", obsidian_path: "Engrama/Concept/Race.md" });
	});

	it("after a crash between a new note's write and its sync back, the next sync does not revert a later update (issue 25)", async () => {
		const h = await harness();
		await h.sync.fullSync();
		const detach = h.sync.writer.attach();
		// The process dies right after writing the note: no sync back, no more replication.
		const create = h.source.create.bind(h.source);
		h.source.create = async (path, text) => {
			await create(path, text);
			detach();
			throw new Error("killed");
		};
		await h.memory.remember(cli, { label: "Concept", key: "Crash", props: { summary: "first value" } });
		await h.sync.idle();
		expect(h.read("Engrama/Concept/Crash.md")).toContain("summary: first value");
		await h.memory.remember(cli, { label: "Concept", key: "Crash", props: { summary: "second value" } });
		// The person's next sync, by another VaultSync (a new process) over the same memory and vault.
		await h.makeSync({}).fullSync();
		const stored = await node(h.memory, "Concept", "Crash");
		expect(stored.props).toMatchObject({ summary: "second value", obsidian_path: "Engrama/Concept/Crash.md" });
	});

	it("never reverts an update committed while a relation was being written into the note", async () => {
		const h = await harness({ from: EXAMPLE_VAULT });
		await h.sync.fullSync();
		h.sync.writer.attach();
		const edit = h.source.processFrontMatter.bind(h.source);
		let update: Promise<unknown> | undefined;
		h.source.processFrontMatter = async (path, mutate, options) => {
			const written = await edit(path, mutate, options);
			update ??= h.memory.remember(cli, { label: "Project", key: "Portfolio Site", props: { description: "Changed by the agent." } });
			await update;
			return written;
		};
		await h.memory.relate(cli, { label: "Project", key: "Portfolio Site" }, "USES", { label: "Technology", key: "TypeScript" });
		await h.sync.idle();
		// The update's own replication was queued behind the create's, during it.
		await update;
		await h.sync.idle();
		expect(update).toBeDefined();
		expect((await node(h.memory, "Project", "Portfolio Site")).props.description).toBe("Changed by the agent.");
		expect(h.read("Projects/Portfolio Site.md")).toContain("description: Changed by the agent.");
		expect(h.read("Projects/Portfolio Site.md")).toMatch(/USES: \[.*"\[\[TypeScript\]\]"\]/);
	});

	it("ignores sync's own writes and other tenants' writes", async () => {
		const h = await harness();
		await h.sync.fullSync();
		h.sync.writer.attach();
		await h.memory.remember({ scope: SCOPE, source: "sync" }, { label: "Concept", key: "From sync" });
		await h.memory.remember({ scope: { orgId: "other", userId: "someone" }, source: "mcp" }, { label: "Concept", key: "Theirs" });
		await h.sync.idle();
		expect(readdirSync(h.vaultDir)).toEqual([]);
	});

	it("exports entities without notes on a full sync (even with no writer attached); a dry run only lists them", async () => {
		const h = await harness({ from: EXAMPLE_VAULT });
		await h.sync.fullSync();
		await h.memory.remember(cli, { label: "Person", key: "Grace: \"Hopper\" / #1", props: { role: "Admiral" } });
		const dry = await h.sync.fullSync({ dryRun: true });
		expect(dry.notesWritten).toEqual(["Engrama/Person/Grace Hopper 1.md"]);
		expect(() => h.read("Engrama/Person/Grace Hopper 1.md")).toThrow();
		const real = await h.sync.fullSync();
		expect(real.notesWritten).toEqual(["Engrama/Person/Grace Hopper 1.md"]);
		const person = await node(h.memory, "Person", 'Grace: "Hopper" / #1');
		expect(person.props).toMatchObject({ obsidian_path: "Engrama/Person/Grace Hopper 1.md", role: "Admiral" });
		// The vault now holds the whole graph: a fresh database rebuilds it, exported entity included.
		const fresh = await h.reopen({ dbPath: join(h.vaultDir, "..", "fresh.db") });
		open.push(fresh);
		await fresh.sync.fullSync();
		const a = await graphSnapshot(h.memory);
		const b = await graphSnapshot(fresh.memory);
		expect(b.nodes).toEqual(a.nodes);
		expect(b.edges).toEqual(a.edges);
	});

	it("with backfillRelations, writes relations another process added while no writer was attached", async () => {
		const h = await harness({ from: EXAMPLE_VAULT });
		await h.sync.fullSync();
		await h.memory.relate(cli, { label: "Project", key: "Warehouse Sync" }, "USES", { label: "Technology", key: "PostgreSQL" });
		const quiet = await h.sync.fullSync();
		expect(h.read("Projects/Warehouse Sync.md")).not.toContain("PostgreSQL");
		expect(quiet.notesWritten).toEqual([]);
		await h.makeSync({ backfillRelations: true }).fullSync();
		expect(h.read("Projects/Warehouse Sync.md")).toContain("[[PostgreSQL]]");
		const edge = (await outEdges(h.memory, await node(h.memory, "Project", "Warehouse Sync"), "USES")).find((e) => e.to.key === "PostgreSQL");
		expect(edge?.edge.props.origin).toBe(NOTE_ORIGIN);
	});

	it("never exports stubs, archived nodes or Insights", async () => {
		const h = await harness({ from: EXAMPLE_VAULT });
		await h.sync.fullSync();
		await h.memory.remember(cli, { label: "Insight", key: "A pattern", props: { body: "x" } });
		const report = await h.sync.fullSync();
		expect(report.notesWritten).toEqual([]);
		const exported = (await allNodes(h.memory)).filter((n) => n.props.status === "stub" && n.props.obsidian_path);
		expect(exported).toEqual([]);
	});
});

describe("renderEntityNote", () => {
	it("writes id, label, key, known properties and relations, with the summary in the body", () => {
		const profile = exampleProfile();
		const text = renderEntityNote(
			{
				id: "11111111-2222-4333-8444-555555555555",
				label: "Decision",
				keyField: "title",
				key: "Use SQLite",
				props: { title: "Use SQLite", rationale: "One file.", status: "accepted", confidence: 1, source: "mcp", org_id: "o", summary: "Embedded." },
				createdAt: "",
				updatedAt: "",
			},
			[{ type: "USES", entry: "[[SQLite]]" }],
			profile,
		);
		expect(text).toBe(
			[
				"---",
				"engrama_id: 11111111-2222-4333-8444-555555555555",
				"engrama_label: Decision",
				"title: Use SQLite",
				"status: accepted",
				"rationale: One file.",
				"summary: Embedded.",
				"engrama_source: mcp",
				"engrama_trust: 0.5",
				"relations:",
				"  USES:",
				'    - "[[SQLite]]"',
				"---",
				"# Use SQLite",
				"",
				"> Embedded.",
				"",
			].join("\n"),
		);
	});
});
