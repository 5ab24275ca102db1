import { describe, expect, test } from "vitest";
import type { DataAdapter } from "obsidian";
import { createFakeApp, memoryFileSystem } from "../fakes/obsidian";
import { createAdapterSnapshotStorage } from "../../src/plugin/adapter-snapshot-storage";

describe("the mobile database snapshot through the vault adapter", () => {
	test("keeps exactly the snapshot's bytes: a whole array as it is, a view into a larger buffer only its own part", async () => {
		const app = createFakeApp(memoryFileSystem({}), { mobile: true });
		const storage = createAdapterSnapshotStorage(app.vault.adapter as unknown as DataAdapter, ".obsidian/plugins/engrama/engrama.db");
		expect(await storage.read()).toBeNull();
		await storage.write(new Uint8Array([1, 2, 3, 4]));
		expect([...((await storage.read()) ?? [])]).toEqual([1, 2, 3, 4]);
		const larger = new Uint8Array([9, 9, 5, 6, 7, 9]);
		await storage.write(larger.subarray(2, 5));
		expect([...((await storage.read()) ?? [])]).toEqual([5, 6, 7]);
		expect(await app.vault.adapter.exists(".obsidian/plugins/engrama/engrama.db.tmp")).toBe(false);
	});

	test("keeps the check stamp beside the snapshot, and removes it", async () => {
		const app = createFakeApp(memoryFileSystem({}), { mobile: true });
		const storage = createAdapterSnapshotStorage(app.vault.adapter as unknown as DataAdapter, ".obsidian/plugins/engrama/engrama.db");
		expect(await storage.readStamp?.()).toBeNull();
		await storage.writeStamp?.('{"version":1}');
		expect(await storage.readStamp?.()).toBe('{"version":1}');
		expect(await app.vault.adapter.exists(".obsidian/plugins/engrama/engrama.db.engrama-checked")).toBe(true);
		await storage.writeStamp?.(null);
		await storage.writeStamp?.(null);
		expect(await storage.readStamp?.()).toBeNull();
	});
});
