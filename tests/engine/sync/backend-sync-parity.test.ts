import { cpSync, mkdirSync, renameSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Memory } from "../../../src/engine/memory";
import { normaliseName, queryFragments } from "../../../src/engine/resolver/normalise";
import { VaultSync } from "../../../src/engine/sync/vault-sync";
import { FolderVaultSource } from "../../../src/nodejs/folder-vault-source";
import { testBackends } from "../../contracts/backends";
import { makeTempDir } from "../../helpers/temp-dir";
import { BAD_VAULT, EXAMPLE_VAULT, SCOPE, exampleProfile, graphSnapshot, openHarness, type SyncHarness } from "./sync-fixture";

// A first sync on every backend gives the graph SQLite gives. On a fresh graph sync writes new
// nodes through GraphStore.mergeNodes (one statement per batch and label on Neo4j), so this is
// also that bulk path's test on each backend.
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
	for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe.each(testBackends())("a first sync of the example vault on $name", (backend) => {
	it("builds the same nodes, properties and relations as the SQLite reference", async () => {
		const reference: SyncHarness = await openHarness({ from: EXAMPLE_VAULT });
		cleanups.push(() => reference.close());
		const first = await reference.sync.fullSync();
		expect(first.counts.nodesCreated).toBe(60);
		const expected = await graphSnapshot(reference.memory);

		// The synced vault (ids written) copied with its mtimes: a first sync into an empty memory.
		const temp = makeTempDir("engrama-sync-parity-");
		cleanups.push(() => temp.cleanup());
		const vaultDir = join(temp.path, "vault");
		cpSync(reference.vaultDir, vaultDir, { recursive: true, preserveTimestamps: true });
		const opened = await backend.open({ profile: exampleProfile(), config: { orgId: SCOPE.orgId, userId: SCOPE.userId } });
		cleanups.push(() => opened.close());
		expect(typeof opened.stores.graph.mergeNodes).toBe("function");
		const memory = new Memory({ graph: opened.stores.graph, vectors: opened.stores.vectors, embedder: null, profile: exampleProfile() });
		const sync = new VaultSync({ memory, source: new FolderVaultSource(vaultDir), scope: SCOPE });

		const report = await sync.fullSync();
		expect(report.counts).toMatchObject({ nodesCreated: 60, stubsCreated: first.counts.stubsCreated, relationsAdded: first.counts.relationsAdded });
		expect(report.idsWritten).toEqual([]);
		const actual = await graphSnapshot(memory);
		expect(actual.nodes).toEqual(expected.nodes);
		expect(actual.edges).toEqual(expected.edges);
		// The resolver's name index was written with the nodes: an exact name and a misspelt one.
		const candidates = async (name: string) => {
			const normalised = normaliseName(name);
			return (await memory.graph.nameCandidates(SCOPE, { normalised, fragments: queryFragments(normalised), limit: 5 })).map((n) => n.key);
		};
		expect(await candidates("PostgreSQL")).toContain("PostgreSQL");
		expect(await candidates("Postgresq")).toContain("PostgreSQL");
		// And a second sync finds nothing to do.
		const again = await sync.fullSync();
		expect(again.counts).toMatchObject({ filesRead: 0, nodesCreated: 0, nodesUpdated: 0, relationsAdded: 0, relationsRemoved: 0 });
	});

	it("reports the bad vault's problems and syncs the rest exactly as the SQLite reference does", async () => {
		const reference: SyncHarness = await openHarness({ from: BAD_VAULT });
		cleanups.push(() => reference.close());
		const expectedReport = await reference.sync.fullSync();
		const withoutIds = (snapshot: { nodes: string[]; edges: string[] }) => ({
			// Ids are new in each run, and so is the hash of the text that holds them.
			nodes: snapshot.nodes.map((line) => line.replace(/"(engrama_id|content_hash)":"[^"]*",?/g, "")).sort(),
			edges: snapshot.edges,
		});
		const expected = withoutIds(await graphSnapshot(reference.memory));
		const problems = (report: Awaited<ReturnType<VaultSync["fullSync"]>>) => report.problems.map((p) => `${p.path} ${p.severity}: ${p.problem}`).sort();

		// The same files as they were (no ids written yet) into an empty memory on this backend.
		const temp = makeTempDir("engrama-sync-parity-bad-");
		cleanups.push(() => temp.cleanup());
		const vaultDir = join(temp.path, "vault");
		cpSync(BAD_VAULT, vaultDir, { recursive: true, preserveTimestamps: true });
		const opened = await backend.open({ profile: exampleProfile(), config: { orgId: SCOPE.orgId, userId: SCOPE.userId } });
		cleanups.push(() => opened.close());
		const memory = new Memory({ graph: opened.stores.graph, vectors: opened.stores.vectors, embedder: null, profile: exampleProfile() });
		const report = await new VaultSync({ memory, source: new FolderVaultSource(vaultDir), scope: SCOPE }).fullSync();

		expect(problems(report)).toEqual(problems(expectedReport));
		expect(report.counts).toEqual(expectedReport.counts);
		expect([...report.idsWritten].sort()).toEqual([...expectedReport.idsWritten].sort());
		expect(withoutIds(await graphSnapshot(memory))).toEqual(expected);
	});

	it("renames, moves a stub's edges, unlinks, touches and archives through the pipeline as SQLite does", async () => {
		// The later syncs of a known graph take the one-by-one path: rekey, absorbStub, deleteRelation,
		// updateNoteState and archive, each a pipeline write nested in the batch's transaction.
		const run = async (memory: Memory) => {
			const temp = makeTempDir("engrama-sync-parity-edits-");
			cleanups.push(() => temp.cleanup());
			const dir = join(temp.path, "vault");
			mkdirSync(dir);
			const write = (path: string, text: string) => writeFileSync(join(dir, path), text);
			const sync = new VaultSync({ memory, source: new FolderVaultSource(dir), scope: SCOPE, settings: { writeEngramaIds: false, writeGraphToVault: false } });
			write("Ada.md", "---\nengrama_label: Person\n---\nWorks on [[Engine]] and [[Loom]].\n");
			write("Loom.md", "Weaving.\n");
			write("Babbage.md", "Knew [[Ada]].\n");
			await sync.fullSync();
			write("Engine.md", "---\nengrama_label: Project\n---\nThe engine.\n");
			renameSync(join(dir, "Loom.md"), join(dir, "Loom 2.md"));
			write("Ada.md", "---\nengrama_label: Person\n---\nWorks on [[Engine]].\n");
			rmSync(join(dir, "Babbage.md"));
			const edits = await sync.fullSync();
			const later = new Date(Date.now() + 60_000);
			utimesSync(join(dir, "Engine.md"), later, later);
			const touched = await sync.fullSync();
			const loom = await memory.graph.getNode(SCOPE, "Note", "Loom 2");
			const history = loom ? await memory.graph.nodeHistory(SCOPE, loom.id, { limit: 20 }) : [];
			return {
				counts: [edits.counts, touched.counts],
				problems: [...edits.problems, ...touched.problems],
				renamed: history.filter((e) => e.prop === "name").map((e) => `${JSON.stringify(e.before)} → ${JSON.stringify(e.after)} (${e.source})`),
				graph: await graphSnapshot(memory),
			};
		};
		const stripIds = (r: Awaited<ReturnType<typeof run>>) => ({
			...r,
			graph: { nodes: r.graph.nodes.map((line) => line.replace(/"engrama_id":"[^"]*",?/g, "")).sort(), edges: r.graph.edges },
		});
		const reference: SyncHarness = await openHarness();
		cleanups.push(() => reference.close());
		const expected = stripIds(await run(reference.memory));
		expect(expected.renamed).toEqual([`"Loom" → "Loom 2" (sync)`]);
		expect(expected.graph.edges.filter((e) => e.startsWith("Person:Ada"))).toHaveLength(1);

		const opened = await backend.open({ profile: exampleProfile(), config: { orgId: SCOPE.orgId, userId: SCOPE.userId } });
		cleanups.push(() => opened.close());
		const memory = new Memory({ graph: opened.stores.graph, vectors: opened.stores.vectors, embedder: null, profile: exampleProfile() });
		expect(stripIds(await run(memory))).toEqual(expected);
	});
});
