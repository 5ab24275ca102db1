// Library side of the sync benchmark, bundled by scripts/bench/sync-bench.mjs with esbuild.
import { createBackend } from "../../src/backends/factory";
import { parseConfig } from "../../src/config/engrama-config";
import { Memory } from "../../src/engine/memory";
import { parseFrontmatterYaml, splitFrontmatter } from "../../src/engine/sync/frontmatter";
import { parseNote } from "../../src/engine/sync/note-parser";
import { syncSettings } from "../../src/engine/sync/sync-settings";
import { VaultSync } from "../../src/engine/sync/vault-sync";
import type { SyncSettings } from "../../src/engine/sync/sync-settings";
import { FolderVaultSource } from "../../src/node/folder-vault-source";
import { loadProfileFromDisk } from "../../src/node/profile-files";

export async function openSync(vaultDir: string, dbPath: string, settings: Partial<SyncSettings> = {}) {
	const config = parseConfig({ backend: "sqlite", dbPath, orgId: "bench", userId: "bench" });
	const { graph, vectors } = await createBackend(config);
	const memory = new Memory({ graph, vectors, embedder: null, profile: loadProfileFromDisk("base", []) });
	const source = new FolderVaultSource(vaultDir);
	const sync = new VaultSync({ memory, source, scope: { orgId: "bench", userId: "bench" }, settings });
	return { memory, source, sync, close: () => memory.close() };
}

/** The floor: list the vault, read every note and parse its frontmatter; nothing else. */
export async function floor(vaultDir: string): Promise<{ files: number; keys: number }> {
	const source = new FolderVaultSource(vaultDir);
	let keys = 0;
	const files = (await source.list()).filter((f) => !f.path.split("/").some((p) => p.startsWith(".")));
	for (const f of files) {
		const split = splitFrontmatter(await source.read(f.path));
		if (split.kind !== "block") continue;
		const parsed = parseFrontmatterYaml(split.yaml, 1);
		if (parsed.ok) keys += Object.keys(parsed.data).length;
	}
	return { files: files.length, keys };
}

/** Reads every note and parses it fully (what sync does before touching the graph). */
export async function parseAll(vaultDir: string): Promise<{ files: number; notes: number }> {
	const source = new FolderVaultSource(vaultDir);
	const settings = syncSettings({});
	const profile = loadProfileFromDisk("base", []);
	let notes = 0;
	const files = (await source.list()).filter((f) => !f.path.split("/").some((p) => p.startsWith(".")));
	for (const f of files) {
		const result = parseNote({ path: f.path, text: await source.read(f.path), settings, profile });
		if (result.kind === "note") notes++;
	}
	return { files: files.length, notes };
}
