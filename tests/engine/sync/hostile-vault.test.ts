import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Memory } from "../../../src/engine/memory";
import { loadProfile } from "../../../src/engine/profile";
import type { SyncReport } from "../../../src/engine/sync";
import { createNodeVaultSync } from "../../../src/nodejs/folder-vault-source";
import { testBackends } from "../../contracts/backends";
import { makeHostileVault } from "../../fixtures/hostile-vault/make-hostile-vault";
import { makeTempDir } from "../../helpers/temp-dir";
import { ROOT, SCOPE } from "./sync-fixture";

// The hostile vault (tests/fixtures/hostile-vault/README.md), synced the way the CLI and MCP serve
// do (createNodeVaultSync), on every test backend. Base profile only: teaching is a module that is off.
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
	for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const baseProfile = () => loadProfile([{ file: "base.yaml", text: readFileSync(join(ROOT, "profiles/base.yaml"), "utf8") }]);

function problemsByPath(report: SyncReport): Map<string, string[]> {
	const out = new Map<string, string[]>();
	for (const p of report.problems) out.set(p.path, [...(out.get(p.path) ?? []), `${p.severity}: ${p.problem} → ${p.action}`]);
	return out;
}

describe.each(testBackends())("a hostile vault on $name", (backend) => {
	it("syncs every good note, reports every bad file by path with what to do, never crashes, and a second sync is stable", async () => {
		const temp = makeTempDir("engrama-hostile-");
		cleanups.push(() => temp.cleanup());
		const { vault, good, bad } = makeHostileVault(temp.path);
		const profile = baseProfile();
		const opened = await backend.open({ profile, config: { orgId: SCOPE.orgId, userId: SCOPE.userId } });
		cleanups.push(() => opened.close());
		const memory = new Memory({ graph: opened.stores.graph, vectors: opened.stores.vectors, embedder: null, profile });
		const { sync } = await createNodeVaultSync({ memory, scope: SCOPE, vaultPath: vault });
		cleanups.push(() => sync.stop());

		const report = await sync.fullSync();
		const byPath = problemsByPath(report);
		for (const p of report.problems) {
			expect(p.problem.length, JSON.stringify(p)).toBeGreaterThan(20);
			expect(p.action.length, JSON.stringify(p)).toBeGreaterThan(10);
		}
		// Exactly the bad files are reported, each with the expected problem.
		expect([...byPath.keys()].sort()).toEqual(Object.keys(bad).sort());
		for (const [path, expected] of Object.entries(bad)) expect(byPath.get(path)?.join("\n"), path).toMatch(expected);

		// Every good note became its node; nothing came from a link, a copy or outside the vault.
		const nodes = await memory.graph.listNodes(SCOPE, { includeArchived: true });
		const notes = new Map(nodes.filter((n) => typeof n.props.obsidian_path === "string").map((n) => [n.props.obsidian_path as string, `${n.label}:${n.key}`]));
		expect(Object.fromEntries([...notes].sort())).toEqual(Object.fromEntries(Object.entries(good).sort()));
		expect(nodes.some((n) => /secret|elsewhere/i.test(n.key))).toBe(false);
		expect(readFileSync(join(temp.path, "outside", "secret.md"), "utf8")).not.toContain("engrama_id");

		// One note changed by the event path (as the plugin and `watch` sync): the same per-note reports.
		const events = await sync.syncPaths(["Alias bomb.md", "Outside.md", "Loop A.md", "Inside link.md"]);
		expect([...problemsByPath(events).keys()].sort()).toEqual(["Alias bomb.md", "Inside link.md", "Loop A.md", "Outside.md"]);

		const again = await sync.fullSync();
		expect(again.counts).toMatchObject({ nodesCreated: 0, nodesUpdated: 0, nodesArchived: 0, nodesMoved: 0, stubsCreated: 0, relationsAdded: 0, relationsRemoved: 0 });
		expect(again.idsWritten).toEqual([]);
		expect(again.notesWritten).toEqual([]);
	});
});
