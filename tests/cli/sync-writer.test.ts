import { cpSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { attachVaultWriter } from "../../src/cli/vault-writer";
import { parseConfig } from "../../src/config/engrama-config";
import { openMemory, type OpenedMemory } from "../../src/nodejs/open-memory";
import { createNodeVaultSync } from "../../src/nodejs/folder-vault-source";
import { makeTempDir } from "../helpers/temp-dir";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
	for (const c of cleanups.splice(0).reverse()) await c();
});

it("attachVaultWriter replicates a command's writes into the vault before the memory closes", async () => {
	const temp = makeTempDir("engrama-cli-writer-");
	cleanups.push(() => temp.cleanup());
	const vault = join(temp.path, "vault");
	cpSync(join(__dirname, "..", "..", "examples/vault"), vault, { recursive: true });
	const config = parseConfig({ backend: "sqlite", dbPath: join(temp.path, "m.db"), vaultPath: vault, modules: ["teaching"] });
	const opened: OpenedMemory = await openMemory(config);
	cleanups.push(() => opened.close());
	const { sync } = await createNodeVaultSync({ memory: opened.memory, scope: opened.scope, vaultPath: vault });
	await sync.fullSync();

	const finish = await attachVaultWriter(opened, config);
	expect(finish).not.toBeNull();
	await opened.memory.relate({ scope: opened.scope, source: "cli" }, { label: "Project", key: "Portfolio Site" }, "USES", { label: "Technology", key: "Deno" });
	await finish?.();
	expect(readFileSync(join(vault, "Projects/Portfolio Site.md"), "utf8")).toContain("[[Deno]]");
	expect(await attachVaultWriter(opened, { ...config, vaultPath: undefined })).toBeNull();
});
