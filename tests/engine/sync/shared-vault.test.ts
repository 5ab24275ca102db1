import { cpSync, readFileSync, readdirSync, renameSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Memory } from "../../../src/engine/memory";
import type { SyncReport } from "../../../src/engine/sync";
import { VaultSync } from "../../../src/engine/sync/vault-sync";
import type { NodeRecord, Scope } from "../../../src/engine/types";
import { FolderVaultSource } from "../../../src/nodejs/folder-vault-source";
import { testBackends } from "../../contracts/backends";
import { makeTempDir } from "../../helpers/temp-dir";
import { EXAMPLE_VAULT, exampleProfile } from "./sync-fixture";

// engrama_id is unique per database. Two users of one database syncing the same vault (shared by
// git or Obsidian Sync) meet ids the other's memory already holds: each memory must still get the
// whole vault, and neither may rewrite the other's ids in the notes.
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
	for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const ALICE: Scope = { orgId: "team", userId: "alice" };
const BOB: Scope = { orgId: "team", userId: "bob" };

function snapshotFiles(dir: string): Map<string, string> {
	const out = new Map<string, string>();
	const walk = (d: string) => {
		for (const entry of readdirSync(d, { withFileTypes: true })) {
			const path = join(d, entry.name);
			if (entry.isDirectory()) walk(path);
			else out.set(relative(dir, path), readFileSync(path, "utf8"));
		}
	};
	walk(dir);
	return out;
}

async function notesOf(memory: Memory, scope: Scope): Promise<NodeRecord[]> {
	const nodes = await memory.graph.listNodes(scope, { includeArchived: true, limit: 1000, offset: 0 });
	return nodes.filter((n) => typeof n.props.obsidian_path === "string");
}

const errors = (report: SyncReport) =>
	report.problems
		.filter((p) => p.severity === "error")
		.map((p) => `${p.path}: ${p.problem}`)
		.sort();

describe.each(testBackends())("two users of one database sync one vault on $name", (backend) => {
	it("each memory gets the whole vault, the notes keep the first user's ids, edits and moves reach both", async () => {
		const temp = makeTempDir("engrama-shared-vault-");
		cleanups.push(() => temp.cleanup());
		const vaultDir = join(temp.path, "vault");
		cpSync(EXAMPLE_VAULT, vaultDir, { recursive: true });
		const opened = await backend.open({ profile: exampleProfile(), config: { orgId: ALICE.orgId, userId: ALICE.userId } });
		cleanups.push(() => opened.close());
		const memory = new Memory({ graph: opened.stores.graph, vectors: opened.stores.vectors, embedder: null, profile: exampleProfile() });
		const source = new FolderVaultSource(vaultDir);
		const alice = new VaultSync({ memory, source, scope: ALICE });
		const bob = new VaultSync({ memory, source, scope: BOB });

		const first = await alice.fullSync();
		expect(first.idsWritten.length).toBeGreaterThan(40);
		const vaultAfterAlice = snapshotFiles(vaultDir);

		const second = await bob.fullSync();
		expect(errors(second)).toEqual(errors(first));
		expect(second.counts).toMatchObject({
			nodesCreated: first.counts.nodesCreated,
			stubsCreated: first.counts.stubsCreated,
			relationsAdded: first.counts.relationsAdded,
		});
		expect(second.idsWritten).toEqual([]);
		const foreign = second.problems.filter((p) => p.problem.includes("belongs to an entity of another user"));
		const withIds = [...vaultAfterAlice].filter(([path, text]) => path.endsWith(".md") && /^engrama_id: /m.test(text)).map(([path]) => path);
		expect(foreign.map((p) => p.path).sort()).toEqual(withIds.sort());
		expect(foreign[0].action).toContain("leaves its engrama_id as it is");
		// Bob's sync wrote nothing into the shared notes.
		expect(snapshotFiles(vaultDir)).toEqual(vaultAfterAlice);

		const aliceNotes = await notesOf(memory, ALICE);
		const bobNotes = await notesOf(memory, BOB);
		expect(bobNotes.map((n) => n.props.obsidian_path).sort()).toEqual(aliceNotes.map((n) => n.props.obsidian_path).sort());
		const aliceIds = new Set(aliceNotes.map((n) => n.id));
		expect(bobNotes.some((n) => aliceIds.has(n.id))).toBe(false);

		// A second full sync for either finds nothing to do.
		for (const sync of [alice, bob]) {
			expect((await sync.fullSync()).counts).toMatchObject({ nodesCreated: 0, nodesUpdated: 0, relationsAdded: 0, relationsRemoved: 0 });
		}

		// An edit reaches both memories as an update of the node each already has.
		const edited = "Concepts/Idempotency.md";
		const text = readFileSync(join(vaultDir, edited), "utf8");
		writeFileSync(join(vaultDir, edited), text.replace(/\n---\n/, "\nsummary_note: edited by hand\n---\n"));
		for (const [sync, scope] of [
			[alice, ALICE],
			[bob, BOB],
		] as const) {
			const report = await sync.fullSync();
			expect(report.counts).toMatchObject({ nodesCreated: 0, nodesUpdated: 1 });
			expect((await notesOf(memory, scope)).length).toBe(aliceNotes.length);
		}

		// A moved note (same text) keeps its node in both memories.
		renameSync(join(vaultDir, edited), join(vaultDir, "Concepts/Idempotency (moved).md"));
		for (const [sync, scope] of [
			[alice, ALICE],
			[bob, BOB],
		] as const) {
			const before = (await notesOf(memory, scope)).find((n) => n.props.obsidian_path === edited);
			const report = await sync.fullSync();
			expect(report.counts).toMatchObject({ nodesCreated: 0, nodesMoved: 1, nodesArchived: 0 });
			const after = (await notesOf(memory, scope)).find((n) => n.props.obsidian_path === "Concepts/Idempotency (moved).md");
			expect(after?.id).toBe(before?.id);
		}
		expect(snapshotFiles(vaultDir).get("Concepts/Idempotency (moved).md")).toContain(`engrama_id: ${aliceNotes.find((n) => n.props.obsidian_path === edited)?.id}`);
	});
});
