// Notes synced by path first, their engrama_ids written afterwards in small calls (the plugin's
// first run and the switch from paths to ids): VaultSync.fullSync({ writeIds: false }) and writeMissingIds.
import { appendFileSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EXAMPLE_VAULT, allNodes, openHarness, type SyncHarness } from "./sync-fixture";

const open: SyncHarness[] = [];
afterEach(async () => {
	for (const h of open.splice(0)) await h.close();
});
async function harness(): Promise<SyncHarness> {
	const h = await openHarness({ from: EXAMPLE_VAULT, settings: { excludedFolders: ["Templates"], writeGraphToVault: false } });
	open.push(h);
	return h;
}

function texts(dir: string): Map<string, string> {
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

describe("ids written after a sync by path", () => {
	it("a full sync with writeIds false changes no file although writeEngramaIds is on", async () => {
		const h = await harness();
		const before = texts(h.vaultDir);
		const report = await h.sync.fullSync({ writeIds: false });
		expect(report.counts.nodesCreated).toBeGreaterThan(10);
		expect(report.idsWritten).toEqual([]);
		expect(texts(h.vaultDir)).toEqual(before);
	});

	it("writeMissingIds writes each indexed note's node id, the dry run lists the same notes, and a second call finds none", async () => {
		const h = await harness();
		await h.sync.fullSync({ writeIds: false });
		const paths = [...texts(h.vaultDir).keys()].filter((p) => p.endsWith(".md"));
		const lacking = paths.filter((p) => !p.startsWith("Templates/") && idOf(h.read(p)) === undefined);
		const preview = await h.sync.writeMissingIds(paths, { dryRun: true });
		expect(preview.written.length).toBeGreaterThan(5);
		const untouched = texts(h.vaultDir);
		const done = [];
		for (let i = 0; i < paths.length; i += 4) done.push(...(await h.sync.writeMissingIds(paths.slice(i, i + 4))).written);
		expect(done.sort()).toEqual([...preview.written].sort());
		expect(preview.written.every((p) => lacking.includes(p))).toBe(true);
		const byPath = new Map((await allNodes(h.memory)).map((n) => [n.props.obsidian_path, n.id]));
		for (const path of done) expect(idOf(h.read(path))).toBe(byPath.get(path));
		// Nothing but the id line changed (a note without frontmatter gets a block for it).
		const withoutId = (text: string) => text.replace(/^engrama_id: .+\n/m, "").replace(/^---\n---\n/, "");
		for (const path of done) expect(withoutId(h.read(path))).toBe(untouched.get(path));
		expect((await h.sync.writeMissingIds(paths, { dryRun: true })).written).toEqual([]);
		// The hashes were recorded: a full sync afterwards reads nothing as changed.
		const again = await h.sync.fullSync();
		expect(again.counts.nodesUpdated + again.counts.nodesCreated).toBe(0);
		expect(again.idsWritten).toEqual([]);
	});

	it("a note changed since it was indexed is synced, and gets its id with its new text", async () => {
		const h = await harness();
		await h.sync.fullSync({ writeIds: false });
		const path = "Concepts/CRDTs.md";
		expect(idOf(h.read(path))).toBeUndefined();
		appendFileSync(join(h.vaultDir, path), "\nA line typed while Obsidian was closed.\n");
		const result = await h.sync.writeMissingIds([path]);
		expect(result.written).toEqual([path]);
		const node = (await allNodes(h.memory)).find((n) => n.props.obsidian_path === path);
		expect(idOf(h.read(path))).toBe(node?.id);
		expect(h.read(path)).toContain("typed while Obsidian was closed");
		expect(node?.props.content_hash).not.toBe(undefined);
	});
});
