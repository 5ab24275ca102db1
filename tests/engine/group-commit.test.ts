import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/engrama-config";
import type { WriteContext } from "../../src/engine/write/write-pipeline";
import { openMemory, type OpenedMemory } from "../../src/nodejs/open-memory";
import { makeTempDir } from "../helpers/temp-dir";

// Group commit on a real SQLite file: writes waiting together share a commit, each is rolled back
// alone when it fails, and every acknowledged write is in the file when it is opened again.
describe("group commit (SQLite file)", () => {
	let dir: ReturnType<typeof makeTempDir>;
	let db: string;
	let opened: OpenedMemory;
	let ctx: WriteContext;

	const open = () => openMemory(parseConfig({ backend: "sqlite", dbPath: db, profile: "base" }), { embedder: null });

	beforeEach(async () => {
		dir = makeTempDir("engrama-group-commit-");
		db = join(dir.path, "memory.db");
		opened = await open();
		ctx = { scope: opened.scope, source: "cli" };
	});
	afterEach(async () => {
		releaseHeld?.();
		await opened.close();
		dir.cleanup();
	});

	/** A write job that holds the queue until `release()`, so the writes issued meanwhile wait together. */
	let releaseHeld: (() => void) | undefined;
	async function holdQueue() {
		let release!: () => void;
		const gate = new Promise<void>((resolve) => (release = resolve));
		releaseHeld = release;
		const held = opened.memory.write(() => gate);
		// Until the queue took the holding job: then only what is issued next waits.
		while (opened.memory.writeStats.waiting > 0) await new Promise((resolve) => setImmediate(resolve));
		return { held, release };
	}

	async function reopenedKeys(): Promise<string[]> {
		await opened.close();
		opened = await open();
		const nodes = await opened.memory.graph.listNodes(opened.scope, { label: "Concept", limit: 1000 });
		return nodes.map((n) => n.key).sort();
	}

	it("puts writes that wait together in one commit, and each is in the file after reopening", async () => {
		const before = opened.memory.writeStats;
		const { held, release } = await holdQueue();
		const names = Array.from({ length: 20 }, (_, i) => `Concurrent ${String(i).padStart(2, "0")}`);
		const writes = names.map((name) => opened.memory.remember(ctx, { label: "Concept", key: name, props: { summary: `about ${name}` } }));
		expect(opened.memory.writeStats.waiting).toBe(20);
		release();
		await held;
		const results = await Promise.all(writes);
		expect(results.every((r) => r.created)).toBe(true);
		const after = opened.memory.writeStats;
		expect(after.groups - before.groups).toBe(1);
		expect(after.jobs - before.jobs).toBe(21);
		expect(await reopenedKeys()).toEqual(names);
	});

	it("rolls back a failing write alone; the others in its group commit", async () => {
		const { held, release } = await holdQueue();
		const a = opened.memory.remember(ctx, { label: "Concept", key: "Before the bad one" });
		const bad = opened.memory.write(async () => {
			await opened.memory.pipeline.mergeEntity(ctx, { label: "Concept", key: "Half written" });
			throw new Error("refused after writing");
		});
		const b = opened.memory.remember(ctx, { label: "Concept", key: "After the bad one" });
		release();
		await held;
		await expect(bad).rejects.toThrow("refused after writing");
		await expect(a).resolves.toMatchObject({ created: true });
		await expect(b).resolves.toMatchObject({ created: true });
		expect(await reopenedKeys()).toEqual(["After the bad one", "Before the bad one"]);
	});

	it("rolls back a failing first write of a group alone; the writes queued behind it commit", async () => {
		const bad = opened.memory.write(async () => {
			await opened.memory.pipeline.mergeEntity(ctx, { label: "Concept", key: "Half written first" });
			throw new Error("first refused");
		});
		const c = opened.memory.remember(ctx, { label: "Concept", key: "Queued C" });
		const d = opened.memory.remember(ctx, { label: "Concept", key: "Queued D" });
		await expect(bad).rejects.toThrow("first refused");
		await expect(Promise.all([c, d])).resolves.toHaveLength(2);
		expect(await reopenedKeys()).toEqual(["Queued C", "Queued D"]);
	});

	it("commits a lone writer in a group of its own, before acknowledging it", async () => {
		const before = opened.memory.writeStats;
		await opened.memory.remember(ctx, { label: "Concept", key: "Alone" });
		const after = opened.memory.writeStats;
		expect({ groups: after.groups - before.groups, jobs: after.jobs - before.jobs, waiting: after.waiting }).toEqual({ groups: 1, jobs: 1, waiting: 0 });
		// Committed: a WAL checkpoint (refused inside an open transaction) runs, and the row is in the file.
		await opened.memory.write(async () => opened.memory.pipeline.purgeDeleted(), { alone: true });
		expect(await reopenedKeys()).toEqual(["Alone"]);
	});
});
