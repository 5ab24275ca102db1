import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createNeo4jBackend } from "../../../src/backends/neo4j/neo4j-backend";
import { Neo4jGraphStore } from "../../../src/backends/neo4j/neo4j-graph-store";
import { parseConfig } from "../../../src/config/engrama-config";
import { REPLAYABLE } from "../../../src/engine/memory";
import type { WriteContext } from "../../../src/engine/write/write-pipeline";
import type { OpenedMemory } from "../../../src/nodejs/open-memory";
import { testBackends } from "../../contracts/backends";
import { neo4jTestBackend, neo4jTestSettings } from "../../contracts/neo4j-backend";

// Group commit on a real Neo4j server, which has no savepoints: writes waiting together share one
// transaction; a write that fails inside the group rolls the transaction back and the group runs
// again without it; each write is acknowledged only after the commit holding it, and every
// acknowledged write is there for another connection.
const neo4j = testBackends().some((b) => b.name === "neo4j");

describe.runIf(neo4j)("group commit on Neo4j (no savepoints: rollback and replay)", () => {
	let opened: OpenedMemory;
	let ctx: WriteContext;
	let graph: Neo4jGraphStore;

	beforeEach(async () => {
		opened = await neo4jTestBackend.open();
		ctx = { scope: opened.scope, source: "cli" };
		if (!(opened.memory.graph instanceof Neo4jGraphStore)) throw new Error("expected the Neo4j store");
		graph = opened.memory.graph;
	});
	afterEach(async () => {
		releaseHeld?.();
		await opened.close();
	});

	let releaseHeld: (() => void) | undefined;
	/** A write job that holds the queue until `release()`, so the writes issued meanwhile wait together. */
	async function holdQueue() {
		let release!: () => void;
		const gate = new Promise<void>((resolve) => (release = resolve));
		releaseHeld = release;
		const held = opened.memory.write(() => gate);
		while (opened.memory.writeStats.waiting > 0) await new Promise((resolve) => setImmediate(resolve));
		return { held, release };
	}

	/** The Concepts another connection (its own driver) sees: only committed writes. */
	async function committedKeys(): Promise<string[]> {
		const other = await createNeo4jBackend(parseConfig({ backend: "neo4j", dbPath: ":memory:", neo4j: neo4jTestSettings() }), { namespace: graph.namespace });
		try {
			const nodes = await other.graph.listNodes(opened.scope, { label: "Concept", limit: 1000 });
			return nodes.map((n) => n.key).sort();
		} finally {
			await other.graph.close();
		}
	}

	it("puts writes that wait together in one transaction, acknowledged after its commit", async () => {
		const { held, release } = await holdQueue();
		const names = Array.from({ length: 12 }, (_, i) => `Concurrent ${String(i).padStart(2, "0")}`);
		const before = opened.memory.writeStats;
		const writes = names.map((name) => opened.memory.remember(ctx, { label: "Concept", key: name, props: { summary: `about ${name}` } }));
		let acknowledged = 0;
		for (const w of writes) void w.then(() => acknowledged++);
		graph.conn.resetCounts();
		release();
		await held;
		const results = await Promise.all(writes);
		expect(results.every((r) => r.created)).toBe(true);
		expect(acknowledged).toBe(names.length);
		const after = opened.memory.writeStats;
		// The holding job (not replayable) in a group of its own, then all the remembers in one.
		expect({ groups: after.groups - before.groups, jobs: after.jobs - before.jobs, largest: after.largestGroup }).toEqual({ groups: 2, jobs: names.length + 1, largest: names.length });
		// Twelve remembers, one transaction and one commit.
		expect(graph.conn.resetCounts().transactions).toBe(1);
		expect(await committedKeys()).toEqual(names);
	});

	it("rolls back a write that fails after writing, replays the others without it, and they commit", async () => {
		const { held, release } = await holdQueue();
		const a = opened.memory.remember(ctx, { label: "Concept", key: "Before the bad one" });
		const bad = opened.memory.write(async () => {
			await opened.memory.pipeline.mergeEntity(ctx, { label: "Concept", key: "Half written" });
			throw new Error("refused after writing");
		}, REPLAYABLE);
		const b = opened.memory.remember(ctx, { label: "Concept", key: "After the bad one" });
		graph.conn.resetCounts();
		release();
		await held;
		await expect(bad).rejects.toThrow("refused after writing");
		await expect(a).resolves.toMatchObject({ created: true });
		await expect(b).resolves.toMatchObject({ created: true });
		// The first transaction rolled back at the bad write; the replay committed the other two.
		expect(graph.conn.resetCounts().transactions).toBe(2);
		expect(await committedKeys()).toEqual(["After the bad one", "Before the bad one"]);
	});

	it("a write the server refuses (a taken engrama_id) fails alone; the rest of its group commits", async () => {
		const taken = await opened.memory.remember(ctx, { label: "Concept", key: "Owner of the id" });
		const { held, release } = await holdQueue();
		const first = opened.memory.remember(ctx, { label: "Concept", key: "First in the group" });
		// Another node with the same engrama_id breaks the store's uniqueness constraint in the server.
		const clash = opened.memory.write(
			() => graph.mergeNode(opened.scope, { label: "Concept", keyField: "name", key: "Clashing id", set: { name: "Clashing id" }, setOnCreate: { engrama_id: taken.node.id }, now: new Date().toISOString() }),
			REPLAYABLE,
		);
		const last = opened.memory.remember(ctx, { label: "Concept", key: "Last in the group" });
		release();
		await held;
		await expect(clash).rejects.toThrow(/rolled back/);
		await expect(first).resolves.toMatchObject({ created: true });
		await expect(last).resolves.toMatchObject({ created: true });
		expect(await committedKeys()).toEqual(["First in the group", "Last in the group", "Owner of the id"]);
	});

	it("commits a lone writer at once, in one transaction", async () => {
		graph.conn.resetCounts();
		const before = opened.memory.writeStats;
		await opened.memory.remember(ctx, { label: "Concept", key: "Alone" });
		const after = opened.memory.writeStats;
		expect({ groups: after.groups - before.groups, jobs: after.jobs - before.jobs, waiting: after.waiting }).toEqual({ groups: 1, jobs: 1, waiting: 0 });
		expect(graph.conn.resetCounts().transactions).toBe(1);
		expect(await committedKeys()).toEqual(["Alone"]);
	});
});
